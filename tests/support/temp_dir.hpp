// tests/support/temp_dir.hpp — a fresh folder that is deleted, with its contents, at scope exit.
//
//   attn::testing::TempDir dir;
//   write_file(dir.path() + "/x.npy", bytes);
#pragma once

#include <string>

namespace attn::testing {

class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

/// Writes `contents` to `path` (binary), creating or truncating it.
void write_file(const std::string& path, const std::string& contents);

/// The bytes of the file at `path`; empty when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace attn::testing
