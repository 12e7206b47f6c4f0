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

// w_k, w_v (E, D) and b_k, b_v (E) with E = g·d_k: the grouped-query form of the same legends.
void add_grouped_parameter_shapes(std::vector<NamedShape>& shapes, const std::string& prefix,
                                  const AttentionParameters& p) {
    shapes.insert(shapes.end(), {{prefix + "w_q", p.w_q, "D,D"}, {prefix + "w_k", p.w_k, "E,D"},
                                 {prefix + "w_v", p.w_v, "E,D"}, {prefix + "b_q", p.b_q, "D"},
                                 {prefix + "b_k", p.b_k, "E"}, {prefix + "b_v", p.b_v, "E"},
                                 {prefix + "w_o", p.w_o, "D,D"}, {prefix + "b_o", p.b_o, "D"}});
}

void check_eps(const std::string& function, float eps) {
    if (!(eps > 0.0f) || !std::isfinite(eps)) {
        throw InputError(function + ": eps = " + std::to_string(eps) +
                         " must be a positive number (LayerNorm's eps, PyTorch's layer_norm_eps)");
    }
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
    check_eps(function, options.eps);
    return sizes.at("F");
}

namespace {

std::vector<NamedShape> decoder_shapes(const std::vector<DecoderLayerParameters>& layers, const DecoderOptions& options,
                                       const Tensor3& memory) {
    std::vector<NamedShape> shapes = {{"memory", memory, "B,S,D"}};
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const DecoderLayerParameters& p = layers[i];
        const std::string prefix = "layers[" + std::to_string(i) + "].";
        add_grouped_parameter_shapes(shapes, prefix + "self_attention.", p.self_attention);
        add_grouped_parameter_shapes(shapes, prefix + "cross_attention.", p.cross_attention);
        shapes.insert(shapes.end(), {{prefix + "linear1_weight", p.linear1_weight, "F,D"},
                                     {prefix + "linear1_bias", p.linear1_bias, "F"},
                                     {prefix + "linear2_weight", p.linear2_weight, "D,F"},
                                     {prefix + "linear2_bias", p.linear2_bias, "D"}});
        for (const auto& [name, vector] : {std::pair<const char*, const Vector*>{"norm1_weight", &p.norm1_weight},
                                           {"norm1_bias", &p.norm1_bias}, {"norm2_weight", &p.norm2_weight},
                                           {"norm2_bias", &p.norm2_bias}, {"norm3_weight", &p.norm3_weight},
                                           {"norm3_bias", &p.norm3_bias}}) {
            shapes.emplace_back(prefix + name, *vector, "D");
        }
    }
    if (options.final_norm) {
        shapes.emplace_back("final_norm.weight", options.final_norm->first, "D");
        shapes.emplace_back("final_norm.bias", options.final_norm->second, "D");
    }
    return shapes;
}

}  // namespace

DecoderSizes check_decoder_arguments(const std::string& function, const std::vector<DecoderLayerParameters>& layers,
                                     const DecoderOptions& options, const Tensor3& memory, std::size_t capacity) {
    if (layers.empty()) throw InputError(function + ": layers is empty; a decoder needs at least one layer");
    const ShapeLetters sizes = check_shapes(function, decoder_shapes(layers, options, memory));
    const std::size_t D = sizes.at("D"), h = options.heads;
    check_heads(function, D, h);
    const std::size_t g = options.kv_heads == 0 ? h : options.kv_heads;
    if (h % g != 0) {
        throw ShapeError(function + ": kv_heads = " + std::to_string(g) + " must divide heads = " + std::to_string(h) +
                         " (each K/V head serves heads / kv_heads query heads)");
    }
    const std::size_t d_k = D / h;
    if (sizes.at("E") != g * d_k) {
        throw ShapeError(function + ": w_k and w_v have " + std::to_string(sizes.at("E")) +
                         " rows; with kv_heads = " + std::to_string(g) + " and d_k = D / heads = " + std::to_string(d_k) +
                         " they must have kv_heads·d_k = " + std::to_string(g * d_k) + " (shape (" +
                         std::to_string(g * d_k) + ", " + std::to_string(D) + "))");
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        for (const AttentionParameters* a : {&layers[i].self_attention, &layers[i].cross_attention}) {
            if (!a->w_o || a->no_output_projection) {
                throw ShapeError(function + ": layers[" + std::to_string(i) + "]: " +
                                 (a == &layers[i].self_attention ? "self_attention" : "cross_attention") +
                                 ".w_o is absent; a decoder layer needs its output projection w_o (D, D) = " +
                                 shape_string(std::vector<std::size_t>{D, D}));
            }
        }
    }
    check_eps(function, options.eps);
    if (capacity == 0) throw InputError(function + ": capacity = 0; the cache must hold at least one token");
    require_fits_int(function, sizes.at("B") * sizes.at("S"), "B·S");
    require_fits_int(function, std::max(sizes.at("F"), D), "max(F, D)");
    return {sizes.at("B"), sizes.at("S"), D, sizes.at("F"), h, g, d_k};
}

}  // namespace attn::fast::detail
