// thread_pool.cpp -- fork-join pool implementation.
#include "thread_pool.hpp"

namespace bgv {

/// One parallel_for: items are claimed from `next`; `finished` counts those done.
struct ThreadPool::Job {
    const std::function<void(size_t)> *body = nullptr;
    size_t count = 0;
    std::atomic<size_t> next{0};
    std::atomic<size_t> finished{0};
    std::mutex error_mutex;
    std::exception_ptr error;
    std::mutex *pool_mutex = nullptr;
    std::condition_variable *done = nullptr;
};

namespace {

unsigned resolve_threads(unsigned threads) {
    if (threads != 0) return threads;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : hw;
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) { start(resolve_threads(threads)); }

ThreadPool::~ThreadPool() { stop(); }

unsigned ThreadPool::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_threads_;
}

void ThreadPool::resize(unsigned threads) {
    std::lock_guard<std::mutex> resize_lock(resize_mutex_);
    // Claim the pool so no job runs while workers are replaced.
    bool expected = false;
    while (!busy_.compare_exchange_weak(expected, true)) {
        expected = false;
        std::this_thread::yield();
    }
    stop();
    start(resolve_threads(threads));
    busy_.store(false);
}

void ThreadPool::start(unsigned threads) {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = false;
    total_threads_ = threads;
    for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

void ThreadPool::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto &w : workers_) w.join();
    workers_.clear();
}

void ThreadPool::run_items(Job &job) {
    for (;;) {
        const size_t i = job.next.fetch_add(1);
        if (i >= job.count) return;
        try {
            (*job.body)(i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(job.error_mutex);
            if (!job.error) job.error = std::current_exception();
        }
        if (job.finished.fetch_add(1) + 1 == job.count) {
            std::lock_guard<std::mutex> lock(*job.pool_mutex);
            job.done->notify_all();
        }
    }
}

void ThreadPool::worker_loop() {
    unsigned long seen = 0;
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
            job = job_;
        }
        if (job) run_items(*job);
    }
}

void ThreadPool::parallel_for(size_t count, const std::function<void(size_t)> &body) {
    bool expected = false;
    const bool parallel = count > 1 && size() > 1 && busy_.compare_exchange_strong(expected, true);
    if (!parallel) {
        for (size_t i = 0; i < count; ++i) body(i);
        return;
    }
    auto job = std::make_shared<Job>();
    job->body = &body;
    job->count = count;
    job->pool_mutex = &mutex_;
    job->done = &done_;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = job;
        ++generation_;
    }
    wake_.notify_all();
    run_items(*job);
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return job->finished.load() == count; });
        job_.reset();
    }
    busy_.store(false);
    if (job->error) std::rethrow_exception(job->error);
}

}  // namespace bgv
