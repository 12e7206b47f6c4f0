#include "attn/npy.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

// The .npy layout (NumPy's format.py): the magic "\x93NUMPY", a major and a minor version byte,
// the header length (2 bytes in version 1, 4 bytes in versions 2 and 3, little-endian), a Python
// dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and
// a newline, then the raw values. This code assumes a little-endian machine, as x86 and ARM are.

std::string dtype_name(NpyDtype dtype) { return dtype == NpyDtype::float32 ? "float32" : "float64"; }

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLength = 6;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
    throw InputError(name + ": " + what);
}

// The value that follows 'key': in the header dict, as raw text up to the next top-level comma.
std::string header_value(const std::string& header, const std::string& key, const std::string& name) {
    const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
    std::size_t at = std::string::npos;
    for (const auto& q : quoted) {
        at = header.find(q);
        if (at != std::string::npos) {
            at += q.size();
            break;
        }
    }
    if (at == std::string::npos) fail(name, "the .npy header has no '" + key + "' entry: " + header);
    at = header.find(':', at);
    if (at == std::string::npos) fail(name, "the .npy header is malformed near '" + key + "': " + header);
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    std::size_t end = at;
    int depth = 0;
    while (end < header.size()) {
        const char c = header[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if ((c == ',' || c == '}') && depth == 0) break;
        ++end;
    }
    std::string value = header.substr(at, end - at);
    while (!value.empty() && value.back() == ' ') value.pop_back();
    return value;
}

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
    return "'" + descr + "'";
}

std::vector<std::size_t> parse_shape(const std::string& text, const std::string& name) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') {
        fail(name, "the .npy header's shape is not a tuple: " + text);
    }
    std::vector<std::size_t> shape;
    std::string inner = text.substr(1, text.size() - 2);
    std::stringstream stream(inner);
    std::string item;
    while (std::getline(stream, item, ',')) {
        std::size_t first = item.find_first_not_of(" L");
        if (first == std::string::npos) continue;  // the empty item after "(3,"
        std::size_t last = item.find_last_not_of(" L");
        item = item.substr(first, last - first + 1);
        if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 15) {
            fail(name, "the .npy header's shape has a bad dimension '" + item + "': " + text);
        }
        shape.push_back(std::stoull(item));
    }
    return shape;
}

}  // namespace

NpyArray parse_npy(const std::string& bytes, const std::string& name) {
    if (bytes.size() < kMagicLength || std::memcmp(bytes.data(), kMagic, kMagicLength) != 0) {
        fail(name, "not a .npy file (it does not start with \\x93NUMPY); save tensors with numpy.save");
    }
    if (bytes.size() < kMagicLength + 4) fail(name, "truncated .npy file: it ends inside the header");
    const auto major = static_cast<unsigned char>(bytes[6]);
    std::size_t header_length = 0;
    std::size_t header_start = 0;
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
    if (bytes.size() < header_start + header_length) fail(name, "truncated .npy file: it ends inside the header");
    const std::string header = bytes.substr(header_start, header_length);

    NpyArray array;
    std::string descr = header_value(header, "descr", name);
    if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) descr = descr.substr(1, descr.size() - 2);
    if (descr == "<f4" || descr == "=f4") {
        array.dtype = NpyDtype::float32;
    } else if (descr == "<f8" || descr == "=f8") {
        array.dtype = NpyDtype::float64;
    } else if (descr == ">f4" || descr == ">f8") {
        fail(name, "big-endian data (dtype '" + descr + "'); save it little-endian, e.g. a.astype('<f4')");
    } else {
        fail(name, "dtype " + describe_descr(descr) +
                       " is not supported; expected float32 or float64 (in PyTorch: t.float(); in NumPy: "
                       "a.astype(numpy.float32))");
    }
    const std::string fortran = header_value(header, "fortran_order", name);
    if (fortran == "True") {
        fail(name, "the array is stored in Fortran (column-major) order; save numpy.ascontiguousarray(a) instead");
    } else if (fortran != "False") {
        fail(name, "the .npy header's fortran_order is neither True nor False: " + fortran);
    }
    array.shape = parse_shape(header_value(header, "shape", name), name);

    std::size_t count = 1;
    for (std::size_t size : array.shape) {
        if (size != 0 && count > std::numeric_limits<std::size_t>::max() / 8 / size) {
            fail(name, "the shape " + shape_string(array.shape) + " is too large");
        }
        count *= size;
    }
    const std::size_t item = array.dtype == NpyDtype::float32 ? 4 : 8;
    const std::size_t data_start = header_start + header_length;
    const std::size_t available = bytes.size() - data_start;
    if (available < count * item) {
        fail(name, "truncated .npy file: shape " + shape_string(array.shape) + " " + dtype_name(array.dtype) +
                       " needs " + std::to_string(count * item) + " bytes of data, the file has " +
                       std::to_string(available));
    }
    if (available > count * item) {
        fail(name, "the .npy file has " + std::to_string(available - count * item) +
                       " bytes more than its shape " + shape_string(array.shape) + " needs");
    }
    array.values.resize(count);
    const char* data = bytes.data() + data_start;
    for (std::size_t i = 0; i < count; ++i) {
        if (array.dtype == NpyDtype::float32) {
            float value;
            std::memcpy(&value, data + i * 4, 4);
            array.values[i] = value;
        } else {
            std::memcpy(&array.values[i], data + i * 8, 8);
        }
    }
    return array;
}

NpyArray read_npy(const std::string& path) {
    // Linux opens a folder for reading without complaint and only the read fails, which would
    // surface as "not a .npy file"; name the real problem instead.
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored)) fail(path, "cannot read: it is a folder, not a file");
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        const int error = errno;
        fail(path, std::string("cannot open: ") + (error ? std::strerror(error) : "unknown error"));
    }
    // istream::read, unlike `stream << file.rdbuf()`, reports a read error as badbit on `file`
    // instead of swallowing it, so a failing disk is not mistaken for a truncated file.
    std::string contents;
    char buffer[1 << 16];
    while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
        contents.append(buffer, static_cast<std::size_t>(file.gcount()));
    }
    if (file.bad()) {
        const int error = errno;
        fail(path, std::string("cannot read: ") + (error ? std::strerror(error) : "unknown error"));
    }
    return parse_npy(contents, path);
}

std::string encode_npy(const std::vector<std::size_t>& shape, const std::vector<double>& values, NpyDtype dtype) {
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    if (count != values.size()) {
        throw std::invalid_argument("encode_npy: shape " + shape_string(shape) + " holds " + std::to_string(count) +
                                    " values, got " + std::to_string(values.size()));
    }
    std::string shape_text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) shape_text += std::to_string(shape[i]) + (i + 1 < shape.size() ? ", " : "");
    if (shape.size() == 1) shape_text += ",";
    shape_text += ")";
    std::string header = std::string("{'descr': '") + (dtype == NpyDtype::float32 ? "<f4" : "<f8") +
                         "', 'fortran_order': False, 'shape': " + shape_text + ", }";
    // Pad with spaces so that the data starts on a 64-byte boundary; the header ends with '\n'.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';

    std::string bytes(kMagic, kMagicLength);
    bytes += '\x01';
    bytes += '\x00';
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>((header.size() >> 8) & 0xff);
    bytes += header;
    const std::size_t item = dtype == NpyDtype::float32 ? 4 : 8;
    std::string data(count * item, '\0');
    for (std::size_t i = 0; i < count; ++i) {
        if (dtype == NpyDtype::float32) {
            const float value = static_cast<float>(values[i]);
            std::memcpy(&data[i * 4], &value, 4);
        } else {
            std::memcpy(&data[i * 8], &values[i], 8);
        }
    }
    return bytes + data;
}

void write_npy(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values,
               NpyDtype dtype) {
    const std::string bytes = encode_npy(shape, values, dtype);
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        if (!file) {
            const int error = errno;
            fail(path, std::string("cannot write: ") + (error ? std::strerror(error) : "unknown error"));
        }
        file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        file.close();
        if (!file) {
            std::remove(temporary.c_str());
            fail(path, "cannot write: the disk may be full");
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        std::remove(temporary.c_str());
        fail(path, std::string("cannot write: ") + std::strerror(error));
    }
}

}  // namespace attn
