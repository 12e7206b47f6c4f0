// Tests of attn/fast/threads.hpp and its worker pool (src/fast/thread_pool.hpp): every index runs
// once, an exception thrown by a task reaches the caller (and the pool keeps working), the workers
// persist from job to job, a busy pool runs a nested or concurrent job on the caller's thread, two
// threads calling the fast path at once get the right numbers, and OpenBLAS's thread count is set
// when a pool is created, never per call. The numbers do not depend on the thread count.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "fast/thread_pool.hpp"
#include "support/fast_guards.hpp"
#include "support/fast_inputs.hpp"
#include "support/tensor_match.hpp"

#ifdef ATTN_HAVE_OPENBLAS
extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);
#endif

using attn::fast::detail::WorkerPool;
using attn::testing::random_fast_layer;
using attn::testing::random_fast_parameters;
using attn::testing::random_float;
using attn::testing::ThreadsGuard;

TEST_CASE("the worker pool runs every index once, on every worker, and rethrows a task's exception", "[fast_threads]") {
    WorkerPool pool(3);
    CHECK(pool.size() == 3);
    std::vector<std::atomic<int>> runs(1000);
    std::mutex mutex;
    std::set<std::size_t> workers;
    pool.run(runs.size(), [&](std::size_t index, std::size_t worker) {
        ++runs[index];
        std::lock_guard<std::mutex> lock(mutex);
        workers.insert(worker);
    });
    for (const auto& count : runs) CHECK(count == 1);
    for (std::size_t worker : workers) CHECK(worker < 3);

    // A throwing task: the exception reaches the caller, the rest of the job stops, the pool lives on.
    std::atomic<int> started{0};
    CHECK_THROWS_WITH(pool.run(10000,
                               [&](std::size_t index, std::size_t) {
                                   ++started;
                                   if (index == 17) throw std::runtime_error("task 17 failed");
                                   // Slow tasks: a busy machine may pause the throwing worker, and the
                                   // others must not finish the whole job before the cancel lands.
                                   std::this_thread::sleep_for(std::chrono::microseconds(100));
                               }),
                      "task 17 failed");
    CHECK(started < 10000);
    CHECK_THROWS_AS(pool.run(5, [](std::size_t, std::size_t) { throw attn::InputError("every task fails"); }),
                    attn::InputError);
    std::atomic<int> after{0};
    pool.run(100, [&](std::size_t, std::size_t) { ++after; });
    CHECK(after == 100);
}

TEST_CASE("the worker pool keeps its threads from job to job", "[fast_threads]") {
    // A thread-local count of the jobs a thread took part in: a pool that started threads per job
    // would show 1 on every thread; persistent workers count on.
    WorkerPool pool(2);
    static thread_local std::size_t last_job = 0, jobs_here = 0;
    std::atomic<std::size_t> most_jobs_on_a_worker{0};
    const auto caller = std::this_thread::get_id();
    for (std::size_t job = 1; job <= 5; ++job) {
        pool.run(64, [&](std::size_t, std::size_t) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));  // long enough for both to take some
            if (last_job != job) {
                last_job = job;
                ++jobs_here;
            }
            if (std::this_thread::get_id() != caller) {
                std::size_t seen = most_jobs_on_a_worker;
                while (jobs_here > seen && !most_jobs_on_a_worker.compare_exchange_weak(seen, jobs_here)) {
                }
            }
        });
    }
    CHECK(most_jobs_on_a_worker > 1);
}

TEST_CASE("a job started from inside a job, or while the pool is busy, runs on its caller's thread", "[fast_threads]") {
    WorkerPool pool(2);
    std::atomic<int> inner{0};
    pool.run(4, [&](std::size_t, std::size_t) {
        const auto caller = std::this_thread::get_id();
        pool.run(3, [&](std::size_t, std::size_t worker) {
            CHECK(worker == 0);
            CHECK(std::this_thread::get_id() == caller);
            ++inner;
        });
    });
    CHECK(inner == 12);
}

TEST_CASE("two threads calling the fast path at once get the same numbers as one after the other", "[fast_threads]") {
    ThreadsGuard guard;
    attn::fast::set_threads(2);
    std::mt19937 generator(41);
    const std::size_t D = 32;
    const auto x = random_float<3>(generator, {2, 70, D});
    const auto p = random_fast_parameters(generator, D, true);
    const auto layer = random_fast_layer(generator, D, 48);
    attn::fast::AttentionOptions options;
    options.heads = 4;
    options.need_weights = false;
    options.query_tile = 8;
    options.key_tile = 16;
    attn::fast::EncoderLayerOptions layer_options;
    layer_options.heads = 4;
    const auto expected = attn::fast::multi_head_attention(x, x, x, p, options).output;
    const auto expected_layer = attn::fast::transformer_encoder_layer(x, layer, layer_options);
    attn::fast::Tensor3 got, got_layer;
    std::thread other([&] {
        for (int i = 0; i < 20; ++i) got = attn::fast::multi_head_attention(x, x, x, p, options).output;
    });
    for (int i = 0; i < 20; ++i) got_layer = attn::fast::transformer_encoder_layer(x, layer, layer_options);
    other.join();
    CHECK_TENSOR_CLOSE(expected, got, 1e-6, 1e-6);
    CHECK_TENSOR_CLOSE(expected_layer, got_layer, 1e-6, 1e-6);
}

TEST_CASE("the fast path's numbers do not depend on the thread count", "[fast_threads]") {
    // B·T = 260 rows: at 2 and 3 threads the projections are split by rows (uneven parts), the
    // row passes by chunks, the attention by (batch, head, query tile) blocks.
    ThreadsGuard guard;
    std::mt19937 generator(23);
    const std::size_t B = 2, T = 130, D = 48, h = 3;
    const auto x = random_float<3>(generator, {B, T, D});
    const auto p = random_fast_parameters(generator, D, true);
    const auto layer = random_fast_layer(generator, D, 2 * D);
    attn::fast::AttentionOptions options;
    options.heads = h;
    options.causal = true;
    attn::fast::EncoderLayerOptions layer_options;
    layer_options.heads = h;
    layer_options.activation = attn::Activation::gelu;
    attn::fast::set_threads(1);
    const auto one = attn::fast::multi_head_attention(x, x, x, p, options);
    const auto layer_one = attn::fast::transformer_encoder_layer(x, layer, layer_options);
    for (const int threads : {2, 3}) {
        INFO(threads << " threads");
        attn::fast::set_threads(threads);
        CHECK(attn::fast::threads() == threads);
        const auto got = attn::fast::multi_head_attention(x, x, x, p, options);
        CHECK_TENSOR_CLOSE(one.output, got.output, 1e-5, 1e-5);
        CHECK_TENSOR_CLOSE(*one.weights, *got.weights, 1e-5, 1e-5);
        CHECK_TENSOR_CLOSE(layer_one, attn::fast::transformer_encoder_layer(x, layer, layer_options), 1e-5, 1e-5);
    }
}

TEST_CASE("set_threads refuses fewer than 1 or more than 1024 threads", "[fast_threads][errors]") {
    ThreadsGuard guard;
    CHECK_THROWS_AS(attn::fast::set_threads(0), attn::InputError);
    CHECK_THROWS_WITH(attn::fast::set_threads(1025), Catch::Contains("between 1 and 1024"));
    attn::fast::set_threads(2);
    CHECK(attn::fast::threads() == 2);
}

#ifdef ATTN_HAVE_OPENBLAS
TEST_CASE("OpenBLAS's thread count is set once, when a pool starts, never per call", "[fast_threads]") {
    ThreadsGuard guard;
    attn::fast::set_threads(3);  // a new pool: OpenBLAS on one thread
    CHECK(openblas_get_num_threads() == 1);
    // Someone raises it again: the fast path's calls leave it alone (no set-and-restore per call).
    openblas_set_num_threads(2);
    std::mt19937 generator(43);
    const auto x = random_float<3>(generator, {1, 20, 8});
    attn::fast::AttentionOptions options;
    options.heads = 2;
    const auto p = random_fast_parameters(generator, 8, true);
    const auto with_openblas_threads = attn::fast::multi_head_attention(x, x, x, p, options);
    CHECK(openblas_get_num_threads() == 2);
    attn::fast::set_threads(2);  // the next pool sets it to 1 again
    CHECK(openblas_get_num_threads() == 1);
    CHECK_TENSOR_CLOSE(with_openblas_threads.output, attn::fast::multi_head_attention(x, x, x, p, options).output,
                       1e-6, 1e-6);
}
#endif
