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

namespace attn::fast::detail {

namespace {

template <class Tensor>
std::string shape_of(const Tensor& t) {
    return shape_string(t.shape());
}

void require_matrix(const std::string& function, const char* name, const Matrix& t, std::size_t rows,
                    std::size_t columns, const std::string& legend) {
    if (t.shape(0) != rows || t.shape(1) != columns) {
        throw ShapeError(function + ": " + name + " has shape " + shape_of(t) + " but must be " + legend + " = " +
                         shape_string(std::vector<std::size_t>{rows, columns}));
    }
}

void require_bias(const std::string& function, const char* name, const std::optional<Vector>& t, std::size_t size,
                  const std::string& legend) {
    if (t && t->shape(0) != size) {
        throw ShapeError(function + ": " + name + " has shape " + shape_of(*t) + " but must be " + legend + " = (" +
                         std::to_string(size) + ") (or absent: no bias)");
    }
}

void require_fits_int(const std::string& function, std::size_t value, const std::string& what) {
    if (value > static_cast<std::size_t>(INT_MAX)) {
        throw ShapeError(function + ": " + what + " = " + std::to_string(value) + " is larger than BLAS's int indices allow");
    }
}

}  // namespace

void require_nonempty(const std::string& function, const std::string& name, const Tensor3& tensor) {
    attn::require_nonempty(function, name, tensor.shape());
}

void check_inputs(const std::string& function, const Tensor3& query, const Tensor3& key, const Tensor3& value) {
    require_nonempty(function, "query", query);
    require_nonempty(function, "key", key);
    require_nonempty(function, "value", value);
    const std::size_t B = query.shape(0), D = query.shape(2);
    if (key.shape(0) != B || key.shape(2) != D) {
        throw ShapeError(function + ": key has shape " + shape_of(key) + " but query has shape " + shape_of(query) +
                         "; key must be (B, S, D) with B = " + std::to_string(B) + " and D = " + std::to_string(D));
    }
    if (value.shape() != key.shape()) {
        throw ShapeError(function + ": value has shape " + shape_of(value) + " but key has shape " + shape_of(key) +
                         "; both must be (B, S, D)");
    }
    require_fits_int(function, B * std::max(query.shape(1), key.shape(1)), "B·max(T, S)");
}

void check_attention_parameters(const std::string& function, const AttentionParameters& p, std::size_t D,
                                std::size_t heads, bool require_output_projection) {
    if (heads == 0) {
        throw InputError(function + ": the number of heads is not set; give options.heads (PyTorch's num_heads / "
                         "nhead; the options' constructor takes it)");
    }
    if (D % heads != 0) {
        throw ShapeError(function + ": heads = " + std::to_string(heads) + " must divide d_model D = " +
                         std::to_string(D) + " (each head has D / h columns)");
    }
    require_matrix(function, "w_q", p.w_q, D, D, "(D, D)");
    require_matrix(function, "w_k", p.w_k, D, D, "(D, D)");
    require_matrix(function, "w_v", p.w_v, D, D, "(D, D)");
    require_bias(function, "b_q", p.b_q, D, "(D)");
    require_bias(function, "b_k", p.b_k, D, "(D)");
    require_bias(function, "b_v", p.b_v, D, "(D)");
    if (p.w_o) {
        require_matrix(function, "w_o", *p.w_o, D, D, "(D, D)");
    } else if (require_output_projection) {
        throw ShapeError(function + ": w_o is absent; this layer needs its output projection w_o (D, D) = " +
                         shape_string(std::vector<std::size_t>{D, D}));
    }
    attn::require_output_projection_choice(function, p.no_output_projection, p.w_o.has_value(), p.b_o.has_value());
    require_bias(function, "b_o", p.b_o, D, "(D)");
}

void check_attention_options(const std::string& function, const std::optional<Matrix>& attention_mask, std::size_t B,
                             std::size_t S, const char* legend, std::size_t query_tile, std::size_t key_tile) {
    if (attention_mask) {
        const Matrix& mask = *attention_mask;
        if (mask.shape(0) != B || mask.shape(1) != S) {
            throw ShapeError(function + ": attention_mask has shape " + shape_of(mask) + " but must be " + legend + " = " +
                             shape_string(std::vector<std::size_t>{B, S}) + ", one value per key of each batch item");
        }
        try {
            attn::check_attention_mask(attn::Matrix(mask));  // the lesson path's rule: 0 or 1 only
        } catch (const InputError& e) {
            throw InputError(function + ": " + e.what());
        }
    }
    if (query_tile == 0 || key_tile == 0) {
        throw InputError(function + ": query_tile = " + std::to_string(query_tile) + " and key_tile = " +
                         std::to_string(key_tile) + " must both be at least 1");
    }
}

std::size_t check_encoder_parameters(const std::string& function, const EncoderLayerParameters& p, std::size_t D,
                                     float eps) {
    const std::size_t F = p.linear1_weight.shape(0);
    if (F == 0) {
        throw ShapeError(function + ": linear1_weight has shape " + shape_of(p.linear1_weight) +
                         "; it must be (F, D) with F at least 1");
    }
    require_matrix(function, "linear1_weight", p.linear1_weight, F, D, "(F, D)");
    require_bias(function, "linear1_bias", p.linear1_bias, F, "(F)");
    require_matrix(function, "linear2_weight", p.linear2_weight, D, F, "(D, F) with F from linear1_weight");
    require_bias(function, "linear2_bias", p.linear2_bias, D, "(D)");
    for (const auto& [name, vector] : {std::pair<const char*, const Vector*>{"norm1_weight", &p.norm1_weight},
                                       {"norm1_bias", &p.norm1_bias},
                                       {"norm2_weight", &p.norm2_weight},
                                       {"norm2_bias", &p.norm2_bias}}) {
        if (vector->shape(0) != D) {
            throw ShapeError(function + ": " + name + " has shape " + shape_of(*vector) + " but must be (D) = (" +
                             std::to_string(D) + ")");
        }
    }
    if (!(eps > 0.0f) || !std::isfinite(eps)) {
        throw InputError(function + ": eps = " + std::to_string(eps) +
                         " must be a positive number (LayerNorm's eps, PyTorch's layer_norm_eps)");
    }
    return F;
}

}  // namespace attn::fast::detail
