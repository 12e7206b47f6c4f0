#include "tutor/views/attention_picture.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "attn/error.hpp"
#include "tutor/views/attention_page.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

std::string ramp_colour(double weight) {
    weight = std::clamp(weight, 0.0, 1.0);
    std::size_t upper = 1;
    while (upper + 1 < std::size(ramp_stops) && weight > ramp_stops[upper].at) ++upper;
    const RampStop& a = ramp_stops[upper - 1];
    const RampStop& b = ramp_stops[upper];
    const double f = (weight - a.at) / (b.at - a.at);
    auto mix = [f](int from, int to) { return static_cast<int>(std::lround(from + f * (to - from))); };
    char text[24];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", mix(a.red, b.red), mix(a.green, b.green), mix(a.blue, b.blue));
    return text;
}

std::string ramp_javascript(std::size_t column) {
    constexpr std::size_t widest_line = 100;
    std::string out = "[";
    std::size_t width = column + 1;  // the columns of the current line so far
    for (std::size_t i = 0; i < std::size(ramp_stops); ++i) {
        char stop[64];
        std::snprintf(stop, sizeof stop, "[%g, [%d, %d, %d]]%s", ramp_stops[i].at, ramp_stops[i].red, ramp_stops[i].green,
                      ramp_stops[i].blue, i + 1 < std::size(ramp_stops) ? "," : "]");
        const std::string piece = stop;
        if (i > 0 && width + 1 + piece.size() > widest_line) {
            out += "\n" + std::string(column + 1, ' ');
            width = column + 1;
        } else if (i > 0) {
            out += " ";
            ++width;
        }
        out += piece;
        width += piece.size();
    }
    return out;
}

std::string fixed(double value, int decimals) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string significant(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.7g", value);
    return text;
}

void check_drawable(const AttentionHeads& heads, std::size_t head, const char* head_option_hint) {
    const std::size_t h = heads.weights.shape(0), T = heads.weights.shape(1), S = heads.weights.shape(2);
    if (T > max_drawn_tokens || S > max_drawn_tokens) {
        throw InputError(trf("there are {1} queries and {2} keys; a picture of attention stays readable up to {3} of each: "
                             "draw a slice, e.g. weights[:, :, :{3}, :{3}] saved with numpy.save",
                             {std::to_string(T), std::to_string(S), std::to_string(max_drawn_tokens)}));
    }
    if (heads.query_tokens.size() != T || heads.key_tokens.size() != S) {
        throw InputError("the tokens do not fit the weights: " + std::to_string(heads.query_tokens.size()) +
                         " query tokens and " + std::to_string(heads.key_tokens.size()) + " key tokens for T = " +
                         std::to_string(T) + " and S = " + std::to_string(S));
    }
    if (head >= h) {
        throw InputError(h == 1 ? trf("there is no head {1}{2}: the weights have 1 head (0)", {std::to_string(head), head_option_hint})
                                : trf("there is no head {1}{2}: the weights have {3} heads (0 to {4})",
                                      {std::to_string(head), head_option_hint, std::to_string(h), std::to_string(h - 1)}));
    }
}

}  // namespace attn::tutor
