#include "attn/rotary.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

void check_even_width(const char* function, std::size_t d_k) {
    if (d_k == 0 || d_k % 2 != 0) {
        throw InputError(std::string(function) + ": d_k = " + std::to_string(d_k) +
                         " is odd or 0; RoPE turns pairs of features, so d_k must be even and at least 2");
    }
}

void check_width_and_base(const char* function, std::size_t d_k, double base) {
    check_even_width(function, d_k);
    if (!(base > 0.0) || !std::isfinite(base)) {
        throw InputError(std::string(function) + ": base = " + std::to_string(base) +
                         " must be a finite number above 0 (10000 in RoFormer)");
    }
}

void check_positions(const char* function, const std::vector<std::int64_t>& positions) {
    if (positions.empty()) throw InputError(std::string(function) + ": positions is empty; give one per query or key");
    for (std::size_t t = 0; t < positions.size(); ++t) {
        if (positions[t] < 0) {
            throw InputError(std::string(function) + ": positions[" + std::to_string(t) + "] = " +
                             std::to_string(positions[t]) + " is negative; positions count from 0");
        }
    }
}

// The features (a, b) that form pair i of a row of width d_k, in each layout.
std::size_t first_of_pair(RopeLayout layout, std::size_t i) { return layout == RopeLayout::halves ? i : 2 * i; }
std::size_t second_of_pair(RopeLayout layout, std::size_t i, std::size_t d_k) {
    return layout == RopeLayout::halves ? i + d_k / 2 : 2 * i + 1;
}

}  // namespace

const char* rope_layout_name(RopeLayout layout) { return layout == RopeLayout::halves ? "halves" : "pairs"; }

Vector rotary_frequencies(std::size_t d_k, double base) {
    check_width_and_base("rotary_frequencies", d_k, base);
    Vector theta = Vector::from_shape({d_k / 2});  // (d_k/2)
    for (std::size_t i = 0; i < d_k / 2; ++i) {
        theta(i) = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d_k));
    }
    return theta;
}

Matrix rotary_angles(const std::vector<std::int64_t>& positions, std::size_t d_k, double base) {
    check_width_and_base("rotary_angles", d_k, base);
    check_positions("rotary_angles", positions);
    const Vector theta = rotary_frequencies(d_k, base);               // (d_k/2)
    Matrix angles = Matrix::from_shape({positions.size(), d_k / 2});  // (T, d_k/2)
    for (std::size_t t = 0; t < positions.size(); ++t) {
        for (std::size_t i = 0; i < d_k / 2; ++i) angles(t, i) = static_cast<double>(positions[t]) * theta(i);
    }
    return angles;
}

Tensor4 rotate_feature_pairs(const Tensor4& x, const Matrix& angles, RopeLayout layout) {
    check_shapes("rotate_feature_pairs", {{"x", x, "B,h,T,d_k"}, {"angles", angles, "T,pairs"}});
    const std::size_t B = x.shape(0), h = x.shape(1), T = x.shape(2), d_k = x.shape(3);
    check_even_width("rotate_feature_pairs", d_k);
    if (angles.shape(1) != d_k / 2) {
        throw ShapeError("rotate_feature_pairs: x " + shape_string(x.shape()) + " has d_k = " + std::to_string(d_k) +
                         " but angles " + shape_string(angles.shape()) + " has " + std::to_string(angles.shape(1)) +
                         " pairs; angles must be (T, d_k/2) = (" + std::to_string(T) + ", " + std::to_string(d_k / 2) + ")");
    }
    detail::require_finite("rotate_feature_pairs", "x", x, detail::overflow_advice);
    detail::require_finite("rotate_feature_pairs", "angles", angles, "every angle must be a finite number");
    Tensor4 out = Tensor4::from_shape({B, h, T, d_k});
    for (std::size_t batch = 0; batch < B; ++batch) {
        for (std::size_t head = 0; head < h; ++head) {
            for (std::size_t t = 0; t < T; ++t) {
                for (std::size_t i = 0; i < d_k / 2; ++i) {
                    const std::size_t first = first_of_pair(layout, i), second = second_of_pair(layout, i, d_k);
                    const double a = x(batch, head, t, first), b = x(batch, head, t, second);
                    const double cos_phi = std::cos(angles(t, i)), sin_phi = std::sin(angles(t, i));
                    out(batch, head, t, first) = a * cos_phi - b * sin_phi;   // a' = a cos φ − b sin φ
                    out(batch, head, t, second) = b * cos_phi + a * sin_phi;  // b' = b cos φ + a sin φ
                }
            }
        }
    }
    return out;
}

Tensor4 rotary_embedding(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout, double base) {
    check_shapes("rotary_embedding",
                 {{"x", x, "B,h,T,d_k"}, {"positions", std::vector<std::size_t>{positions.size()}, "T"}});
    check_width_and_base("rotary_embedding", x.shape(3), base);
    check_positions("rotary_embedding", positions);
    return rotate_feature_pairs(x, rotary_angles(positions, x.shape(3), base), layout);
}

}  // namespace attn
