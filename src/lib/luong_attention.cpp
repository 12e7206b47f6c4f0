#include "attn/luong_attention.hpp"

#include <cblas.h>
#include <xtensor/xmath.hpp>

#include "attn/dot_attention.hpp"
#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

// encoder_outputs (B, S, H) and decoder_output (B, H): non-empty, same B and H.
void check_encoder_decoder(const char* function, const Tensor3& encoder_outputs, const Matrix& decoder_output) {
    require_nonempty(function, "encoder_outputs", encoder_outputs.shape());
    require_nonempty(function, "decoder_output", decoder_output.shape());
    const std::size_t B = encoder_outputs.shape(0), H = encoder_outputs.shape(2);
    if (decoder_output.shape(0) != B || decoder_output.shape(1) != H) {
        throw ShapeError(std::string(function) + ": decoder_output has shape " + shape_string(decoder_output.shape()) +
                         " but encoder_outputs has shape " + shape_string(encoder_outputs.shape()) +
                         "; decoder_output must be (B, H) = " + shape_string(std::vector<std::size_t>{B, H}));
    }
}

// A weight whose shape must be exactly `expected`; `legend` ("(H, H)") says where the sizes come from.
void check_weight(const char* function, const char* name, const Matrix& weight, std::vector<std::size_t> expected,
                  const char* legend, const std::string& source) {
    const std::vector<std::size_t> got(weight.shape().begin(), weight.shape().end());
    if (got != expected) {
        throw ShapeError(std::string(function) + ": " + name + " has shape " + shape_string(got) + " but " + source +
                         "; " + name + " must be " + legend + " = " + shape_string(expected));
    }
}

// scores[b, s] = keys[b, s] · queries[b]: one matrix-vector product per sentence.
Matrix batched_dot(const Tensor3& keys, const Matrix& queries) {
    const std::size_t B = keys.shape(0), S = keys.shape(1), H = keys.shape(2);
    Matrix scores = Matrix::from_shape({B, S});
    for (std::size_t b = 0; b < B; ++b) {
        cblas_dgemv(CblasRowMajor, CblasNoTrans, int(S), int(H), 1.0, keys.data() + b * S * H, int(H),
                    queries.data() + b * H, 1, 0.0, scores.data() + b * S, 1);
    }
    return scores;
}

}  // namespace

LuongGeneralStep luong_general_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                         const Matrix& W_a) {
    const char* function = "luong_general_attention";
    check_encoder_decoder(function, encoder_outputs, decoder_output);
    const std::size_t H = encoder_outputs.shape(2);
    check_weight(function, "W_a", W_a, {H, H}, "(H, H)",
                 "encoder_outputs has shape " + shape_string(encoder_outputs.shape()));
    LuongGeneralStep step;
    // W_a h̄_s for every (b, s) at once: one (B·S, H) × (H, H)ᵀ product. Projecting the query
    // instead (h_t W_a, then a dot with h̄_s) gives the same scores with fewer operations when S is
    // large; the keys' side is kept because it is the intermediate the lesson prints.
    step.projected = linear(encoder_outputs, W_a, "W_a");
    AttentionStep attended = attend_with_scores(batched_dot(step.projected, decoder_output), encoder_outputs);
    step.scores = std::move(attended.scores);
    step.weights = std::move(attended.weights);
    step.context = std::move(attended.context);
    return step;
}

LuongConcatStep luong_concat_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                       const Matrix& W_a, const Matrix& v_a) {
    const char* function = "luong_concat_attention";
    check_encoder_decoder(function, encoder_outputs, decoder_output);
    require_nonempty(function, "W_a", W_a.shape());
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    const std::size_t A = W_a.shape(0);
    check_weight(function, "W_a", W_a, {A, 2 * H}, "(A, 2H)",
                 "encoder_outputs has shape " + shape_string(encoder_outputs.shape()) + " (H = " + std::to_string(H) + ")");
    check_weight(function, "v_a", v_a, {1, A}, "(1, A)", "W_a has shape " + shape_string(W_a.shape()) + " (A = " + std::to_string(A) + ")");

    LuongConcatStep step;
    step.concatenated = Tensor3::from_shape({B, S, 2 * H});
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t s = 0; s < S; ++s) {
            double* row = step.concatenated.data() + (b * S + s) * 2 * H;
            const double* query = decoder_output.data() + b * H;
            const double* key = encoder_outputs.data() + (b * S + s) * H;
            std::copy(query, query + H, row);      // h_t first, as in the paper
            std::copy(key, key + H, row + H);      // then h̄_s
        }
    }
    step.hidden = xt::tanh(linear(step.concatenated, W_a, "W_a"));
    const Tensor3 scores = linear(step.hidden, v_a, "v_a");  // (B, S, 1)
    Matrix flat = Matrix::from_shape({B, S});
    std::copy(scores.begin(), scores.end(), flat.begin());
    AttentionStep attended = attend_with_scores(std::move(flat), encoder_outputs);
    step.scores = std::move(attended.scores);
    step.weights = std::move(attended.weights);
    step.context = std::move(attended.context);
    return step;
}

}  // namespace attn
