#include "tutor/lesson/tensor_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace attn::tutor {

namespace {

std::string printf_string(const char* format, int precision, double value) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, format, precision, value);
    return buffer;
}

std::string fixed(double value, int precision) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return printf_string("%.*f", precision, value);
}

std::string scientific(double value, int precision) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return printf_string("%.*e", precision, value);
}

// torch._tensor_str._Formatter: one format for every element, chosen from the nonzero finite ones.
class Formatter {
public:
    Formatter(const std::vector<double>& shown, const PrintOptions& options) : Formatter(shown, options.precision) {
        if (!options.integer_dtype) return;
        // torch._tensor_str._Formatter for an integer dtype: every shown value, zeros included, as
        // "{}" formats it, right-aligned to the widest.
        integer_dtype_ = true;
        width_ = 1;
        for (double v : shown) width_ = std::max(width_, integer(v).size());
    }

    Formatter(const std::vector<double>& shown, int precision) : precision_(precision) {
        std::vector<double> nonzero_finite;
        for (double v : shown) {
            if (std::isfinite(v) && v != 0.0) nonzero_finite.push_back(v);
        }
        if (nonzero_finite.empty()) return;
        double min_abs = std::fabs(nonzero_finite[0]), max_abs = min_abs;
        for (double v : nonzero_finite) {
            min_abs = std::min(min_abs, std::fabs(v));
            max_abs = std::max(max_abs, std::fabs(v));
            if (v != std::ceil(v)) int_mode_ = false;
        }
        if (int_mode_) {
            if (max_abs / min_abs > 1000.0 || max_abs > 1e8) {
                sci_mode_ = true;
                for (double v : nonzero_finite) width_ = std::max(width_, scientific(v, precision_).size());
            } else {
                for (double v : nonzero_finite) width_ = std::max(width_, fixed(v, 0).size() + 1);
            }
        } else {
            if (max_abs / min_abs > 1000.0 || max_abs > 1e8 || min_abs < 1e-4) {
                sci_mode_ = true;
                for (double v : nonzero_finite) width_ = std::max(width_, scientific(v, precision_).size());
            } else {
                for (double v : nonzero_finite) width_ = std::max(width_, fixed(v, precision_).size());
            }
        }
    }

    std::size_t width() const { return width_; }

    std::string format(double value) const {
        std::string text;
        if (integer_dtype_) {
            text = integer(value);
        } else if (sci_mode_) {
            text = scientific(value, precision_);
        } else if (int_mode_) {
            text = fixed(value, 0);
            if (std::isfinite(value)) text += ".";
        } else {
            text = fixed(value, precision_);
        }
        if (text.size() < width_) text.insert(0, width_ - text.size(), ' ');
        return text;
    }

private:
    static std::string integer(double value) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(std::llround(value)));
        return buffer;
    }

    bool integer_dtype_ = false;
    int precision_;
    bool int_mode_ = true;
    bool sci_mode_ = false;
    std::size_t width_ = 1;
};

// Walks the tensor the way the printer does, so the formatter sees exactly the printed elements.
struct Printer {
    const DynamicTensor& tensor;
    const PrintOptions& options;
    bool summarize;
    std::vector<std::size_t> strides;

    // The indices of dimension `size` that are shown; SIZE_MAX marks the "..." gap.
    std::vector<std::size_t> shown_indices(std::size_t size) const {
        std::vector<std::size_t> indices;
        if (summarize && size > 2 * options.edgeitems) {
            for (std::size_t i = 0; i < options.edgeitems; ++i) indices.push_back(i);
            indices.push_back(SIZE_MAX);
            for (std::size_t i = size - options.edgeitems; i < size; ++i) indices.push_back(i);
        } else {
            for (std::size_t i = 0; i < size; ++i) indices.push_back(i);
        }
        return indices;
    }

    void collect(std::size_t dim, std::size_t offset, std::vector<double>& out) const {
        if (dim == tensor.dimension()) {
            out.push_back(value(offset));
            return;
        }
        for (std::size_t i : shown_indices(tensor.shape()[dim])) {
            if (i != SIZE_MAX) collect(dim + 1, offset + i * strides[dim], out);
        }
    }

    double value(std::size_t offset) const {
        const double v = tensor.data()[offset];
        return options.integer_dtype ? v : static_cast<double>(static_cast<float>(v));
    }

    std::string vector_string(std::size_t offset, std::size_t indent, const Formatter& formatter) const {
        const std::size_t element_length = formatter.width() + 2;
        const std::size_t available = options.linewidth > indent ? options.linewidth - indent : 0;
        const std::size_t per_line = std::max<std::size_t>(1, available / element_length);
        std::vector<std::string> data;
        const std::size_t last = tensor.dimension() - 1;
        for (std::size_t i : shown_indices(tensor.shape()[last])) {
            data.push_back(i == SIZE_MAX ? " ..." : formatter.format(value(offset + i * strides[last])));
        }
        std::string text = "[";
        for (std::size_t i = 0; i < data.size(); ++i) {
            if (i > 0) text += (i % per_line == 0) ? ",\n" + std::string(indent + 1, ' ') : ", ";
            text += data[i];
        }
        return text + "]";
    }

    std::string tensor_string(std::size_t dim, std::size_t offset, std::size_t indent, const Formatter& formatter) const {
        if (dim == tensor.dimension() - 1) return vector_string(offset, indent, formatter);
        const std::size_t remaining = tensor.dimension() - dim;
        const std::string separator = "," + std::string(remaining - 1, '\n') + std::string(indent + 1, ' ');
        std::string text = "[";
        bool first = true;
        for (std::size_t i : shown_indices(tensor.shape()[dim])) {
            if (!first) text += separator;
            first = false;
            text += (i == SIZE_MAX) ? "..." : tensor_string(dim + 1, offset + i * strides[dim], indent + 1, formatter);
        }
        return text + "]";
    }
};

}  // namespace

std::string format_tensor_body(const DynamicTensor& tensor, std::size_t indent, const PrintOptions& options) {
    if (tensor.dimension() == 0) {
        const double v = tensor.data()[0];
        std::vector<double> one{options.integer_dtype ? v : static_cast<double>(static_cast<float>(v))};
        return Formatter(one, options).format(one[0]);
    }
    if (tensor.size() == 0) {
        if (tensor.dimension() == 1) return "[]";
        std::string size_suffix = "size=(";
        for (std::size_t d = 0; d < tensor.dimension(); ++d) size_suffix += (d ? ", " : "") + std::to_string(tensor.shape()[d]);
        size_suffix += ")";
        // torch._tensor_str._add_suffixes moves the suffix to its own line, at the indent, when
        // the line would grow past linewidth. It counts the line as 2 characters longer than it
        // is (rfind("\n") gives -1 on a single line, then +1): "tensor([]", indent + 2 long, counts
        // as indent + 4. The same off-by-two is kept here so the break falls where PyTorch's does.
        const std::size_t counted_line_length = indent + 4;
        if (counted_line_length + size_suffix.size() + 2 > options.linewidth) {
            return "[],\n" + std::string(indent, ' ') + size_suffix;
        }
        return "[], " + size_suffix;
    }
    Printer printer{tensor, options, tensor.size() > options.threshold, {}};
    printer.strides.assign(tensor.dimension(), 1);
    for (std::size_t d = tensor.dimension() - 1; d > 0; --d) printer.strides[d - 1] = printer.strides[d] * tensor.shape()[d];
    std::vector<double> shown;
    printer.collect(0, 0, shown);
    const Formatter formatter(shown, options);
    return printer.tensor_string(0, 0, indent, formatter);
}

std::string format_like_pytorch(const DynamicTensor& tensor, const PrintOptions& options) {
    const std::string prefix = "tensor(";
    return prefix + format_tensor_body(tensor, prefix.size(), options) + ")";
}

}  // namespace attn::tutor
