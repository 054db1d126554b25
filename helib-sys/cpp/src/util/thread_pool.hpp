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
    /// The most threads a pool may have (the caller included).
    static constexpr unsigned kMaxThreads = 256;

    /// `threads` = total threads including the caller; 0 = hardware threads
    /// (at most kMaxThreads). Throws Status::InvalidArgument above
    /// kMaxThreads and Status::OutOfMemory when a worker thread cannot be
    /// started (the workers already started are stopped first).
    explicit ThreadPool(unsigned threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    /// Total threads used by `parallel_for` (including the caller).
    unsigned size() const;
    /// Changes the number of threads; waits for a running job to finish.
    /// Throws as the constructor does; after a failure the pool has exactly
    /// the threads it had before and stays usable. Must not be called from a
    /// `parallel_for` body of this pool.
    void resize(unsigned threads);
    /// Runs body(i) for i in [0, count), in parallel when the pool is free.
    void parallel_for(size_t count, const std::function<void(size_t)> &body);

private:
    struct Job;
    class Claim;
    /// Starts workers until there are `workers`; on failure stops the ones it
    /// started and throws.
    void grow(unsigned workers);
    /// Stops the workers beyond the first `workers`.
    void shrink(unsigned workers);
    void worker_loop(unsigned index, unsigned long seen);
    static void run_items(Job &job);

    std::vector<std::thread> workers_;  // changed only by a pool claimant
    mutable std::mutex mutex_;
    std::condition_variable wake_, done_, idle_;
    std::mutex resize_mutex_;
    std::atomic<bool> busy_{false};
    // Workers with an index at or beyond this return.
    unsigned active_workers_ = 0;
    unsigned total_threads_ = 1;
    // The current job; workers keep it alive while they touch it.
    std::shared_ptr<Job> job_;
    unsigned long generation_ = 0;
};

}  // namespace bgv
