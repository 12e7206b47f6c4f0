// The fast path's argument checks (arguments.hpp).
#include "arguments.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "attn/multi_head_attention.hpp"  // the output projection's rule, shared
#include "attn/shape.hpp"
#include "rotary.hpp"

namespace attn::fast::detail {

namespace {

// The attention parameters' legends: w_q … w_o (D, D), b_q … b_o (D).
void add_parameter_shapes(std::vector<NamedShape>& shapes, const AttentionParameters& p) {
    shapes.insert(shapes.end(), {{"w_q", p.w_q, "D,D"}, {"w_k", p.w_k, "D,D"}, {"w_v", p.w_v, "D,D"},
                                 {"b_q", p.b_q, "D"}, {"b_k", p.b_k, "D"}, {"b_v", p.b_v, "D"},
                                 {"w_o", p.w_o, "D,D"}, {"b_o", p.b_o, "D"}});
}

void check_heads(const std::string& function, std::size_t D, std::size_t heads) {
    if (heads == 0) {
        throw InputError(function + ": the number of heads is not set; give options.heads (PyTorch's num_heads / "
                         "nhead; the options' constructor takes it)");
    }
    if (D % heads != 0) {
        throw ShapeError(function + ": heads = " + std::to_string(heads) + " must divide d_model D = " +
                         std::to_string(D) + " (each head has D / h columns)");
    }
}

void check_mask_values(const std::string& function, const std::optional<Matrix>& attention_mask) {
    if (!attention_mask) return;
    try {
        attn::check_attention_mask(attn::Matrix(*attention_mask));  // the lesson path's rule: 0 or 1 only
    } catch (const InputError& e) {
        throw InputError(function + ": " + e.what());
    }
}

void check_tiles(const std::string& function, std::size_t query_tile, std::size_t key_tile) {
    if (query_tile == 0 || key_tile == 0) {
        throw InputError(function + ": query_tile = " + std::to_string(query_tile) + " and key_tile = " +
                         std::to_string(key_tile) + " must both be at least 1");
    }
}

void require_fits_int(const std::string& function, std::size_t value, const std::string& what) {
    if (value > static_cast<std::size_t>(INT_MAX)) {
        throw ShapeError(function + ": " + what + " = " + std::to_string(value) + " is larger than BLAS's int indices allow");
    }
}

}  // namespace

void check_attention_arguments(const std::string& function, const Tensor3& query, const Tensor3& key,
                               const Tensor3& value, const AttentionParameters& parameters,
                               const AttentionOptions& options) {
    std::vector<NamedShape> shapes = {{"query", query, "B,T,D"}, {"key", key, "B,S,D"}, {"value", value, "B,S,D"},
                                      {"attention_mask", options.attention_mask, "B,S"}};
    add_parameter_shapes(shapes, parameters);
    const ShapeLetters sizes = check_shapes(function, shapes);
    check_heads(function, sizes.at("D"), options.heads);
    if (options.rope) {
        check_rotary_options(function, *options.rope, sizes.at("T"), sizes.at("S"), sizes.at("D") / options.heads);
    }
    attn::require_output_projection_choice(function, parameters.no_output_projection, parameters.w_o.has_value(),
                                           parameters.b_o.has_value());
    check_mask_values(function, options.attention_mask);
    check_tiles(function, options.query_tile, options.key_tile);
    require_fits_int(function, sizes.at("B") * std::max(sizes.at("T"), sizes.at("S")), "B·max(T, S)");
}

std::size_t check_encoder_arguments(const std::string& function, const Tensor3& x,
                                    const EncoderLayerParameters& parameters, const EncoderLayerOptions& options) {
    const EncoderLayerParameters& p = parameters;
    std::vector<NamedShape> shapes = {{"x", x, "B,T,D"}, {"attention_mask", options.attention_mask, "B,T"}};
    add_parameter_shapes(shapes, p.attention);
    shapes.insert(shapes.end(), {{"linear1_weight", p.linear1_weight, "F,D"}, {"linear1_bias", p.linear1_bias, "F"},
                                 {"linear2_weight", p.linear2_weight, "D,F"}, {"linear2_bias", p.linear2_bias, "D"},
                                 {"norm1_weight", p.norm1_weight, "D"}, {"norm1_bias", p.norm1_bias, "D"},
                                 {"norm2_weight", p.norm2_weight, "D"}, {"norm2_bias", p.norm2_bias, "D"}});
    const ShapeLetters sizes = check_shapes(function, shapes);
    const std::size_t D = sizes.at("D");
    check_heads(function, D, options.heads);
    if (!p.attention.w_o) {
        throw ShapeError(function + ": w_o is absent; this layer needs its output projection w_o (D, D) = " +
                         shape_string(std::vector<std::size_t>{D, D}));
    }
    attn::require_output_projection_choice(function, p.attention.no_output_projection, true,
                                           p.attention.b_o.has_value());
    check_mask_values(function, options.attention_mask);
    check_tiles(function, options.query_tile, options.key_tile);
    require_fits_int(function, sizes.at("B") * sizes.at("T"), "B·T");
    if (!(options.eps > 0.0f) || !std::isfinite(options.eps)) {
        throw InputError(function + ": eps = " + std::to_string(options.eps) +
                         " must be a positive number (LayerNorm's eps, PyTorch's layer_norm_eps)");
    }
    return sizes.at("F");
}

}  // namespace attn::fast::detail
