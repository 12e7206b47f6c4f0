#include "attn/npy.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"

namespace attn {

// The .npy layout (NumPy's format.py): the magic "\x93NUMPY", a major and a minor version byte,
// the header length (2 bytes in version 1, 4 bytes in versions 2 and 3, little-endian), a Python
// dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and
// a newline, then the raw values. This code assumes a little-endian machine, as x86 and ARM are.

std::string dtype_name(NpyDtype dtype) {
    switch (dtype) {
        case NpyDtype::float32: return "float32";
        case NpyDtype::float64: return "float64";
        case NpyDtype::boolean: return "bool";
        case NpyDtype::integer: return "integer";
    }
    return "float64";
}

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLength = 6;
// NumPy itself refuses headers over 10 000 bytes unless told otherwise; a real one is ~120 bytes.
constexpr std::size_t kMaxHeaderLength = 65536;
// NumPy's own limit on the number of axes.
constexpr std::size_t kMaxRank = 64;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
    throw InputError(printable_text(name) + ": " + what);
}

// Header text quoted in a message: control characters replaced, long headers cut.
std::string quoted_text(const std::string& text) { return printable_excerpt(text, 200); }

// The header as NumPy reads it: a Python dict literal (ast.literal_eval) with exactly the keys
// 'descr', 'fortran_order' and 'shape'. A key given twice is an error: Python would keep the last
// value, a reader that searches for the first would keep that one, and the two disagree.
struct HeaderValue {
    enum class Kind { text, word, tuple } kind = Kind::text;
    std::string text;  // a string's characters, a word (True, False, a number), or a tuple with its parentheses
};

class HeaderParser {
public:
    HeaderParser(const std::string& header, const std::string& name) : header_(header), name_(name) {}

    std::map<std::string, HeaderValue> parse() {
        std::map<std::string, HeaderValue> entries;
        skip_space();
        expect('{');
        for (;;) {
            skip_space();
            if (peek() == '}') break;
            const std::string key = quoted();
            skip_space();
            expect(':');
            skip_space();
            HeaderValue value = this->value();
            if (!entries.emplace(key, value).second) {
                malformed("gives '" + quoted_text(key) + "' twice (NumPy would keep the last, a reader that stops at "
                          "the first would not); save the file again with numpy.save");
            }
            skip_space();
            if (peek() == ',') {
                ++at_;
                continue;
            }
            if (peek() != '}') not_a_dict("expected ',' or '}' after '" + quoted_text(key) + "'");
        }
        ++at_;
        skip_space();
        if (at_ != header_.size()) not_a_dict("text follows the closing '}'");
        for (const char* key : {"descr", "fortran_order", "shape"}) {
            if (!entries.count(key)) malformed(std::string("has no '") + key + "' entry");
        }
        if (entries.size() != 3) {
            for (const auto& [key, value] : entries) {
                if (key != "descr" && key != "fortran_order" && key != "shape") {
                    malformed("has an unknown key '" + quoted_text(key) + "' (NumPy allows only descr, fortran_order and shape)");
                }
            }
        }
        return entries;
    }

private:
    char peek() const { return at_ < header_.size() ? header_[at_] : '\0'; }
    void skip_space() {
        while (at_ < header_.size() && (header_[at_] == ' ' || header_[at_] == '\t' || header_[at_] == '\n' || header_[at_] == '\r')) ++at_;
    }
    // "the .npy header WHY: {…}", the header quoted without its padding.
    [[noreturn]] void malformed(const std::string& why) const {
        const std::size_t end = header_.find_last_not_of(" \t\n\r");
        fail(name_, "the .npy header " + why + ": " + quoted_text(header_.substr(0, end == std::string::npos ? 0 : end + 1)));
    }
    [[noreturn]] void not_a_dict(const std::string& why) const { malformed("is not a Python dict literal (" + why + ")"); }
    void expect(char wanted) {
        if (peek() != wanted) not_a_dict(std::string("expected '") + wanted + "'");
        ++at_;
    }
    // 'text' or "text", without escapes (NumPy writes none).
    std::string quoted() {
        const char quote = peek();
        if (quote != '\'' && quote != '"') not_a_dict("expected a quoted key");
        const std::size_t close = header_.find(quote, at_ + 1);
        if (close == std::string::npos) not_a_dict("a string is not closed");
        std::string text = header_.substr(at_ + 1, close - at_ - 1);
        if (text.find('\\') != std::string::npos || text.find('\n') != std::string::npos) not_a_dict("a string holds an escape or a line break");
        at_ = close + 1;
        return text;
    }
    HeaderValue value() {
        HeaderValue value;
        const char c = peek();
        if (c == '\'' || c == '"') {
            value.text = quoted();
        } else if (c == '(') {
            const std::size_t close = header_.find(')', at_);
            if (close == std::string::npos) not_a_dict("a tuple is not closed");
            value.kind = HeaderValue::Kind::tuple;
            value.text = header_.substr(at_, close - at_ + 1);
            if (value.text.find_first_of("([{", 1) != std::string::npos) not_a_dict("a tuple holds a nested one");
            at_ = close + 1;
        } else {
            const std::size_t begin = at_;
            // A name (True, False, None) or a number: the checks of each key say what they expected.
            while (at_ < header_.size() && (std::isalnum(static_cast<unsigned char>(header_[at_])) ||
                                            std::string("_.+-").find(header_[at_]) != std::string::npos)) {
                ++at_;
            }
            if (at_ == begin) not_a_dict("a value is not a string, a tuple, a name or a number");
            value.kind = HeaderValue::Kind::word;
            value.text = header_.substr(begin, at_ - begin);
        }
        return value;
    }

    const std::string& header_;
    const std::string& name_;
    std::size_t at_ = 0;
};

std::string describe_descr(const std::string& descr) {
    // Human names for the dtypes people most often save by accident.
    if (descr.size() >= 3) {
        const std::string kind = descr.substr(1);
        if (kind == "i8") return "int64";
        if (kind == "i4") return "int32";
        if (kind == "f2") return "float16";
        if (kind == "b1") return "bool";
        if (kind == "u1") return "uint8";
        if (kind == "c8" || kind == "c16") return "complex";
    }
    return "'" + quoted_text(descr) + "'";
}

std::vector<std::size_t> parse_shape(const std::string& text, const std::string& name) {
    // A tuple as Python writes it: "()", "(3,)", "(2, 3)"; "(3)" is the number 3, not a tuple.
    std::vector<std::size_t> shape;
    const std::string inner = text.substr(1, text.size() - 2);
    std::vector<std::string> items;
    std::size_t from = 0;
    for (;;) {
        const std::size_t comma = inner.find(',', from);
        items.push_back(inner.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    auto trimmed = [](const std::string& item) {
        const std::size_t first = item.find_first_not_of(" \t\n");
        if (first == std::string::npos) return std::string();
        return item.substr(first, item.find_last_not_of(" \t\n") - first + 1);
    };
    const bool empty_tuple = items.size() == 1 && trimmed(items[0]).empty();
    if (!empty_tuple && items.size() == 1) {
        fail(name, "the .npy header's shape is not a tuple (a one-axis shape is written (3,)): " + quoted_text(text));
    }
    if (!empty_tuple && trimmed(items.back()).empty()) items.pop_back();  // the comma after the last item
    for (std::string item : empty_tuple ? std::vector<std::string>{} : items) {
        item = trimmed(item);
        if (!item.empty() && item.back() == 'L') item.pop_back();  // Python 2's long integers
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 15) {
            fail(name, "the .npy header's shape has a bad dimension '" + quoted_text(item) + "': " + quoted_text(text));
        }
        shape.push_back(std::stoull(item));
        if (shape.size() > kMaxRank) fail(name, "the .npy header's shape has more than " + std::to_string(kMaxRank) + " axes");
    }
    return shape;
}

}  // namespace

namespace {

// What the header says: the element type, the shape, where the values start and how many bytes
// they take.
struct NpyHeader {
    NpyDtype dtype = NpyDtype::float64;
    std::vector<std::size_t> shape;
    std::size_t count = 0;        // values
    std::size_t data_start = 0;   // bytes before the values
    std::size_t data_bytes = 0;   // count · item size
    std::size_t item_size = 8;    // bytes per value
    bool is_signed = true;        // integers: signed (i) or unsigned (u)
};

// bool and little-endian integers, accepted for masks: "|b1", "|u1", "<i8", …; false otherwise.
bool parse_mask_descr(const std::string& descr, NpyHeader& parsed) {
    if (descr == "|b1") {
        parsed.dtype = NpyDtype::boolean;
        parsed.item_size = 1;
        return true;
    }
    if (descr.size() != 3 || (descr[1] != 'i' && descr[1] != 'u')) return false;
    const char order = descr[0], size = descr[2];
    const bool one_byte = size == '1';
    if (!(one_byte ? order == '|' : (order == '<' || order == '='))) return false;
    if (size != '1' && size != '2' && size != '4' && size != '8') return false;
    parsed.dtype = NpyDtype::integer;
    parsed.item_size = static_cast<std::size_t>(size - '0');
    parsed.is_signed = descr[1] == 'i';
    return true;
}

// The preamble: magic, version and header length. Returns the offset just past the header;
// `bytes` needs only its first 12 bytes.
std::size_t header_end(const std::string& bytes, const std::string& name, std::size_t& header_start) {
    if (bytes.size() < kMagicLength || std::memcmp(bytes.data(), kMagic, kMagicLength) != 0) {
        fail(name, "not a .npy file (it does not start with \\x93NUMPY); save tensors with numpy.save");
    }
    if (bytes.size() < kMagicLength + 4) fail(name, "truncated .npy file: it ends inside the header");
    const auto major = static_cast<unsigned char>(bytes[6]);
    std::size_t header_length = 0;
    if (major == 1) {
        header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) fail(name, "truncated .npy file: it ends inside the header");
        for (int i = 3; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[8 + i]);
        header_start = 12;
    } else {
        fail(name, "unsupported .npy format version " + std::to_string(major));
    }
    if (header_length > kMaxHeaderLength) {
        fail(name, "the .npy header claims " + std::to_string(header_length) + " bytes; a real one has about 120 (at most " +
                       std::to_string(kMaxHeaderLength) + " are read)");
    }
    return header_start + header_length;
}

// Parses the header; `bytes` must hold at least the preamble and the header.
NpyHeader parse_header(const std::string& bytes, const std::string& name, NpyAccept accept) {
    std::size_t header_start = 0;
    const std::size_t end = header_end(bytes, name, header_start);
    if (bytes.size() < end) fail(name, "truncated .npy file: it ends inside the header");
    const std::string header = bytes.substr(header_start, end - header_start);

    const auto entries = HeaderParser(header, name).parse();
    NpyHeader parsed;
    const HeaderValue& descr_value = entries.at("descr");
    if (descr_value.kind != HeaderValue::Kind::text) {
        fail(name, "dtype " + quoted_text(descr_value.text) + " is not supported (a structured or unknown dtype); expected float32 or float64");
    }
    const std::string& descr = descr_value.text;
    if (accept == NpyAccept::floats_bools_integers && parse_mask_descr(descr, parsed)) {
        // a mask's bool or integer values; item_size set
    } else if (descr == "<f4" || descr == "=f4") {
        parsed.dtype = NpyDtype::float32;
        parsed.item_size = 4;
    } else if (descr == "<f8" || descr == "=f8") {
        parsed.dtype = NpyDtype::float64;
    } else if (descr == ">f4" || descr == ">f8") {
        fail(name, "big-endian data (dtype '" + descr + "'); save it little-endian, e.g. a.astype('<f4')");
    } else {
        fail(name, "dtype " + describe_descr(descr) + " is not supported; expected float32 or float64" +
                       (accept == NpyAccept::floats_bools_integers ? std::string(", bool or a little-endian integer")
                                                                   : std::string()) +
                       " (in PyTorch: t.float(); in NumPy: a.astype(numpy.float32))");
    }
    const HeaderValue& fortran = entries.at("fortran_order");
    if (fortran.kind == HeaderValue::Kind::word && fortran.text == "True") {
        fail(name, "the array is stored in Fortran (column-major) order; save numpy.ascontiguousarray(a) instead");
    } else if (fortran.kind != HeaderValue::Kind::word || fortran.text != "False") {
        fail(name, "the .npy header's fortran_order is neither True nor False: " + quoted_text(fortran.text));
    }
    const HeaderValue& shape = entries.at("shape");
    if (shape.kind != HeaderValue::Kind::tuple) fail(name, "the .npy header's shape is not a tuple: " + quoted_text(shape.text));
    parsed.shape = parse_shape(shape.text, name);
    // Overflow-safe, and refused before anything is allocated (a zero axis does not hide huge ones).
    parsed.count = checked_value_count(parsed.shape, printable_text(name));
    parsed.data_start = end;
    parsed.data_bytes = parsed.count * parsed.item_size;
    return parsed;
}

// The values must fill the rest of the file exactly.
void check_data_size(const NpyHeader& header, std::uint64_t available, const std::string& name) {
    if (available < header.data_bytes) {
        fail(name, "truncated .npy file: shape " + shape_string(header.shape) + " " + dtype_name(header.dtype) +
                       " needs " + std::to_string(header.data_bytes) + " bytes of data, the file has " +
                       std::to_string(available));
    }
    if (available > header.data_bytes) {
        fail(name, "the .npy file has " + std::to_string(available - header.data_bytes) + " bytes more than its shape " +
                       shape_string(header.shape) + " needs");
    }
}

// One value of a bool or integer array, as a double (masks hold small integers).
double integer_value(const char* at, const NpyHeader& header) {
    if (header.dtype == NpyDtype::boolean) return *at != 0 ? 1.0 : 0.0;
    std::uint64_t raw = 0;  // little-endian, item_size bytes
    for (std::size_t byte = header.item_size; byte-- > 0;) raw = (raw << 8) | static_cast<unsigned char>(at[byte]);
    const unsigned bits = 8 * static_cast<unsigned>(header.item_size);
    if (!header.is_signed) return static_cast<double>(raw);
    if (bits < 64 && (raw >> (bits - 1)) != 0) raw |= ~std::uint64_t(0) << bits;  // sign-extend
    return static_cast<double>(static_cast<std::int64_t>(raw));
}

}  // namespace

std::size_t npy_declared_size(const std::string& start, const std::string& name, NpyAccept accept) {
    if (start.size() < 12) return 0;
    std::size_t header_start = 0;
    if (header_end(start, name, header_start) > start.size()) return 0;
    const NpyHeader header = parse_header(start, name, accept);
    return header.data_start + header.data_bytes;
}

NpyArray parse_npy(const std::string& bytes, const std::string& name) { return parse_npy(bytes, name, NpyAccept::floats); }

NpyArray read_npy(const std::string& path) { return read_npy(path, NpyAccept::floats); }

NpyArray parse_npy(const std::string& bytes, const std::string& name, NpyAccept accept, NpyFloat32 float32) {
    const NpyHeader header = parse_header(bytes, name, accept);
    check_data_size(header, bytes.size() - header.data_start, name);
    NpyArray array;
    array.dtype = header.dtype;
    array.shape = header.shape;
    const char* data = bytes.data() + header.data_start;
    if (array.dtype == NpyDtype::float32 && float32 == NpyFloat32::keep) {
        array.floats.resize(header.count);
        if (header.count > 0) std::memcpy(array.floats.data(), data, header.count * 4);
        return array;
    }
    array.values.resize(header.count);
    for (std::size_t i = 0; i < header.count; ++i) {
        if (array.dtype == NpyDtype::boolean || array.dtype == NpyDtype::integer) {
            array.values[i] = integer_value(data + i * header.item_size, header);
        } else if (array.dtype == NpyDtype::float32) {
            float value;
            std::memcpy(&value, data + i * 4, 4);
            array.values[i] = value;
        } else {
            std::memcpy(&array.values[i], data + i * 8, 8);
        }
    }
    return array;
}

NpyArray read_npy(const std::string& path, NpyAccept accept, NpyFloat32 float32) {
    // Only a regular file is opened (never blocking on a FIFO, never reading /dev/zero), and no
    // more is read than its header says it holds.
    InputFile file(path);
    std::string bytes = file.read(12);
    std::size_t header_start = 0;
    const std::size_t end = header_end(bytes, path, header_start);
    if (end > bytes.size()) bytes += file.read(end - bytes.size());
    const NpyHeader header = parse_header(bytes, path, accept);
    check_data_size(header, file.size() - std::min<std::uint64_t>(file.size(), header.data_start), path);
    // One byte more than expected: a file that grew after it was opened is still refused.
    const std::size_t wanted = header.data_start + header.data_bytes + 1;
    if (wanted > bytes.size()) bytes += file.read(wanted - bytes.size());
    return parse_npy(bytes, path, accept, float32);
}

namespace {

// The magic, version 1.0 and the header of a .npy file of this descr and shape, padded with spaces
// so that the data starts on a 64-byte boundary; the header ends with '\n'.
std::string npy_preamble(const char* descr, const std::vector<std::size_t>& shape) {
    std::string shape_text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) shape_text += std::to_string(shape[i]) + (i + 1 < shape.size() ? ", " : "");
    if (shape.size() == 1) shape_text += ",";
    shape_text += ")";
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape_text + ", }";
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';

    std::string bytes(kMagic, kMagicLength);
    bytes += '\x01';
    bytes += '\x00';
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>((header.size() >> 8) & 0xff);
    return bytes + header;
}

}  // namespace

std::string encode_npy(const std::vector<std::size_t>& shape, const std::vector<double>& values, NpyDtype dtype) {
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    if (count != values.size()) {
        throw std::invalid_argument("encode_npy: shape " + shape_string(shape) + " holds " + std::to_string(count) +
                                    " values, got " + std::to_string(values.size()));
    }
    const char* descr = dtype == NpyDtype::float32 ? "<f4" : dtype == NpyDtype::float64 ? "<f8"
                        : dtype == NpyDtype::integer ? "<i8" : "|b1";
    std::string bytes = npy_preamble(descr, shape);
    const std::size_t item = dtype == NpyDtype::float32 ? 4 : dtype == NpyDtype::boolean ? 1 : 8;
    std::string data(count * item, '\0');
    for (std::size_t i = 0; i < count; ++i) {
        if (dtype == NpyDtype::float32) {
            const float value = static_cast<float>(values[i]);
            std::memcpy(&data[i * 4], &value, 4);
        } else if (dtype == NpyDtype::float64) {
            std::memcpy(&data[i * 8], &values[i], 8);
        } else if (dtype == NpyDtype::integer) {
            if (!(values[i] >= -9007199254740992.0 && values[i] <= 9007199254740992.0) || values[i] != std::trunc(values[i])) {
                throw std::invalid_argument("encode_npy: value " + std::to_string(i) + " is not an integer a double holds exactly");
            }
            const std::int64_t value = static_cast<std::int64_t>(values[i]);
            std::memcpy(&data[i * 8], &value, 8);
        } else {
            data[i] = values[i] != 0 ? '\x01' : '\x00';
        }
    }
    return bytes + data;
}

std::string encode_npy_uint8(const std::string& bytes) {
    return npy_preamble("|u1", {bytes.size()}) + bytes;
}

void write_npy(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values,
               NpyDtype dtype) {
    write_files_atomically({{path, encode_npy(shape, values, dtype)}});
}

}  // namespace attn
