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

/// A planted or hostile student file (tests/data/exercises) that #includes
/// "../independent/slug.cpp" on one line, as the student would hand it in: a copy with that file
/// pasted in its place (the student's file is compiled from a copy whose include path holds only
/// what the exercise allows, so the include itself would not be found). Any other file is
/// returned as it is.
std::string as_handed_in(const std::string& file);

}  // namespace attn::testing
