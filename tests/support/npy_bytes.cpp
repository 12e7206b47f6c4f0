#include "support/npy_bytes.hpp"

namespace attn::testing {

std::vector<double> sample_values(std::size_t count) {
    std::vector<double> values;
    for (std::size_t i = 0; i < count; ++i) values.push_back((static_cast<double>(i) - 3.0) * 0.37 + 1.0 / 3.0);
    return values;
}

std::string npy_with_header(const std::string& header_dict, const std::string& data, int major_version) {
    const std::size_t prefix = major_version == 1 ? 10 : 12;
    std::string header = header_dict;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += static_cast<char>(major_version);
    bytes += '\0';
    const std::size_t length_bytes = major_version == 1 ? 2 : 4;
    for (std::size_t i = 0; i < length_bytes; ++i) bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return bytes + header + data;
}

}  // namespace attn::testing
