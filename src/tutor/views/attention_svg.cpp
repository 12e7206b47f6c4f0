// render_heatmap_svg (tutor/views/attention_page.hpp): one head's weights as an SVG heatmap for a slide or a paper,
// coloured with the ramp the page uses (tutor/views/attention_picture.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "tutor/views/attention_page.hpp"
#include "tutor/views/attention_picture.hpp"
#include "tutor/views/heatmap.hpp"
#include "tutor/language.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

namespace {

std::string number(double value) { return fixed(value, 1); }

// Where everything goes: the cells' size, the labels' font, the grid's corner, the page's size.
struct SvgLayout {
    std::size_t T = 0, S = 0;
    double cell = 0, font = 0, margin = 24;
    bool values_fit = false;  // each cell shows its weight
    bool upright = false;     // key labels stand upright (small cells), else at 45°
    double left = 0, top = 0, grid_height = 0, width = 0, height = 0;
    std::vector<std::string> rows, columns;  // the tokens, shortened
};

SvgLayout layout_for(const AttentionHeads& heads, const std::string& heading) {
    SvgLayout layout;
    layout.T = heads.weights.shape(1), layout.S = heads.weights.shape(2);
    const std::size_t larger = std::max(layout.T, layout.S);
    layout.cell = larger <= 12 ? 56 : larger <= 24 ? 36 : larger <= 64 ? 16 : 9;
    layout.values_fit = layout.cell >= 36;
    // Labels as large as the rows allow; small cells stand their key labels upright so they do not overlap.
    layout.font = std::clamp(layout.cell * 0.7, 7.0, 18.0);
    const double char_width = 0.62 * layout.font, margin = layout.margin;
    layout.upright = layout.cell < 36;
    constexpr std::size_t longest_label = 18;  // columns; longer tokens end in …

    std::size_t row_chars = 1, column_chars = 1;
    for (const auto& token : heads.query_tokens) {
        layout.rows.push_back(shorten_label(token, longest_label));
        row_chars = std::max(row_chars, visible_width(layout.rows.back()));
    }
    for (const auto& token : heads.key_tokens) {
        layout.columns.push_back(shorten_label(token, longest_label));
        column_chars = std::max(column_chars, visible_width(layout.columns.back()));
    }
    // Key labels run up and to the right at 45° (upright when cells are small): they need height
    // above the grid and, slanted, room beyond it.
    const double label_length = char_width * static_cast<double>(column_chars);
    const double diagonal = layout.upright ? 0.0 : 0.7071 * label_length;
    layout.left = margin + char_width * static_cast<double>(row_chars) + 10;
    layout.top = margin + 64 + (layout.upright ? label_length : diagonal) + 10;
    const double grid_width = layout.cell * static_cast<double>(layout.S);
    layout.grid_height = layout.cell * static_cast<double>(layout.T);
    const double title_width = 2 * margin + 0.65 * 22 * static_cast<double>(visible_width(heading));
    layout.width = std::max({layout.left + grid_width + diagonal + margin, title_width, 420.0});
    layout.height = layout.top + layout.grid_height + 80;
    return layout;
}

// The document's start: its size, title, the colour ramp, the white page, the heading.
std::string svg_start(const SvgLayout& layout, const AttentionHeads& heads, std::size_t head, const std::string& title,
                      const std::string& heading) {
    const double margin = layout.margin;
    std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(layout.width) + "\" height=\"" +
                      number(layout.height) + "\" viewBox=\"0 0 " + number(layout.width) + " " + number(layout.height) +
                      "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n"
                      "<title>" + html_escape(title) + " \u00b7 head " + std::to_string(head) + "</title>\n"
                      "<defs><linearGradient id=\"ramp\">";
    for (const auto& stop : ramp_stops) {
        svg += "<stop offset=\"" + fixed(stop.at, 2) + "\" stop-color=\"" + ramp_colour(stop.at) + "\"/>";
    }
    svg += "</linearGradient></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    svg += "<text x=\"" + number(margin) + "\" y=\"" + number(margin + 18) + "\" font-size=\"22\" font-weight=\"bold\" fill=\"#111\">" +
           html_escape(heading) + "</text>\n";
    svg += "<text x=\"" + number(margin) + "\" y=\"" + number(margin + 46) + "\" font-size=\"15\" fill=\"#3d3d3d\">" +
           html_escape(trf("head {1} of {2} \u00b7 rows: queries \u00b7 columns: keys \u00b7 each row sums to 1",
                           {std::to_string(head), std::to_string(heads.weights.shape(0))})) +
           "</text>\n";
    return svg;
}

// The keys' labels above the grid and the queries' to its left.
std::string svg_labels(const SvgLayout& layout) {
    const double cell = layout.cell, font = layout.font, left = layout.left, top = layout.top;
    const bool upright = layout.upright;
    std::string svg;
    for (std::size_t s = 0; s < layout.S; ++s) {
        const double x = left + cell * (static_cast<double>(s) + 0.5) + (upright ? font * 0.35 : 0.0), y = top - 8;
        svg += "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" font-size=\"" + number(font) +
               "\" fill=\"#111\" transform=\"rotate(" + (upright ? "-90 " : "-45 ") + number(x) + " " + number(y) + ")\">" +
               html_escape(layout.columns[s]) + "</text>\n";
    }
    for (std::size_t t = 0; t < layout.T; ++t) {
        const double y = top + cell * (static_cast<double>(t) + 0.5);
        svg += "<text x=\"" + number(left - 10) + "\" y=\"" + number(y) + "\" dy=\"0.35em\" font-size=\"" + number(font) +
               "\" text-anchor=\"end\" fill=\"#111\">" + html_escape(layout.rows[t]) + "</text>\n";
    }
    return svg;
}

// One cell per (query, key): its colour, a tooltip, and its weight when it fits.
std::string svg_cells(const SvgLayout& layout, const AttentionHeads& heads, std::size_t head) {
    const double cell = layout.cell;
    std::string svg;
    for (std::size_t t = 0; t < layout.T; ++t) {
        for (std::size_t s = 0; s < layout.S; ++s) {
            const double w = heads.weights(head, t, s);
            const double x = layout.left + cell * static_cast<double>(s), y = layout.top + cell * static_cast<double>(t);
            svg += "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(cell) + "\" height=\"" +
                   number(cell) + "\" fill=\"" + ramp_colour(w) + "\" stroke=\"#ffffff\"><title>" +
                   html_escape(heads.query_tokens[t]) + " \u2192 " + html_escape(heads.key_tokens[s]) + ": " + significant(w) +
                   "</title></rect>\n";
            if (layout.values_fit) {
                svg += "<text x=\"" + number(x + cell / 2) + "\" y=\"" + number(y + cell / 2) +
                       "\" dy=\"0.35em\" text-anchor=\"middle\" font-size=\"" + number(cell >= 56 ? 16 : 12) + "\" fill=\"" +
                       (w > 0.45 ? "#ffffff" : "#111111") + "\">" + fixed(w, 2) + "</text>\n";
            }
        }
    }
    return svg;
}

// The ramp from 0 to 1 under the grid, and the document's end.
std::string svg_legend_and_end(const SvgLayout& layout) {
    const double left = layout.left, legend_y = layout.top + layout.grid_height + 30;
    std::string svg;
    svg += "<rect x=\"" + number(left) + "\" y=\"" + number(legend_y) + "\" width=\"200\" height=\"14\" fill=\"url(#ramp)\" "
           "stroke=\"#999999\"/>\n";
    svg += "<text x=\"" + number(left) + "\" y=\"" + number(legend_y + 34) + "\" font-size=\"14\" fill=\"#111\">0</text>\n";
    svg += "<text x=\"" + number(left + 200) + "\" y=\"" + number(legend_y + 34) +
           "\" font-size=\"14\" text-anchor=\"end\" fill=\"#111\">1</text>\n";
    svg += "<text x=\"" + number(left + 100) + "\" y=\"" + number(legend_y + 34) +
           "\" font-size=\"14\" text-anchor=\"middle\" fill=\"#3d3d3d\">" + html_escape(tr("weight")) + "</text>\n</svg>\n";
    return svg;
}

}  // namespace

std::string render_heatmap_svg(const AttentionHeads& heads, std::size_t head, const std::string& title) {
    check_drawable(heads, head, "");
    const std::string heading = shorten_label(title, longest_title);
    const SvgLayout layout = layout_for(heads, heading);
    return svg_start(layout, heads, head, title, heading) + svg_labels(layout) + svg_cells(layout, heads, head) +
           svg_legend_and_end(layout);
}

}  // namespace attn::tutor
