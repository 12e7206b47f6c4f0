// src/fast/attention_heads.hpp — private to the fast path: the attention of every (batch, head)
// block once Q, K and V are projected, in its two forms.
//
//   attention_with_weights: lesson 5's formula as a kernel. Per (batch, head) task: scores (T, S) =
//       Q_h K_hᵀ · 1/√d_k (one sgemm, written where the weights belong), a fused softmax with the
//       masks, context_h = weights V_h (one sgemm). Memory: the (B, h, T, S) weights it returns.
//   tiled_attention: lesson 7's online softmax as a kernel. Per (batch, head, query tile) task,
//       the keys in tiles, and per block of 6 queries: their scores by a micro-kernel
//       (tile_products.hpp), the running maximum m and sum l updated and the accumulator rescaled
//       by e^(m_old − m_new), accumulator += P V_tile by a micro-kernel, one division by l at the
//       end. Memory per thread: one block of scores and the current head's keys and values.
//
// Q_h, K_h, V_h are column blocks of the row-major projections, read in place with a leading
// dimension of D. The context is written into the same columns of a (B·T, D) matrix, which may be
// q itself: a task reads its block of Q before it writes its block of context, and no other task
// touches that block.
//
// Shapes: q (B·T, D) · k, v (B·S, D) · keep (B, S) 1/0 or null · weights (B, h, T, S) ·
//         context (B·T, D), head j in columns j·d_k … (j+1)·d_k − 1
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attn/fast/multi_head_attention.hpp"
#include "non_finite.hpp"
#include "thread_pool.hpp"

namespace attn::fast::detail {

struct HeadsShape {
    std::size_t B, T, S, D, heads;
    std::size_t head_width() const { return D / heads; }
};

/// What both forms read.
struct ProjectedInputs {
    const float* q;     // (B·T, D)
    const float* k;     // (B·S, D)
    const float* v;     // (B·S, D)
    const float* keep;  // (B, S): 1 = attend, 0 = padding; null: every key
    bool causal;        // key s hidden from query t when s > t (top-left)
    // Training only (tiled form): the attention weights' dropout, (B, h, T, S), each weight's
    // factor 0 (dropped) or 1/(1 − p) (kept); null: none. The softmax's sum l and L are the
    // undropped ones; only P V sees the factors.
    const float* weights_dropout = nullptr;
};

/// Fills weights (B, h, T, S) and context. A non-finite score or context value is offered to `bad`
/// (that block is then left unfinished); `work` gets the FLOPs.
void attention_with_weights(const HeadsShape& shape, const ProjectedInputs& in, float* weights, float* context,
                            WorkerPool& pool, FirstNonFinite& bad, AttentionWork& work);

/// Fills context tile by tile, and log_sum_exp (B, h, T) unless it is null: L = m + log l of each
/// query, +∞ for a query with no visible key (what the backward recomputes P from). `scratch` is
/// resized to one tile's buffers per worker. A non-finite score or context value is offered to
/// `bad`; `work` gets the FLOPs and tile counts.
void tiled_attention(const HeadsShape& shape, const ProjectedInputs& in, std::size_t query_tile, std::size_t key_tile,
                     float* context, float* log_sum_exp, std::vector<float>& scratch, WorkerPool& pool,
                     FirstNonFinite& bad, AttentionWork& work);

/// What project_and_attend reads: the inputs (row-major, D columns each) and their shape, the
/// parameters, the padding mask (B, S) and the causal flag, and the tiles of the tiled form.
struct AttendArguments {
    const std::string& function;  // named in messages
    const float* query;           // (B·T, D)
    const float* key;             // (B·S, D)
    const float* value;           // (B·S, D)
    HeadsShape shape;
    const AttentionParameters& parameters;
    const std::optional<Matrix>& attention_mask;
    bool causal;
    std::size_t query_tile, key_tile;
    const RotaryOptions* rope = nullptr;  // RoPE on q and k after their projections; null: none
    float* log_sum_exp = nullptr;         // tiled form: (B, h, T) L = m + log l, kept for the backward; null: none
    const float* weights_dropout = nullptr;  // tiled form, training: (B, h, T, S) factors (ProjectedInputs)
};

/// Steps 1 and 2 of multi-head attention, shared by multi_head_attention and the encoder layer:
/// q, k, v = the inputs' projections, q and k turned by RoPE when args.rope is set (each checked for NaN and ±∞ before it is used), then every
/// head's attention — with its weights written to `weights` (B, h, T, S) when that is not null,
/// else tiled — into `context` (B·T, D), which may be ws.q. Throws InputError naming the first
/// non-finite value (q, k, v, scores, context_heads) in the lesson path's order.
void project_and_attend(const AttendArguments& args, float* weights, float* context, AttentionWorkspace& ws,
                        WorkerPool& pool, AttentionWork& work);

/// Step 3 of multi-head attention: output (B·T, D) = context W_oᵀ + b_o (the context itself when
/// there is no w_o, already in `output`), then checked for NaN and ±∞ (InputError naming output).
/// `work` gets its FLOPs and time.
void project_output(const std::string& function, const HeadsShape& shape, const AttentionParameters& parameters,
                    const float* context, float* output, WorkerPool& pool, AttentionWork& work);

/// The messages that name a bad score or context value of head `head` of batch item b.
NonFiniteValue non_finite_score(const HeadsShape& shape, std::size_t b, std::size_t head, std::size_t t,
                                std::size_t s, float value);
NonFiniteValue non_finite_context(const HeadsShape& shape, std::size_t b, std::size_t head, std::size_t t,
                                  std::size_t i, float value);

/// Offers the first non-finite value of context rows [first, first + rows) of head `head`, if any.
void check_context_rows(const HeadsShape& shape, const float* context, std::size_t b, std::size_t head,
                        std::size_t first, std::size_t rows, FirstNonFinite& bad);

}  // namespace attn::fast::detail
