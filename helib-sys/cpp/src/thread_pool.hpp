// thread_pool.hpp -- a small fork-join pool for work across RNS primes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace bgv {

/// A pool of worker threads running one `parallel_for` at a time. The calling
/// thread takes part in the work. A `parallel_for` issued while the pool is
/// busy (from another thread, or nested inside a body) runs serially on the
/// caller instead of waiting, so the pool never deadlocks or oversubscribes.
/// The first exception thrown by a body is rethrown to the caller.
class ThreadPool {
public:
    /// `threads` = total threads including the caller; 0 = hardware threads.
    explicit ThreadPool(unsigned threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    /// Total threads used by `parallel_for` (including the caller).
    unsigned size() const;
    /// Changes the number of threads; waits for a running job to finish.
    void resize(unsigned threads);
    /// Runs body(i) for i in [0, count), in parallel when the pool is free.
    void parallel_for(size_t count, const std::function<void(size_t)> &body);

private:
    void start(unsigned threads);
    void stop();
    void worker_loop();
    struct Job;
    static void run_items(Job &job);

    std::vector<std::thread> workers_;
    mutable std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::mutex resize_mutex_;
    std::atomic<bool> busy_{false};
    bool stopping_ = false;
    unsigned total_threads_ = 1;
    // The current job; workers keep it alive while they touch it.
    std::shared_ptr<Job> job_;
    unsigned long generation_ = 0;
};

}  // namespace bgv
