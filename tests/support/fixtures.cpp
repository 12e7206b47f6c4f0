#include "support/fixtures.hpp"

#include <algorithm>
#include <fstream>

#include "attn/npy_tensor.hpp"

namespace attn::testing {

DynamicTensor load_tensor(const std::filesystem::path& path) { return read_npy_tensor(path.string()); }

std::string npy_bytes(const std::string& descr, const std::string& fortran, const std::string& shape,
                      std::size_t data_bytes) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    return bytes + header + std::string(data_bytes, '\0');
}

std::map<std::string, std::string> read_key_values(const std::filesystem::path& path) {
    std::map<std::string, std::string> values;
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) {
        const auto equals = line.find('=');
        if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
    }
    return values;
}

std::vector<std::filesystem::path> fixture_cases(const std::string& module) {
    return fixture_cases(ATTN_SOURCE_DIR "/tests/data/compute", module);
}

std::vector<std::filesystem::path> fixture_cases(const std::filesystem::path& folder, const std::string& module) {
    std::vector<std::filesystem::path> cases;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        const std::string name = entry.path().filename().string();
        // "mha-" must not also pick up a module named "mha-something": the case names follow the module's.
        if (name.rfind(module + "-", 0) == 0) cases.push_back(entry.path());
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

}  // namespace attn::testing
