// src/fast/thread_pool.hpp — private to the fast path: the persistent worker pool behind
// attn/fast/threads.hpp.
//
// Why not a thread per step: starting and joining threads costs tens of microseconds each time,
// and a thread that throws calls std::terminate. The pool's workers are started once and wait on
// a condition variable; run() hands them the indices of a job one at a time (uneven pieces
// balance), works on them itself as worker 0, and returns when every index is done. The first
// exception a piece throws is kept, the indices not yet started are skipped, and run() rethrows
// it on the caller's thread.
//
//   attn::fast::detail::WorkerPool pool(2);
//   pool.run(10, [&](std::size_t index, std::size_t worker) { … });   // worker ∈ {0, 1}
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

namespace attn::fast::detail {

class WorkerPool {
public:
    using Task = std::function<void(std::size_t index, std::size_t worker)>;

    /// Starts threads − 1 workers (the caller of run() is the other one). threads ≥ 1.
    explicit WorkerPool(std::size_t threads);
    ~WorkerPool();  // stops and joins the workers
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// The number of threads a job runs on, the caller included.
    std::size_t size() const { return workers_.size() + 1; }

    /// Runs task(index, worker) for every index in [0, count), worker in [0, size()): each worker
    /// index is used by one thread at a time (per-worker scratch buffers need no lock). Returns when
    /// all are done; rethrows the first exception a task threw (later indices are then not run).
    /// One job at a time: a run() that finds the pool busy — another thread's job, or a task that
    /// calls run() — runs its indices on the calling thread alone, as worker 0.
    void run(std::size_t count, const Task& task);

private:
    void work_loop(std::size_t worker);
    void drain(std::size_t worker);  // takes indices of the current job until none is left

    std::vector<std::thread> workers_;
    std::mutex busy_;                 // held by the run() whose job the workers are doing
    std::mutex mutex_;                // guards the fields below
    std::condition_variable wake_;    // a new job, or stop
    std::condition_variable done_;    // the last worker left the job
    std::size_t generation_ = 0;      // incremented per job
    std::size_t active_ = 0;          // workers still in the current job
    bool stop_ = false;
    const Task* task_ = nullptr;      // the current job
    std::size_t count_ = 0;
    std::atomic<std::size_t> next_{0};
    std::atomic<bool> cancelled_{false};
    std::exception_ptr error_;
};

/// The process-wide pool (created on first use with threads(); see attn/fast/threads.hpp). Callers
/// keep the returned pointer for the duration of their call: set_threads may replace the pool
/// meanwhile, and the old one lives until its last user is done.
std::shared_ptr<WorkerPool> shared_pool();

}  // namespace attn::fast::detail
