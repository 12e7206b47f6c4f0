#include "tutor/views/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>

#include "attn/error.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

std::string pad_left(const std::string& text, std::size_t width) {
    const std::size_t visible = visible_width(text);
    return visible >= width ? text : std::string(width - visible, ' ') + text;
}

std::string cell_text(double value) {
    char buffer[32];
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    std::snprintf(buffer, sizeof buffer, std::fabs(value) < 1e4 ? "%.4f" : "%.2e", value);
    return buffer;
}

// Shade in [0, 1] for a value of one grid: half its place between the grid's min and max, half its
// rank among the grid's distinct values. The first half keeps the picture's sense (more weight,
// stronger shade); the second keeps close neighbours apart (0.3219, 0.3332 and 0.3449 among weights
// from 0 to 1 are three different greys, not one), since each distinct value is one rank apart.
struct Scale {
    double low = 0.0, high = 1.0;
    bool any_finite = false;
    std::vector<double> distinct;  // the finite values, sorted, each once
    double operator()(double value) const {
        if (!std::isfinite(value)) return value > 0 ? 1.0 : 0.0;
        if (high <= low) return 0.5;
        const double place = std::clamp((value - low) / (high - low), 0.0, 1.0);
        const auto at = std::lower_bound(distinct.begin(), distinct.end(), value);
        const double rank = static_cast<double>(at - distinct.begin()) / static_cast<double>(distinct.size() - 1);
        return (place + rank) / 2.0;
    }
};

Scale scale_for(const double* data, std::size_t count) {
    Scale scale{INFINITY, -INFINITY, false, {}};
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(data[i])) continue;
        scale.low = std::min(scale.low, data[i]);
        scale.high = std::max(scale.high, data[i]);
        scale.distinct.push_back(data[i]);
        scale.any_finite = true;
    }
    if (!scale.any_finite) return Scale{0.0, 1.0, false, {}};
    std::sort(scale.distinct.begin(), scale.distinct.end());
    scale.distinct.erase(std::unique(scale.distinct.begin(), scale.distinct.end()), scale.distinct.end());
    return scale;
}

std::string shaded(const Terminal& terminal, double shade, const std::string& text, bool tight = false) {
    if (!terminal.colour) {
        static const char* const blocks[] = {" ", "░", "▒", "▓", "█"};
        const int level = std::min(4, static_cast<int>(std::lround(shade * 4.0)));
        return std::string(blocks[level]) + text;
    }
    // A grey ramp (232 = near black … 255 = near white). The highest value stands out from the
    // background: white on a dark terminal, black on a light one. The text is black on the light
    // greys and white on the dark ones.
    const int step = std::min(23, static_cast<int>(std::lround(shade * 23.0)));
    const int background = terminal.light ? 255 - step : 232 + step;
    const char* foreground = background >= 244 ? "30" : "97";
    return "\033[48;5;" + std::to_string(background) + ";" + foreground + "m " + text + (tight ? "" : " ") + "\033[0m";
}

// "min  0.0009 ▒0.5000 █0.9991 max": which shade stands for which value, shown on values of the
// grid itself (its min, max and up to three between them, evenly spaced by rank). On a narrow
// screen only the ends and the middle are named.
std::string legend(const Terminal& terminal, const Scale& scale) {
    if (!scale.any_finite) return "";
    if (scale.high <= scale.low) return "  " + tr("every cell:") + " " + shaded(terminal, 0.5, cell_text(scale.low)) + "\n";
    const std::size_t last = scale.distinct.size() - 1;
    std::string out;
    for (const std::size_t step : {1, 2, 4}) {
        out = "  " + tr("min");
        std::size_t previous = SIZE_MAX;
        for (std::size_t level = 0; level <= 4; level += step) {
            const std::size_t rank = (level * last + 2) / 4;
            if (rank == previous) continue;
            previous = rank;
            const double value = scale.distinct[rank];
            out += " " + shaded(terminal, scale(value), cell_text(value));
        }
        out += " " + tr("max");
        if (visible_width(out) <= terminal.width) break;
    }
    return out + "\n";
}

std::vector<std::string> default_labels(std::size_t count) {
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < count; ++i) labels.push_back(std::to_string(i));
    return labels;
}

// One grid, shaded on its own values (Scale), followed by its legend.
std::string grid(const Terminal& terminal, const double* data, std::size_t rows, std::size_t columns,
                 std::vector<std::string> row_labels, std::vector<std::string> column_labels) {
    const Scale scale = scale_for(data, rows * columns);
    if (row_labels.empty()) row_labels = default_labels(rows);
    if (column_labels.empty()) column_labels = default_labels(columns);
    if (row_labels.size() != rows || column_labels.size() != columns) {
        throw InputError("heatmap: " + std::to_string(row_labels.size()) + " row labels and " +
                         std::to_string(column_labels.size()) + " column labels for a grid of " + std::to_string(rows) +
                         " rows and " + std::to_string(columns) + " columns");
    }
    std::size_t label_width = 0;
    for (const auto& label : row_labels) label_width = std::max(label_width, visible_width(label));
    std::vector<std::string> cells(rows * columns);
    std::size_t number_width = 0;
    for (std::size_t i = 0; i < rows * columns; ++i) {
        cells[i] = cell_text(data[i]);
        number_width = std::max(number_width, cells[i].size());
    }
    std::size_t cell_width = number_width;
    for (const auto& label : column_labels) cell_width = std::max(cell_width, visible_width(label));
    std::size_t padding = terminal.colour ? 2 : 1;
    // One long token ("caminando") would widen every column: when the grid no longer fits the
    // terminal, columns keep the width of their numbers and the labels are shortened instead.
    if (2 + label_width + columns * (1 + cell_width + padding) > terminal.width) {
        constexpr std::size_t longest_row_label = 20;
        cell_width = number_width;
        for (auto& label : column_labels) label = shorten_label(label, cell_width + padding);
        label_width = 0;
        for (auto& label : row_labels) {
            label = shorten_label(label, longest_row_label);
            label_width = std::max(label_width, visible_width(label));
        }
    }
    // Still too wide (ten keys of weights make 85 columns): the numbers drop their leading zero
    // (0.0909 → .0909, every digit kept) and a coloured cell its right margin, so a 10 × 10 grid of
    // weights fits 80 columns in either mode.
    const bool tight = 2 + label_width + columns * (1 + cell_width + padding) > terminal.width;
    if (tight) {
        number_width = 0;
        for (auto& cell : cells) {
            if (cell.rfind("0.", 0) == 0) cell.erase(0, 1);
            if (cell.rfind("-0.", 0) == 0) cell.erase(1, 1);
            number_width = std::max(number_width, cell.size());
        }
        cell_width = number_width;
        if (terminal.colour) padding = 1;
        for (auto& label : column_labels) label = shorten_label(label, cell_width + padding);
    }
    const std::size_t shaded_width = cell_width + padding;

    std::string out = "  " + std::string(label_width, ' ');
    for (const auto& label : column_labels) out += " " + pad_left(label, shaded_width);
    out += "\n";
    for (std::size_t r = 0; r < rows; ++r) {
        out += "  " + pad_left(row_labels[r], label_width);
        for (std::size_t c = 0; c < columns; ++c) {
            const double value = data[r * columns + c];
            out += " " + shaded(terminal, scale(value), pad_left(cells[r * columns + c], cell_width), tight);
        }
        out += "\n";
    }
    return out + legend(terminal, scale);
}

}  // namespace

std::string shorten_label(const std::string& label, std::size_t width) {
    if (visible_width(label) <= width) return label;
    if (width == 0) return "";
    std::string out;
    for (std::size_t i = 0; i < label.size();) {
        const auto lead = static_cast<unsigned char>(label[i]);
        const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        const std::string next = label.substr(i, length);
        if (visible_width(out + next) > width - 1) break;  // room for the "…"
        out += next;
        i += length;
    }
    return out + "…";
}

std::string render_heatmap(const Terminal& terminal, const Matrix& values, const std::vector<std::string>& row_labels,
                           const std::vector<std::string>& column_labels) {
    return grid(terminal, values.data(), values.shape(0), values.shape(1), row_labels, column_labels);
}

std::string render_heatmaps(const Terminal& terminal, const DynamicTensor& values,
                            const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& column_labels,
                            const std::vector<std::string>& axis_names) {
    std::string out;
    for (const std::string& one : render_heatmap_grids(terminal, values, row_labels, column_labels, axis_names)) out += one;
    return out;
}

std::vector<std::string> render_heatmap_grids(const Terminal& terminal, const DynamicTensor& values,
                                              const std::vector<std::string>& row_labels,
                                              const std::vector<std::string>& column_labels,
                                              const std::vector<std::string>& axis_names) {
    const std::size_t rank = values.dimension();
    if (rank == 0 || rank > 4) {
        throw InputError("heatmap: a tensor of rank " + std::to_string(rank) + " cannot be drawn; expected rank 1 to 4");
    }
    if (rank == 1) return {grid(terminal, values.data(), 1, values.shape()[0], row_labels, column_labels)};
    const std::size_t rows = values.shape()[rank - 2], columns = values.shape()[rank - 1];
    std::size_t grids = 1;
    for (std::size_t d = 0; d + 2 < rank; ++d) grids *= values.shape()[d];
    std::vector<std::string> out;
    for (std::size_t g = 0; g < grids; ++g) {
        std::string caption_line;
        if (rank > 2) {
            // "batch 1 · head 0": the leading indices of this grid.
            std::string caption;
            std::size_t rest = g;
            std::vector<std::size_t> index(rank - 2);
            for (std::size_t d = rank - 2; d-- > 0;) {
                index[d] = rest % values.shape()[d];
                rest /= values.shape()[d];
            }
            for (std::size_t d = 0; d < index.size(); ++d) {
                const std::string name = d < axis_names.size() ? axis_names[d] : "index " + std::to_string(d);
                caption += (d ? " · " : "") + name + " " + std::to_string(index[d]);
            }
            caption_line = "  " + paint(terminal, Style::bold, caption) + "\n";
        }
        out.push_back(caption_line + grid(terminal, values.data() + g * rows * columns, rows, columns, row_labels, column_labels));
    }
    return out;
}

}  // namespace attn::tutor
