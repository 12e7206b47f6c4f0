// The float32 fast path of attn/fast_attention.hpp.
//
// Layout of the work, for seed 000's shape (B 8, T = S 300, D 768, h 8, d_k 96):
//   1. Q, K, V = x W_qᵀ + b_q, …: three (B·T, D) × (D, D) sgemms, the bias as sgemm's C input.
//   2. For each (batch, head) block:
//        scores = Q_h K_hᵀ · 1/√d_k   (T, d_k) × (d_k, S), read in place with leading dimension D,
//        softmax of each row with the masks inside it, written where the weights belong,
//        context_h = weights (T, S) × V_h (S, d_k), written in place into the (B·T, D) context.
//   3. output = context W_oᵀ + b_o: one sgemm.
// Nothing is transposed or copied: per-head blocks are column slices of row-major matrices,
// which sgemm reads through its leading-dimension argument.
//
// Threads. OpenBLAS is kept single-threaded for the whole call and the work is split over our own
// `fast_threads()` workers instead: the projections by blocks of rows (one sgemm per worker), the
// attention by (batch, head) blocks, the row passes (LayerNorm, activations) by chunks of rows.
// Measured on 2 cores (docs/performance.md): letting OpenBLAS thread the projections and our
// workers run the attention was 15–25 % slower, because OpenBLAS's idle threads keep spinning
// for a while after each sgemm and take CPU from the workers (CPU time 215 ms instead of 180 ms
// per call); OpenBLAS threading everything was slower still (its small per-head sgemms and the
// single-threaded softmax do not scale).
#include "attn/fast_attention.hpp"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <thread>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

#ifdef ATTN_HAVE_OPENBLAS
// OpenBLAS's thread control; Debian's libopenblas0 provides both (CMake links it explicitly).
extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);
#endif

// The element-wise kernels below are written so that GCC vectorises them. CMakeLists.txt compiles
// this file with -fopenmp-simd (`#pragma omp simd` without OpenMP's runtime) and
// -fno-trapping-math (without it GCC keeps the selects of exp_approx as branches, and the loops
// that call it stay scalar: 5 ns instead of 1 ns per score). On x86-64 the kernels are also
// compiled for x86-64-v3 (AVX2, FMA) and the variant is picked at load time, so the binary stays
// portable (no -march=native) and still uses the wide registers where they exist. ("arch=haswell"
// would not do: it dispatches on the CPU model, and an AMD Zen gets the baseline.)
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define ATTN_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ATTN_VECTOR_CLONES
#endif

namespace attn {

namespace {

// ---------------------------------------------------------------------------------------------
// Threads

std::atomic<int> configured_threads{0};  // 0: not set, ask OpenBLAS

// OpenBLAS runs single-threaded while a fast-path call is in progress (see the file comment), and
// gets its thread count back afterwards.
class SingleThreadedBlas {
public:
    SingleThreadedBlas() {
#ifdef ATTN_HAVE_OPENBLAS
        previous_ = openblas_get_num_threads();
        if (previous_ != 1) openblas_set_num_threads(1);
#endif
    }
    ~SingleThreadedBlas() {
#ifdef ATTN_HAVE_OPENBLAS
        if (previous_ > 1) openblas_set_num_threads(previous_);
#endif
    }
    SingleThreadedBlas(const SingleThreadedBlas&) = delete;
    SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

private:
    int previous_ = 0;
};

// Runs task(index, worker) for index in [0, count) on up to `threads` threads (the caller is
// worker 0). Tasks are handed out one at a time, so uneven tasks still balance.
template <class Task>
void run_parallel(std::size_t count, int threads, const Task& task) {
    const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), count);
    if (workers <= 1) {
        for (std::size_t i = 0; i < count; ++i) task(i, 0);
        return;
    }
    std::atomic<std::size_t> next{0};
    auto work = [&](std::size_t worker) {
        for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) task(i, worker);
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    try {
        for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
    } catch (...) {
        // Could not start a thread: the ones started finish the work with us.
    }
    work(0);
    for (auto& thread : pool) thread.join();
}

// ---------------------------------------------------------------------------------------------
// Element-wise kernels

// exp(x) for float, branch-free so that the loops calling it vectorise (Cephes' expf: the same
// polynomial and range reduction, max relative error about 2 ulp). Below -87.34 the result is 0;
// NaN stays NaN.
inline float exp_approx(float x) {
    const float lowest = -87.3365447504f;  // exp(lowest) is the smallest normal float
    const float highest = 88.0f;
    float c = x < lowest ? lowest : x;
    c = c > highest ? highest : c;
    // 1. x = n·ln 2 + r with n an integer and |r| ≤ ln 2 / 2.
    float n = c * 1.44269504088896341f;
    n = (n + 12582912.0f) - 12582912.0f;  // rounds to the nearest integer (1.5·2²³ trick)
    float r = c - n * 0.693359375f;       // ln 2 in two parts, so that n·ln 2 is exact enough
    r = r - n * -2.12194440e-4f;
    // 2. exp(r) by its minimax polynomial.
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float y = p * r * r + r + 1.0f;
    // 3. 2ⁿ built in the exponent bits.
    const std::uint32_t bits = (static_cast<std::uint32_t>(static_cast<std::int32_t>(n)) + 127u) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return x < lowest ? 0.0f : y * scale;
}

// erf for float, branch-free (Abramowitz & Stegun 7.1.26, absolute error below 2e-7).
inline float erf_approx(float x) {
    const float a = std::fabs(x);
    const float t = 1.0f / (1.0f + 0.3275911f * a);
    const float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    const float y = 1.0f - poly * exp_approx(-a * a);
    return x < 0.0f ? -y : y;
}

// Softmax of one row of scores in place. Columns s < limit whose keep[s] is 1 take part; the
// others (padding: keep[s] = 0; causal: s ≥ limit) get weight 0. keep == nullptr: all keep.
// Pass 1 finds the maximum of the kept scores, pass 2 writes exp(score − max) and sums it
// (the max makes every exponent ≤ 0: no overflow), pass 3 normalises. The row is 4·S bytes,
// in L1 for all three.
ATTN_VECTOR_CLONES
void softmax_row(float* x, std::size_t limit, std::size_t columns, const float* keep) {
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    float maximum = minus_infinity;
    int nans = 0;
    if (keep != nullptr) {
#pragma omp simd reduction(max : maximum) reduction(+ : nans)
        for (std::size_t s = 0; s < limit; ++s) {
            const float v = keep[s] != 0.0f ? x[s] : minus_infinity;
            nans += (v != v);
            maximum = v > maximum ? v : maximum;
        }
    } else {
#pragma omp simd reduction(max : maximum) reduction(+ : nans)
        for (std::size_t s = 0; s < limit; ++s) {
            nans += (x[s] != x[s]);
            maximum = x[s] > maximum ? x[s] : maximum;
        }
    }
    if (nans > 0 || maximum == minus_infinity) {
        // NaN in a kept score: the row is NaN, as PyTorch's. No key to attend to: zeros, the
        // library's policy for a fully masked row (attn/softmax.hpp).
        const float fill = nans > 0 ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
        for (std::size_t s = 0; s < columns; ++s) x[s] = fill;
        return;
    }
    float sum = 0.0f;
    if (keep != nullptr) {
#pragma omp simd reduction(+ : sum)
        for (std::size_t s = 0; s < limit; ++s) {
            // A masked score may be far above the maximum; exp_approx saturates instead of
            // overflowing to ∞, so the product with keep = 0 is 0, never NaN.
            const float e = exp_approx(x[s] - maximum) * keep[s];
            x[s] = e;
            sum += e;
        }
    } else {
#pragma omp simd reduction(+ : sum)
        for (std::size_t s = 0; s < limit; ++s) {
            const float e = exp_approx(x[s] - maximum);
            x[s] = e;
            sum += e;
        }
    }
    const float inverse = 1.0f / sum;  // sum ≥ 1: the maximum contributes exp(0)
#pragma omp simd
    for (std::size_t s = 0; s < limit; ++s) x[s] *= inverse;
    for (std::size_t s = limit; s < columns; ++s) x[s] = 0.0f;
}

// How many of x[0, count) are NaN or ±∞, branch-free so that it vectorises: |x| ≤ FLT_MAX is false
// for both (-fno-trapping-math leaves NaN comparisons alone; only -ffinite-math-only would not).
ATTN_VECTOR_CLONES
int count_non_finite(const float* x, std::size_t count) {
    const float largest = std::numeric_limits<float>::max();
    int bad = 0;
#pragma omp simd reduction(+ : bad)
    for (std::size_t i = 0; i < count; ++i) bad += !(std::fabs(x[i]) <= largest);
    return bad;
}

// out = LayerNorm(a + b + bias) · gamma + beta over one row of D values; b and bias may be null.
// Biased variance, eps inside the square root (nn.LayerNorm). Two-pass variance: the row is in
// L1, and subtracting the mean first avoids the cancellation of E[x²] − E[x]².
ATTN_VECTOR_CLONES
void residual_layer_norm_row(const float* a, const float* b, const float* bias, const float* gamma,
                             const float* beta, float eps, float* out, std::size_t D) {
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (std::size_t j = 0; j < D; ++j) {
        const float v = a[j] + (b != nullptr ? b[j] : 0.0f) + (bias != nullptr ? bias[j] : 0.0f);
        out[j] = v;
        sum += v;
    }
    const float mean = sum / static_cast<float>(D);
    float squares = 0.0f;
#pragma omp simd reduction(+ : squares)
    for (std::size_t j = 0; j < D; ++j) {
        const float centred = out[j] - mean;
        squares += centred * centred;
    }
    const float inverse_std = 1.0f / std::sqrt(squares / static_cast<float>(D) + eps);
#pragma omp simd
    for (std::size_t j = 0; j < D; ++j) out[j] = (out[j] - mean) * inverse_std * gamma[j] + beta[j];
}

// out = a + b + bias over one row (the pre-norm residual); bias may be null.
ATTN_VECTOR_CLONES
void residual_row(const float* a, const float* b, const float* bias, float* out, std::size_t D) {
#pragma omp simd
    for (std::size_t j = 0; j < D; ++j) out[j] = a[j] + b[j] + (bias != nullptr ? bias[j] : 0.0f);
}

// x = activation(x + bias) over one row of F values; bias may be null.
ATTN_VECTOR_CLONES
void bias_activation_row(float* x, const float* bias, std::size_t F, Activation activation) {
    if (activation == Activation::relu) {
#pragma omp simd
        for (std::size_t j = 0; j < F; ++j) {
            const float v = x[j] + (bias != nullptr ? bias[j] : 0.0f);
            x[j] = v > 0.0f ? v : 0.0f;
        }
    } else {
#pragma omp simd
        for (std::size_t j = 0; j < F; ++j) {
            const float v = x[j] + (bias != nullptr ? bias[j] : 0.0f);
            x[j] = 0.5f * v * (1.0f + erf_approx(v * 0.70710678118654752f));  // exact GELU: x·Φ(x)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Matrix products

// y (rows, out) = x (rows, in) · Wᵀ with W (out, in) row-major: nn.Linear without its bias.
void sgemm_rows(const float* x, std::size_t rows, std::size_t in, const FloatMatrix& weight, float beta, float* y) {
    const std::size_t out = weight.shape(0);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(out),
                static_cast<int>(in), 1.0f, x, static_cast<int>(in), weight.data(), static_cast<int>(in), beta, y,
                static_cast<int>(out));
}

// The same, split by blocks of rows over the workers: each worker runs a single-threaded sgemm on
// its rows (starting on a multiple of 16, the row blocking of OpenBLAS's kernels).
void project_beta(const float* x, std::size_t rows, std::size_t in, const FloatMatrix& weight, float beta, float* y,
                  int threads) {
    const std::size_t out = weight.shape(0);
    const std::size_t parts = std::min<std::size_t>(static_cast<std::size_t>(threads), rows / 64);
    if (parts <= 1) {
        sgemm_rows(x, rows, in, weight, beta, y);
        return;
    }
    run_parallel(parts, threads, [&](std::size_t part, std::size_t) {
        const std::size_t begin = (rows * part / parts) / 16 * 16;
        const std::size_t end = part + 1 == parts ? rows : (rows * (part + 1) / parts) / 16 * 16;
        sgemm_rows(x + begin * in, end - begin, in, weight, beta, y + begin * out);
    });
}

void project(const float* x, std::size_t rows, std::size_t in, const FloatMatrix& weight, float* y, int threads) {
    project_beta(x, rows, in, weight, 0.0f, y, threads);
}

// y (rows, out) = x · Wᵀ + bias: y is filled with the bias first and sgemm adds to it (beta 1),
// which also spares OpenBLAS's pass that zeroes y when beta is 0.
void project_with_bias(const float* x, std::size_t rows, std::size_t in, const FloatMatrix& weight,
                       const FloatVector& bias, float* y, int threads) {
    const std::size_t out = weight.shape(0);
    if (bias.size() == 0) {
        project(x, rows, in, weight, y, threads);
        return;
    }
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(y + r * out, bias.data(), out * sizeof(float));
    project_beta(x, rows, in, weight, 1.0f, y, threads);
}

// ---------------------------------------------------------------------------------------------
// Shape checks

std::string shape_of(const FloatVector& t) { return shape_string(t.shape()); }
std::string shape_of(const FloatMatrix& t) { return shape_string(t.shape()); }
std::string shape_of(const FloatTensor3& t) { return shape_string(t.shape()); }

void require_nonempty(const char* function, const char* name, const FloatTensor3& t) {
    for (std::size_t size : t.shape()) {
        if (size == 0) {
            throw ShapeError(std::string(function) + ": " + name + " has shape " + shape_of(t) +
                             "; every dimension must be at least 1");
        }
    }
}

void require_matrix(const char* function, const char* name, const FloatMatrix& t, std::size_t rows,
                    std::size_t columns, const std::string& legend) {
    if (t.shape(0) != rows || t.shape(1) != columns) {
        throw ShapeError(std::string(function) + ": " + name + " has shape " + shape_of(t) + " but must be " + legend +
                         " = " + shape_string(std::vector<std::size_t>{rows, columns}));
    }
}

void require_bias(const char* function, const char* name, const FloatVector& t, std::size_t size,
                  const std::string& legend) {
    if (t.size() != 0 && t.shape(0) != size) {
        throw ShapeError(std::string(function) + ": " + name + " has shape " + shape_of(t) + " but must be " + legend +
                         " = (" + std::to_string(size) + ") or empty (no bias)");
    }
}

void require_fits_int(const char* function, std::size_t value, const std::string& what) {
    if (value > static_cast<std::size_t>(INT_MAX)) {
        throw ShapeError(std::string(function) + ": " + what + " = " + std::to_string(value) +
                         " is larger than BLAS's int indices allow");
    }
}

// The attention parameters against D; w_o may be empty unless required.
void check_attention_parameters(const char* function, const FastAttentionParameters& p, std::size_t D,
                                std::size_t heads, bool require_output_projection) {
    if (heads == 0 || D % heads != 0) {
        throw ShapeError(std::string(function) + ": heads = " + std::to_string(heads) + " must divide d_model D = " +
                         std::to_string(D) + " (each head has D / h columns)");
    }
    require_matrix(function, "w_q", p.w_q, D, D, "(D, D)");
    require_matrix(function, "w_k", p.w_k, D, D, "(D, D)");
    require_matrix(function, "w_v", p.w_v, D, D, "(D, D)");
    require_bias(function, "b_q", p.b_q, D, "(D)");
    require_bias(function, "b_k", p.b_k, D, "(D)");
    require_bias(function, "b_v", p.b_v, D, "(D)");
    if (p.w_o.size() != 0 || require_output_projection) require_matrix(function, "w_o", p.w_o, D, D, "(D, D)");
    require_bias(function, "b_o", p.b_o, D, "(D)");
    if (p.w_o.size() == 0 && p.b_o.size() != 0) {
        throw ShapeError(std::string(function) + ": b_o has shape " + shape_of(p.b_o) +
                         " but w_o is empty; an output bias needs an output projection");
    }
}

void check_mask(const char* function, const char* mask_name, const FloatMatrix& mask, std::size_t B, std::size_t S,
                const std::string& legend) {
    if (mask.size() != 0 && (mask.shape(0) != B || mask.shape(1) != S)) {
        throw ShapeError(std::string(function) + ": " + mask_name + " has shape " + shape_of(mask) + " but must be " +
                         legend + " = " + shape_string(std::vector<std::size_t>{B, S}) + " (or empty: no mask)");
    }
}

// ---------------------------------------------------------------------------------------------
// The attention itself

struct AttentionShape {
    std::size_t B, T, S, D, heads;
};

// The first raw score that is not a finite number, found by any worker (workers cannot throw:
// the error is raised once they have all finished).
struct FirstNonFiniteScore {
    std::mutex lock;
    bool found = false;
    std::size_t task = 0, index = 0;  // (batch · h + head), t · S + s
    float value = 0.0f;

    void record(std::size_t task_, std::size_t index_, float value_) {
        std::lock_guard<std::mutex> guard(lock);
        if (found && task <= task_) return;  // keep the first block's
        found = true;
        task = task_;
        index = index_;
        value = value_;
    }
};

[[noreturn]] void throw_non_finite_score(const char* function, const FirstNonFiniteScore& bad, const AttentionShape& shape) {
    const std::size_t b = bad.task / shape.heads, head = bad.task % shape.heads;
    const std::size_t t = bad.index / shape.S, s = bad.index % shape.S;
    const std::string at = std::to_string(b) + ", " + std::to_string(head) + ", ";
    detail::throw_non_finite(function, "scores", {shape.B, shape.heads, shape.T, shape.S},
                             bad.task * shape.T * shape.S + bad.index, bad.value,
                             "Q_h[" + at + std::to_string(t) + "] · K_h[" + at + std::to_string(s) +
                                 "] / √d_k in float32; an input holds NaN or ±inf, or the inputs are too large for float32 "
                                 "arithmetic and overflowed (only a mask may put -inf in the scores)");
}

// The output (or another result) checked once the work is done.
void require_finite_result(const char* function, const char* name, const float* data, const std::vector<std::size_t>& shape) {
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    if (count_non_finite(data, count) == 0) return;
    const std::size_t at = detail::first_non_finite(data, count);
    detail::throw_non_finite(function, name, shape, at, data[at],
                             "an input holds NaN or ±inf, or the inputs are too large for float32 arithmetic and overflowed");
}

// Steps 1 and 2 of the file comment: projections, then per (batch, head) scores, softmax and
// context. `weights` is (B, h, T, S) or null (a per-worker scratch block is used instead);
// `context` is (B·T, D).
void attend(const char* function, const float* query, const float* key, const float* value, const AttentionShape& shape,
            const FastAttentionParameters& p, const FloatMatrix& mask, bool causal, float* weights, float* context,
            FastAttentionWorkspace& ws, int threads) {
    const std::size_t B = shape.B, T = shape.T, S = shape.S, D = shape.D, h = shape.heads, dk = D / h;

    // Pass 1: the three projections, each one large sgemm split by rows over the workers. Each
    // output starts as its bias and the sgemm adds to it (beta = 1): OpenBLAS would otherwise
    // spend a pass zeroing it (beta = 0).
    ws.q.resize(B * T * D);
    ws.k.resize(B * S * D);
    ws.v.resize(B * S * D);
    project_with_bias(query, B * T, D, p.w_q, p.b_q, ws.q.data(), threads);
    project_with_bias(key, B * S, D, p.w_k, p.b_k, ws.k.data(), threads);
    project_with_bias(value, B * S, D, p.w_v, p.b_v, ws.v.data(), threads);

    // The padding mask as 1/0 floats: the softmax multiplies by it instead of branching.
    const float* keep = nullptr;
    if (mask.size() != 0) {
        ws.keep.resize(B * S);
        const float* m = mask.data();
        for (std::size_t i = 0; i < B * S; ++i) ws.keep[i] = m[i] != 0.0f ? 1.0f : 0.0f;
        keep = ws.keep.data();
    }

    const std::size_t tasks = B * h;
    const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(threads), tasks);
    if (weights == nullptr) ws.scores.resize(workers * T * S);
    const float alpha = 1.0f / std::sqrt(static_cast<float>(dk));

    // Pass 2: one task per (batch, head), handed out to the workers.
    FirstNonFiniteScore bad;
    run_parallel(tasks, threads, [&](std::size_t task, std::size_t worker) {
        const std::size_t b = task / h, head = task % h;
        const float* q = ws.q.data() + b * T * D + head * dk;  // (T, d_k), leading dimension D
        const float* k = ws.k.data() + b * S * D + head * dk;  // (S, d_k)
        const float* v = ws.v.data() + b * S * D + head * dk;  // (S, d_k)
        float* block = weights != nullptr ? weights + task * T * S : ws.scores.data() + worker * T * S;
        // 2a. scores (T, S) = Q_h K_hᵀ / √d_k, the scale in alpha.
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(T), static_cast<int>(S),
                    static_cast<int>(dk), alpha, q, static_cast<int>(D), k, static_cast<int>(D), 0.0f, block,
                    static_cast<int>(S));
        // Every raw score must be a number: −∞ may only come from the masks (the library's policy).
        if (count_non_finite(block, T * S) != 0) {
            const std::size_t at = detail::first_non_finite(block, T * S);
            bad.record(task, at, block[at]);
            return;
        }
        // 2b. softmax of each row, masks inside.
        const float* keep_b = keep != nullptr ? keep + b * S : nullptr;
        for (std::size_t t = 0; t < T; ++t) {
            softmax_row(block + t * S, causal ? std::min(t + 1, S) : S, S, keep_b);
        }
        // 2c. context_h (T, d_k) = weights (T, S) · V_h (S, d_k), into its columns of the context.
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(T), static_cast<int>(dk),
                    static_cast<int>(S), 1.0f, block, static_cast<int>(S), v, static_cast<int>(D), 0.0f,
                    context + b * T * D + head * dk, static_cast<int>(D));
    });
    if (bad.found) throw_non_finite_score(function, bad, shape);
}

// Row passes (LayerNorm, residuals, activations) over `rows` rows, split in chunks over the threads.
template <class RowTask>
void for_rows(std::size_t rows, int threads, const RowTask& row_task) {
    const std::size_t chunk = 64;
    const std::size_t chunks = (rows + chunk - 1) / chunk;
    run_parallel(chunks, threads, [&](std::size_t c, std::size_t) {
        const std::size_t end = std::min(rows, (c + 1) * chunk);
        for (std::size_t r = c * chunk; r < end; ++r) row_task(r);
    });
}

const float* data_or_null(const FloatVector& v) { return v.size() != 0 ? v.data() : nullptr; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public functions

void set_fast_threads(int threads) {
    if (threads < 1) throw InputError("set_fast_threads: threads = " + std::to_string(threads) + " must be at least 1");
    configured_threads = threads;
#ifdef ATTN_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
#endif
}

int fast_threads() {
    const int configured = configured_threads;
    if (configured > 0) return configured;
#ifdef ATTN_HAVE_OPENBLAS
    return std::max(1, openblas_get_num_threads());
#else
    return 1;
#endif
}

double fast_attention_flops(std::size_t B, std::size_t T, std::size_t S, std::size_t D, bool output_projection) {
    const double b = double(B), t = double(T), s = double(S), d = double(D);
    const double projections = 2 * b * t * d * d + 2 * 2 * b * s * d * d;
    const double scores = 2 * b * t * s * d;   // over all heads: h · 2·T·S·d_k
    const double context = 2 * b * t * s * d;
    const double output = output_projection ? 2 * b * t * d * d : 0.0;
    return projections + scores + context + output;
}

double fast_encoder_layer_flops(std::size_t B, std::size_t T, std::size_t D, std::size_t F) {
    return fast_attention_flops(B, T, T, D, true) + 2 * 2 * double(B) * double(T) * double(D) * double(F);
}

void fast_multi_head_attention_into(const FloatTensor3& query, const FloatTensor3& key, const FloatTensor3& value,
                                    const FastAttentionParameters& parameters, const FastAttentionOptions& options,
                                    FastAttentionResult& result, FastAttentionWorkspace& workspace) {
    // Shapes: query (B, T, D) · key (B, S, D) · value (B, S, D) · w_* (D, D) · b_* (D) ·
    //         key_padding_mask (B, S) → output (B, T, D) · weights (B, h, T, S)
    const char* function = "fast_multi_head_attention";
    require_nonempty(function, "query", query);
    require_nonempty(function, "key", key);
    require_nonempty(function, "value", value);
    const std::size_t B = query.shape(0), T = query.shape(1), D = query.shape(2), S = key.shape(1);
    if (key.shape(0) != B || key.shape(2) != D) {
        throw ShapeError(std::string(function) + ": key has shape " + shape_of(key) + " but query has shape " +
                         shape_of(query) + "; key must be (B, S, D) with B = " + std::to_string(B) +
                         " and D = " + std::to_string(D));
    }
    if (value.shape() != key.shape()) {
        throw ShapeError(std::string(function) + ": value has shape " + shape_of(value) + " but key has shape " +
                         shape_of(key) + "; both must be (B, S, D)");
    }
    check_attention_parameters(function, parameters, D, options.heads, false);
    check_mask(function, "key_padding_mask", options.key_padding_mask, B, S, "(B, S)");
    require_fits_int(function, B * std::max(T, S), "B·max(T, S)");
    require_fits_int(function, T * S, "T·S");

    result.output.resize({B, T, D});
    if (options.need_weights) {
        result.weights.resize({B, options.heads, T, S});
    } else {
        result.weights.resize({0, 0, 0, 0});
    }
    const int threads = fast_threads();  // before the guard, which sets OpenBLAS's count to 1
    const SingleThreadedBlas single;
    const bool projected = parameters.w_o.size() != 0;
    // Without an output projection the concatenated heads are the output: write them there.
    if (projected) workspace.context.resize(B * T * D);
    float* context = projected ? workspace.context.data() : result.output.data();
    attend(function, query.data(), key.data(), value.data(), AttentionShape{B, T, S, D, options.heads}, parameters,
           options.key_padding_mask, options.causal, options.need_weights ? result.weights.data() : nullptr, context,
           workspace, threads);
    // Pass 3: the output projection.
    if (projected) project_with_bias(context, B * T, D, parameters.w_o, parameters.b_o, result.output.data(), threads);
    require_finite_result(function, "output", result.output.data(), {B, T, D});
}

FastAttentionResult fast_multi_head_attention(const FloatTensor3& query, const FloatTensor3& key,
                                              const FloatTensor3& value, const FastAttentionParameters& parameters,
                                              const FastAttentionOptions& options) {
    FastAttentionResult result;
    FastAttentionWorkspace workspace;
    fast_multi_head_attention_into(query, key, value, parameters, options, result, workspace);
    return result;
}

void fast_transformer_encoder_layer_into(const FloatTensor3& x, const FastEncoderLayerParameters& parameters,
                                         const FastEncoderLayerOptions& options, FloatTensor3& output,
                                         FastEncoderLayerWorkspace& ws) {
    // Shapes: x (B, T, D) · attention as in fast_multi_head_attention (w_o required) ·
    //         norm*_weight, norm*_bias (D) · linear1_weight (F, D) · linear1_bias (F) ·
    //         linear2_weight (D, F) · linear2_bias (D) · key_padding_mask (B, T) → (B, T, D)
    const char* function = "fast_transformer_encoder_layer";
    require_nonempty(function, "x", x);
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2), N = B * T;
    check_attention_parameters(function, parameters.attention, D, options.heads, true);
    const std::size_t F = parameters.linear1_weight.shape(0);
    if (F == 0) {
        throw ShapeError(std::string(function) + ": linear1_weight has shape " + shape_of(parameters.linear1_weight) +
                         "; it must be (F, D) with F at least 1");
    }
    require_matrix(function, "linear1_weight", parameters.linear1_weight, F, D, "(F, D)");
    require_bias(function, "linear1_bias", parameters.linear1_bias, F, "(F)");
    require_matrix(function, "linear2_weight", parameters.linear2_weight, D, F, "(D, F) with F from linear1_weight");
    require_bias(function, "linear2_bias", parameters.linear2_bias, D, "(D)");
    for (const auto& [name, vector] : {std::pair<const char*, const FloatVector*>{"norm1_weight", &parameters.norm1_weight},
                                       {"norm1_bias", &parameters.norm1_bias},
                                       {"norm2_weight", &parameters.norm2_weight},
                                       {"norm2_bias", &parameters.norm2_bias}}) {
        if (vector->shape(0) != D) {
            throw ShapeError(std::string(function) + ": " + name + " has shape " + shape_of(*vector) +
                             " but must be (D) = (" + std::to_string(D) + ")");
        }
    }
    if (!(options.layer_norm_eps > 0.0f)) {
        throw InputError(std::string(function) + ": layer_norm_eps = " + std::to_string(options.layer_norm_eps) +
                         " must be positive");
    }
    check_mask(function, "key_padding_mask", options.key_padding_mask, B, T, "(B, T)");
    require_fits_int(function, N, "B·T");
    require_fits_int(function, T * T, "T·T");
    require_fits_int(function, F, "F");

    const int threads = fast_threads();  // before the guard, which sets OpenBLAS's count to 1
    const SingleThreadedBlas single;
    output.resize({B, T, D});
    ws.projected.resize(N * D);
    ws.hidden.resize(N * D);
    ws.inner.resize(N * F);
    ws.attention.context.resize(N * D);
    const FastAttentionParameters& a = parameters.attention;
    const float eps = options.layer_norm_eps;
    const float* g1 = parameters.norm1_weight.data();
    const float* n1 = parameters.norm1_bias.data();
    const float* g2 = parameters.norm2_weight.data();
    const float* n2 = parameters.norm2_bias.data();
    const float* b_o = data_or_null(a.b_o);
    const float* b_1 = data_or_null(parameters.linear1_bias);
    const float* b_2 = data_or_null(parameters.linear2_bias);
    const AttentionShape shape{B, T, T, D, options.heads};
    float* context = ws.attention.context.data();
    float* projected = ws.projected.data();
    float* hidden = ws.hidden.data();
    float* inner = ws.inner.data();
    float* out = output.data();

    // The self-attention block: context, then its output projection (bias added in the row pass).
    const float* attention_input = x.data();
    if (options.norm_first) {
        ws.normalized.resize(N * D);
        float* normalized = ws.normalized.data();
        for_rows(N, threads, [&](std::size_t r) {
            residual_layer_norm_row(x.data() + r * D, nullptr, nullptr, g1, n1, eps, normalized + r * D, D);
        });
        attention_input = normalized;
    }
    attend(function, attention_input, attention_input, attention_input, shape, a, options.key_padding_mask, options.causal,
           nullptr, context, ws.attention, threads);
    project(context, N, D, a.w_o, projected, threads);
    if (options.norm_first) {
        // hidden = x + sa(norm1(x))
        for_rows(N, threads, [&](std::size_t r) { residual_row(x.data() + r * D, projected + r * D, b_o, hidden + r * D, D); });
    } else {
        // hidden = norm1(x + sa(x))
        for_rows(N, threads, [&](std::size_t r) {
            residual_layer_norm_row(x.data() + r * D, projected + r * D, b_o, g1, n1, eps, hidden + r * D, D);
        });
    }

    // The feed-forward block: linear1, bias and activation in one row pass, linear2.
    const float* ff_input = hidden;
    if (options.norm_first) {
        float* normalized = ws.normalized.data();
        for_rows(N, threads, [&](std::size_t r) {
            residual_layer_norm_row(hidden + r * D, nullptr, nullptr, g2, n2, eps, normalized + r * D, D);
        });
        ff_input = normalized;
    }
    project(ff_input, N, D, parameters.linear1_weight, inner, threads);
    for_rows(N, threads, [&](std::size_t r) { bias_activation_row(inner + r * F, b_1, F, options.activation); });
    project(inner, N, F, parameters.linear2_weight, projected, threads);
    if (options.norm_first) {
        // out = hidden + ff(norm2(hidden))
        for_rows(N, threads, [&](std::size_t r) { residual_row(hidden + r * D, projected + r * D, b_2, out + r * D, D); });
    } else {
        // out = norm2(hidden + ff(hidden))
        for_rows(N, threads, [&](std::size_t r) {
            residual_layer_norm_row(hidden + r * D, projected + r * D, b_2, g2, n2, eps, out + r * D, D);
        });
    }
    require_finite_result(function, "output", out, {B, T, D});
}

FloatTensor3 fast_transformer_encoder_layer(const FloatTensor3& x, const FastEncoderLayerParameters& parameters,
                                            const FastEncoderLayerOptions& options) {
    FloatTensor3 output;
    FastEncoderLayerWorkspace workspace;
    fast_transformer_encoder_layer_into(x, parameters, options, output, workspace);
    return output;
}

}  // namespace attn
