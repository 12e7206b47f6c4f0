// tutor/views/attention_picture.hpp — what the web page and the SVG heatmap of attention share: the
// colour ramp, the check that the weights can be drawn, and the number formats.
//
// Why: the page's script colours its heatmap cells in the browser and the SVG colours them here;
// both must agree, so the ramp is written once (ramp_stops) and the script receives it as a
// JavaScript literal (ramp_javascript) where its asset says RAMP_STOPS.
//
//   ramp_colour(0.5)        // "#6baed6"
//   ramp_javascript(13)     // "[[0, [247, 251, 255]], [0.25, [198, 219, 239]], …]"
#pragma once

#include <cstddef>
#include <string>

#include "tutor/views/attention_view.hpp"

namespace attn::tutor {

/// One stop of the colour ramp: at weight `at`, this colour.
struct RampStop {
    double at;
    int red, green, blue;
};

/// Light blue to dark blue (ColorBrewer's "Blues"): weight 0 is nearly white, weight 1 dark.
constexpr RampStop ramp_stops[] = {{0.0, 247, 251, 255}, {0.25, 198, 219, 239}, {0.5, 107, 174, 214},
                                   {0.75, 33, 113, 181}, {1.0, 8, 48, 107}};

/// The ramp's colour for a weight (clamped to 0 … 1) as "#rrggbb", linear between the stops.
std::string ramp_colour(double weight);

/// The stops as a JavaScript array [[at, [r, g, b]], …], wrapped before 100 columns with its
/// continuation lines under the first stop; `column` is where the literal starts on its line.
std::string ramp_javascript(std::size_t column);

/// `value` with `decimals` digits after the point ("%.*f").
std::string fixed(double value, int decimals);

/// `value` with 7 significant digits, float32's ("%.7g").
std::string significant(double value);

/// InputError unless `heads` can be drawn: at most max_drawn_tokens queries and keys, one token
/// per query and key, and `head` below h. `head_option_hint` names the option that chose the head.
void check_drawable(const AttentionHeads& heads, std::size_t head, const char* head_option_hint);

/// Columns of a title before it is shortened with "…".
constexpr std::size_t longest_title = 90;

}  // namespace attn::tutor
