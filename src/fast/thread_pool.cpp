// The worker pool (thread_pool.hpp) and the process-wide thread setting (attn/fast/threads.hpp).
#include "thread_pool.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "attn/fast/machine.hpp"
#include "attn/fast/threads.hpp"

#ifdef ATTN_HAVE_OPENBLAS
// OpenBLAS's thread control; Debian's libopenblas0 provides it (CMake links it to attn_fast).
extern "C" void openblas_set_num_threads(int);
#endif

namespace attn::fast {

namespace detail {

WorkerPool::WorkerPool(std::size_t threads) {
    workers_.reserve(threads > 0 ? threads - 1 : 0);
    for (std::size_t worker = 1; worker < threads; ++worker) {
        workers_.emplace_back([this, worker] { work_loop(worker); });
    }
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& thread : workers_) thread.join();
}

void WorkerPool::drain(std::size_t worker) {
    for (std::size_t index = next_.fetch_add(1); index < count_; index = next_.fetch_add(1)) {
        if (cancelled_.load(std::memory_order_relaxed)) return;
        try {
            (*task_)(index, worker);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
            cancelled_ = true;
        }
    }
}

void WorkerPool::work_loop(std::size_t worker) {
    std::size_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
        }
        drain(worker);
        std::lock_guard<std::mutex> lock(mutex_);
        if (--active_ == 0) done_.notify_one();
    }
}

void WorkerPool::run(std::size_t count, const Task& task) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock() || workers_.empty() || count <= 1) {
        // Alone: exceptions leave as they are thrown.
        for (std::size_t index = 0; index < count; ++index) task(index, 0);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = &task;
        count_ = count;
        next_ = 0;
        cancelled_ = false;
        error_ = nullptr;
        active_ = workers_.size();
        ++generation_;
    }
    wake_.notify_all();
    drain(0);
    std::exception_ptr error;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return active_ == 0; });
        task_ = nullptr;
        error = error_;
        error_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
}

namespace {

std::mutex pool_mutex;
std::shared_ptr<WorkerPool> pool;  // guarded by pool_mutex

// The default: one thread per physical core of those this process may run on (a second hardware
// thread of a core shares its vector units, and the kernels keep those busy).
int initial_threads() {
    static const int count = physical_cores();
    return count;
}

// A new pool, and OpenBLAS on one thread from now on (attn/fast/threads.hpp: set when a pool is
// created, never per call). Called with pool_mutex held.
std::shared_ptr<WorkerPool> make_pool(int threads) {
#ifdef ATTN_HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
    return std::make_shared<WorkerPool>(static_cast<std::size_t>(threads));
}

}  // namespace

std::shared_ptr<WorkerPool> shared_pool() {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (!pool) pool = make_pool(initial_threads());
    return pool;
}

}  // namespace detail

void set_threads(int threads) {
    if (threads < 1 || threads > 1024) {
        throw InputError("attn::fast::set_threads: threads = " + std::to_string(threads) +
                         " must be between 1 and 1024");
    }
    std::shared_ptr<detail::WorkerPool> old;  // joined outside the lock, once its last user is done
    std::lock_guard<std::mutex> lock(detail::pool_mutex);
    if (detail::pool && detail::pool->size() == static_cast<std::size_t>(threads)) return;
    old = std::move(detail::pool);
    detail::pool = detail::make_pool(threads);
}

int threads() { return static_cast<int>(detail::shared_pool()->size()); }

void set_blas_threads(int threads) {
    if (threads < 1 || threads > 1024) {
        throw InputError("attn::fast::set_blas_threads: threads = " + std::to_string(threads) +
                         " must be between 1 and 1024");
    }
#ifdef ATTN_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
#endif
}

}  // namespace attn::fast
