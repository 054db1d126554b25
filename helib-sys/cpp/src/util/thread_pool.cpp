// thread_pool.cpp -- fork-join pool implementation.
#include "util/thread_pool.hpp"

#include <algorithm>
#include <string>
#include <system_error>

#include "util/error.hpp"

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

/// Exclusive use of the pool (busy_ set) for the scope, released on every
/// path; whoever waits for the pool to become idle is woken.
class ThreadPool::Claim {
public:
    /// Takes the pool, waiting for a running job to finish.
    explicit Claim(ThreadPool &pool) : pool_(pool) {
        std::unique_lock<std::mutex> lock(pool_.mutex_);
        pool_.idle_.wait(lock, [&] {
            bool expected = false;
            return pool_.busy_.compare_exchange_strong(expected, true);
        });
    }
    /// Adopts a claim already made with a compare-exchange on busy_.
    Claim(ThreadPool &pool, std::adopt_lock_t) : pool_(pool) {}
    ~Claim() {
        {
            std::lock_guard<std::mutex> lock(pool_.mutex_);
            pool_.busy_.store(false);
        }
        pool_.idle_.notify_all();
    }
    Claim(const Claim &) = delete;
    Claim &operator=(const Claim &) = delete;

private:
    ThreadPool &pool_;
};

namespace {

unsigned resolve_threads(unsigned threads) {
    require(threads <= ThreadPool::kMaxThreads, Status::InvalidArgument,
            std::to_string(threads) + " threads asked for; at most " + std::to_string(ThreadPool::kMaxThreads) +
                " are supported (0 = one per hardware thread)");
    if (threads != 0) return threads;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : std::min(hw, ThreadPool::kMaxThreads);
}

}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
    const unsigned total = resolve_threads(threads);
    grow(total - 1);
    total_threads_ = total;
}

ThreadPool::~ThreadPool() { shrink(0); }

unsigned ThreadPool::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_threads_;
}

void ThreadPool::resize(unsigned threads) {
    const unsigned total = resolve_threads(threads);
    std::lock_guard<std::mutex> resize_lock(resize_mutex_);
    // No job runs while workers are added or removed.
    const Claim claim(*this);
    if (total - 1 > workers_.size()) {
        try {
            grow(total - 1);
        } catch (const Error &e) {
            fail(e.status(), std::string(e.what()) + "; the pool keeps its " + std::to_string(workers_.size() + 1) +
                                 " thread(s)");
        }
    } else {
        shrink(total - 1);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    total_threads_ = total;
}

void ThreadPool::grow(unsigned workers) {
    const unsigned before = static_cast<unsigned>(workers_.size());
    workers_.reserve(workers);
    unsigned long generation;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        active_workers_ = workers;
        generation = generation_;
    }
    try {
        for (unsigned index = before; index < workers; ++index) {
            workers_.emplace_back([this, index, generation] { worker_loop(index, generation); });
        }
    } catch (const std::system_error &e) {
        const unsigned started = static_cast<unsigned>(workers_.size());
        shrink(before);
        fail(Status::OutOfMemory, "could not start worker thread " + std::to_string(started + 2) + " of " +
                                          std::to_string(workers + 1) + " (" + e.what() + ")");
    } catch (...) {
        shrink(before);
        throw;
    }
}

void ThreadPool::shrink(unsigned workers) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        active_workers_ = workers;
    }
    wake_.notify_all();
    while (workers_.size() > workers) {
        workers_.back().join();
        workers_.pop_back();
    }
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

void ThreadPool::worker_loop(unsigned index, unsigned long seen) {
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return index >= active_workers_ || generation_ != seen; });
            if (index >= active_workers_) return;
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
    std::shared_ptr<Job> job;
    {
        const Claim claim(*this, std::adopt_lock);
        job = std::make_shared<Job>();
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
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return job->finished.load() == count; });
        job_.reset();
    }
    if (job->error) std::rethrow_exception(job->error);
}

}  // namespace bgv
