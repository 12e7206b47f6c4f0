#include "tutor/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attn/error.hpp"

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

// Shade in [0, 1] for a value, on [0, 1] for weights or on min..max otherwise.
struct Scale {
    double low = 0.0, high = 1.0;
    double operator()(double value) const {
        if (!std::isfinite(value)) return value > 0 ? 1.0 : 0.0;
        if (high <= low) return 0.5;
        return std::clamp((value - low) / (high - low), 0.0, 1.0);
    }
};

Scale scale_for(const double* data, std::size_t count) {
    double low = INFINITY, high = -INFINITY;
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(data[i])) continue;
        low = std::min(low, data[i]);
        high = std::max(high, data[i]);
    }
    if (low >= 0.0 && high <= 1.0) return Scale{0.0, 1.0};
    if (low > high) return Scale{0.0, 1.0};
    return Scale{low, high};
}

std::string shaded(const Terminal& terminal, double shade, const std::string& text) {
    if (!terminal.colour) {
        static const char* const blocks[] = {" ", "░", "▒", "▓", "█"};
        const int level = std::min(4, static_cast<int>(std::lround(shade * 4.0)));
        return std::string(blocks[level]) + text;
    }
    // A grey ramp (232 = near black … 255 = near white) with text that stays readable on it.
    const int background = 232 + std::min(23, static_cast<int>(std::lround(shade * 23.0)));
    const char* foreground = shade > 0.55 ? "30" : "97";
    return "\033[48;5;" + std::to_string(background) + ";" + foreground + "m " + text + " \033[0m";
}

std::vector<std::string> default_labels(std::size_t count) {
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < count; ++i) labels.push_back(std::to_string(i));
    return labels;
}

std::string grid(const Terminal& terminal, const double* data, std::size_t rows, std::size_t columns,
                 const Scale& scale, std::vector<std::string> row_labels, std::vector<std::string> column_labels) {
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
    const std::size_t padding = terminal.colour ? 2 : 1;
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
    const std::size_t shaded_width = cell_width + padding;

    std::string out = "  " + std::string(label_width, ' ');
    for (const auto& label : column_labels) out += " " + pad_left(label, shaded_width);
    out += "\n";
    for (std::size_t r = 0; r < rows; ++r) {
        out += "  " + pad_left(row_labels[r], label_width);
        for (std::size_t c = 0; c < columns; ++c) {
            const double value = data[r * columns + c];
            out += " " + shaded(terminal, scale(value), pad_left(cells[r * columns + c], cell_width));
        }
        out += "\n";
    }
    return out;
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
    return grid(terminal, values.data(), values.shape(0), values.shape(1), scale_for(values.data(), values.size()),
                row_labels, column_labels);
}

std::string render_heatmaps(const Terminal& terminal, const DynamicTensor& values,
                            const std::vector<std::string>& row_labels,
                            const std::vector<std::string>& column_labels,
                            const std::vector<std::string>& axis_names) {
    const std::size_t rank = values.dimension();
    if (rank == 0 || rank > 4) {
        throw InputError("heatmap: a tensor of rank " + std::to_string(rank) + " cannot be drawn; expected rank 1 to 4");
    }
    const Scale scale = scale_for(values.data(), values.size());
    if (rank == 1) return grid(terminal, values.data(), 1, values.shape()[0], scale, row_labels, column_labels);
    const std::size_t rows = values.shape()[rank - 2], columns = values.shape()[rank - 1];
    std::size_t grids = 1;
    for (std::size_t d = 0; d + 2 < rank; ++d) grids *= values.shape()[d];
    std::string out;
    for (std::size_t g = 0; g < grids; ++g) {
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
            out += "  " + paint(terminal, Style::dim, caption) + "\n";
        }
        out += grid(terminal, values.data() + g * rows * columns, rows, columns, scale, row_labels, column_labels);
    }
    return out;
}

}  // namespace attn::tutor
