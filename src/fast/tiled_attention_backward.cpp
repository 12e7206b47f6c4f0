// FlashAttention-2's backward of the heads (attention_backward.hpp).
//
// For one (batch b, head j), with Q, K, V, O, dO its column blocks and L its log-sum-exps:
//
//   D_t = Σ_i dO[t][i] · O[t][i]                     (= rowsum(dP ∘ P): lesson 10 shows why)
//   dq, dk, dv of the head = 0
//   for each key tile [k0, k0 + columns):
//     for each query tile [q0, q0 + rows) with a query that may see a key of the tile:
//       1. S  = scale · Q_tile K_tileᵀ                               sgemm (rows, columns)
//       2. P  = e^(S − L_t) for a visible key, 0 for a hidden one
//       3. dV_tile += Pᵀ dO_tile                                     sgemm (columns, d_k)
//       4. dP = dO_tile V_tileᵀ                                      sgemm (rows, columns)
//       5. dS = P ∘ (dP − D_t)                                       (over dP)
//       6. dQ_tile += scale · dS K_tile                              sgemm (rows, d_k)
//       7. dK_tile += scale · dSᵀ Q_tile                             sgemm (columns, d_k)
//
// Why P needs no maximum: L = m + log l is the log of the softmax's denominator, so e^(S − L) is
// the weight itself, at most 1. A query with no visible key has L = +∞ and gets P = 0: its dS is 0
// and it sends nothing into dK or dV, and its dQ stays 0 (its O and so D_t are 0 too).
// Key tiles outside a query tile's sight (causal: every key after its last query) are skipped.
#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "attention_backward.hpp"
#include "kernels.hpp"  // exp_of_nonpositive

namespace attn::fast::detail {

namespace {

// What every task of one call shares.
struct BackwardCall {
    const HeadsShape& shape;
    const BackwardInputs& in;
    const BackwardOutputs& out;
    std::size_t tq, tk;  // tile sizes, at most T and S
    float scale;         // 1/√d_k
};

// One worker's buffers.
struct BackwardScratch {
    float* delta;   // (T) D_t
    float* scores;  // (tq, tk) S, then P
    float* d_p;     // (tq, tk) dP, then dS

    static std::size_t floats(std::size_t T, std::size_t tq, std::size_t tk) { return T + 2 * tq * tk; }
    BackwardScratch(float* base, std::size_t T, std::size_t tq, std::size_t tk)
        : delta(base), scores(base + T), d_p(base + T + tq * tk) {}
};

int as_int(std::size_t n) { return static_cast<int>(n); }

// D_t for every query of the head, and the head's columns of dq, dk, dv set to 0.
void start_head(const BackwardCall& call, std::size_t b, std::size_t head, const BackwardScratch& scratch) {
    const std::size_t T = call.shape.T, S = call.shape.S, D = call.shape.D, dk = call.shape.head_width();
    for (std::size_t t = 0; t < T; ++t) {
        const std::size_t row = (b * T + t) * D + head * dk;
        float sum = 0.0f;
        for (std::size_t i = 0; i < dk; ++i) sum += call.in.d_context[row + i] * call.in.context[row + i];
        scratch.delta[t] = sum;
        std::fill_n(call.out.dq + row, dk, 0.0f);
    }
    for (std::size_t s = 0; s < S; ++s) {
        std::fill_n(call.out.dk + (b * S + s) * D + head * dk, dk, 0.0f);
        std::fill_n(call.out.dv + (b * S + s) * D + head * dk, dk, 0.0f);
    }
}

// Step 2: P = e^(S − L) where query q0 + r sees key k0 + c, else 0; `keep` is the tile's mask or null.
void weights_from_log_sum_exp(const BackwardCall& call, const float* log_sum_exp, std::size_t q0, std::size_t rows,
                              std::size_t k0, std::size_t columns, const float* keep, float* scores) {
    for (std::size_t r = 0; r < rows; ++r) {
        const float L = log_sum_exp[q0 + r];
        // Causal: query t sees the keys up to t, here the tile's columns c < t + 1 − k0.
        const std::size_t t = q0 + r;
        const std::size_t visible = !call.in.causal ? columns : (t + 1 <= k0 ? 0 : std::min(columns, t + 1 - k0));
        float* row = scores + r * call.tk;
        for (std::size_t c = 0; c < columns; ++c) {
            const float p = exp_of_nonpositive_not_nan(row[c] - L);
            const float kept = keep != nullptr ? keep[c] : 1.0f;
            row[c] = c < visible ? p * kept : 0.0f;
        }
    }
}

// Steps 1 to 7 for one (query tile, key tile) pair of head `head` of batch item b.
void tile_backward(const BackwardCall& call, std::size_t b, std::size_t head, std::size_t q0, std::size_t rows,
                   std::size_t k0, std::size_t columns, const BackwardScratch& scratch) {
    const std::size_t T = call.shape.T, S = call.shape.S, D = call.shape.D, h = call.shape.heads;
    const std::size_t dk = call.shape.head_width(), ld = D, tk = call.tk;
    const std::size_t query_rows = (b * T + q0) * D + head * dk, key_rows = (b * S + k0) * D + head * dk;
    const float* q = call.in.q + query_rows;
    const float* d_o = call.in.d_context + query_rows;
    const float* k = call.in.k + key_rows;
    const float* v = call.in.v + key_rows;
    // 1, 2. P from the scores and L.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, as_int(rows), as_int(columns), as_int(dk), call.scale, q,
                as_int(ld), k, as_int(ld), 0.0f, scratch.scores, as_int(tk));
    const float* keep = call.in.keep != nullptr ? call.in.keep + b * S + k0 : nullptr;
    weights_from_log_sum_exp(call, call.in.log_sum_exp + (b * h + head) * T, q0, rows, k0, columns, keep,
                             scratch.scores);
    // The dropout's factors of this tile's weights, row r at drop + r · S; null: none.
    const float* drop = call.in.weights_dropout != nullptr
                            ? call.in.weights_dropout + ((b * h + head) * T + q0) * S + k0
                            : nullptr;
    // 3. dV += Pᵀ dO (with dropout: (P ∘ M)ᵀ dO, P ∘ M made in the dP buffer, free until step 4).
    const float* p_used = scratch.scores;
    if (drop != nullptr) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < columns; ++c) scratch.d_p[r * tk + c] = scratch.scores[r * tk + c] * drop[r * S + c];
        p_used = scratch.d_p;
    }
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, as_int(columns), as_int(dk), as_int(rows), 1.0f,
                p_used, as_int(tk), d_o, as_int(ld), 1.0f, call.out.dv + key_rows, as_int(ld));
    // 4, 5. dS = P ∘ (dO Vᵀ − D) (with dropout: P ∘ (M ∘ dO Vᵀ − D)).
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, as_int(rows), as_int(columns), as_int(dk), 1.0f, d_o,
                as_int(ld), v, as_int(ld), 0.0f, scratch.d_p, as_int(tk));
    if (drop != nullptr) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < columns; ++c) scratch.d_p[r * tk + c] *= drop[r * S + c];
    }
    for (std::size_t r = 0; r < rows; ++r) {
        const float delta = scratch.delta[q0 + r];
        const float* p = scratch.scores + r * tk;
        float* d_s = scratch.d_p + r * tk;
        for (std::size_t c = 0; c < columns; ++c) d_s[c] = p[c] * (d_s[c] - delta);
    }
    // 6, 7. dQ += scale · dS K, dK += scale · dSᵀ Q.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, as_int(rows), as_int(dk), as_int(columns), call.scale,
                scratch.d_p, as_int(tk), k, as_int(ld), 1.0f, call.out.dq + query_rows, as_int(ld));
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, as_int(columns), as_int(dk), as_int(rows), call.scale,
                scratch.d_p, as_int(tk), q, as_int(ld), 1.0f, call.out.dk + key_rows, as_int(ld));
}

// What one (batch, head) task computed.
struct HeadWork {
    double flops = 0;
    std::size_t tiles = 0;
};

HeadWork head_backward(const BackwardCall& call, std::size_t b, std::size_t head, const BackwardScratch& scratch) {
    const std::size_t T = call.shape.T, S = call.shape.S, dk = call.shape.head_width();
    start_head(call, b, head, scratch);
    HeadWork work;
    for (std::size_t k0 = 0; k0 < S; k0 += call.tk) {
        const std::size_t columns = std::min(call.tk, S - k0);
        for (std::size_t q0 = 0; q0 < T; q0 += call.tq) {
            const std::size_t rows = std::min(call.tq, T - q0);
            if (call.in.causal && q0 + rows <= k0) continue;  // every key of the tile is after every query
            tile_backward(call, b, head, q0, rows, k0, columns, scratch);
            work.flops += 5 * 2.0 * double(rows) * double(columns) * double(dk);
            ++work.tiles;
        }
    }
    return work;
}

}  // namespace

void tiled_attention_backward(const HeadsShape& shape, const BackwardInputs& in, const BackwardOutputs& out,
                              std::size_t query_tile, std::size_t key_tile, std::vector<float>& scratch,
                              WorkerPool& pool, AttentionWork& work) {
    const std::size_t B = shape.B, T = shape.T, S = shape.S, h = shape.heads;
    const std::size_t tq = std::min(query_tile, T), tk = std::min(key_tile, S);
    const BackwardCall call{shape, in, out, tq, tk, 1.0f / std::sqrt(static_cast<float>(shape.head_width()))};
    const std::size_t per_worker = BackwardScratch::floats(T, tq, tk);
    scratch.resize(pool.size() * per_worker);
    std::vector<HeadWork> task_work(B * h);
    pool.run(B * h, [&](std::size_t task, std::size_t worker) {
        const BackwardScratch buffers(scratch.data() + worker * per_worker, T, tq, tk);
        task_work[task] = head_backward(call, task / h, task % h, buffers);
    });
    const std::size_t pairs = ((T + tq - 1) / tq) * ((S + tk - 1) / tk);
    for (const HeadWork& done : task_work) {
        work.attention_flops += done.flops;
        work.tiles_computed += done.tiles;
        work.tiles_skipped += pairs - done.tiles;
    }
}

}  // namespace attn::fast::detail
