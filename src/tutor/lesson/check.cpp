#include "tutor/lesson/check.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "attn/shape.hpp"
#include "tutor/language.hpp"
#include "tutor/terminal/text_layout.hpp"

namespace attn::tutor {

namespace {

std::string number(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

}  // namespace

std::string format_difference(double difference) {
    if (std::isinf(difference)) return "inf";
    if (std::isnan(difference)) return "nan";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1e", difference);
    return buffer;
}

Comparison compare(const DynamicTensor& expected, const DynamicTensor& got, const Tolerance& tolerance,
                   const std::vector<double>& resolution) {
    // A resolution is one half-unit per expected value: any other count is a bug in the caller,
    // which must not read past the end of it (nor silently judge with the wrong digits).
    if (!resolution.empty() && resolution.size() != expected.size()) {
        throw std::invalid_argument("compare: " + std::to_string(resolution.size()) + " resolutions for " +
                                    std::to_string(expected.size()) + " expected values of shape " +
                                    shape_string(expected.shape()));
    }
    Comparison c;
    c.expected_shape.assign(expected.shape().begin(), expected.shape().end());
    c.got_shape.assign(got.shape().begin(), got.shape().end());
    c.shapes_match = c.expected_shape == c.got_shape;
    if (!c.shapes_match) return c;
    std::size_t worst_flat = 0;
    bool have_worst = false;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double e = expected.data()[i], g = got.data()[i];
        const double allowed = (resolution.empty() ? 0.0 : resolution[i]) + tolerance.absolute +
                               tolerance.relative * std::fabs(e);
        double difference;
        bool ok;
        if (std::isnan(e) || std::isnan(g)) {
            ok = std::isnan(e) && std::isnan(g);
            difference = ok ? 0.0 : INFINITY;
        } else if (std::isinf(e) || std::isinf(g)) {
            ok = e == g;
            difference = ok ? 0.0 : INFINITY;
        } else {
            difference = std::fabs(g - e);
            ok = difference <= allowed;
        }
        if (!ok) ++c.mismatches;
        // The element to report: the first mismatch, or else the largest difference.
        const bool first_mismatch = !ok && c.mismatches == 1;
        if (first_mismatch || (c.mismatches == 0 && (!have_worst || difference > c.max_abs_difference))) {
            worst_flat = i;
            have_worst = true;
            c.worst_expected = e;
            c.worst_got = g;
            c.worst_allowed = allowed;
        }
        if (difference > c.max_abs_difference || (std::isinf(difference) && !std::isinf(c.max_abs_difference))) {
            c.max_abs_difference = difference;
        }
    }
    if (have_worst) c.worst = unravel_index(worst_flat, c.expected_shape);
    c.passed = c.mismatches == 0;
    return c;
}

std::string Comparison::summary() const {
    if (!shapes_match) {
        return trf("shape differs: expected {1}, got {2}", {shape_string(expected_shape), shape_string(got_shape)});
    }
    std::size_t count = 1;
    for (std::size_t size : expected_shape) count *= size;
    // The no-break spaces (\u00a0) keep "max |Δ| 1.0e-05" and "over 4 values" whole when a line
    // is wrapped; translations keep them where their words belong together.
    const std::string text = trf("max\u00a0|Δ|\u00a0{1}", {format_difference(max_abs_difference)});
    if (passed) return text + " " + trn("over\u00a0{1}\u00a0value", "over\u00a0{1}\u00a0values", count, {grouped_number(count)});
    return text + " · " +
           trn("{1} of {2} values differs; first at {3}: expected {4}, got {5} (allowed ±{6})",
               "{1} of {2} values differ; first at {3}: expected {4}, got {5} (allowed ±{6})", mismatches,
               {grouped_number(mismatches), grouped_number(count), index_string(worst), number(worst_expected),
                number(worst_got), number(worst_allowed)});
}

}  // namespace attn::tutor
