#include "support/hostile_checks.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

#include "attn/npy.hpp"
#include "support/temp_dir.hpp"

namespace attn::testing {

namespace fs = std::filesystem;

std::map<std::string, std::string> snapshot(const std::string& folder) {
    std::map<std::string, std::string> files;
    if (!fs::is_directory(folder)) return files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        const std::string name = entry.path().filename().string();
        files[name] = fs::is_directory(fs::symlink_status(entry.path())) ? "(a folder)" : read_file(entry.path().string());
    }
    return files;
}

bool has_control_byte(const std::string& text) {
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F) return true;
    }
    return false;
}

CommandResult expect_refused(const std::vector<std::string>& arguments, const std::vector<std::string>& fragments,
                             const std::map<std::string, std::string>& environment) {
    const CommandResult r = run_attn(arguments, environment, hostile_time_limit);
    INFO("stderr: " << r.err << "\nstdout: " << r.out);
    CHECK(r.exit_code == 2);
    for (const auto& fragment : fragments) CHECK_THAT(r.err, Catch::Contains(fragment));
    CHECK_FALSE(has_control_byte(r.err));
    return r;
}

void save_npy(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values,
              NpyDtype dtype) {
    write_file(path, encode_npy(shape, values, dtype));
}

void save_identity_attention(const std::string& in, std::size_t D) {
    std::vector<double> eye(D * D, 0.0), zeros(D, 0.0);
    for (std::size_t i = 0; i < D; ++i) eye[i * D + i] = 1.0;
    for (const char* name : {"w_q", "w_k", "w_v", "w_o"}) {
        write_file(in + "/" + name + ".npy", encode_npy({D, D}, eye, NpyDtype::float64));
    }
    for (const char* name : {"b_q", "b_k", "b_v", "b_o"}) {
        write_file(in + "/" + name + ".npy", encode_npy({D}, zeros, NpyDtype::float64));
    }
}

}  // namespace attn::testing
