#include "support/temp_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace attn::testing {

TempDir::TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/attn-test-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("cannot create a temporary folder");
    path_ = buffer.data();
}

TempDir::~TempDir() {
    std::error_code ignored;
    // Make everything writable again first: some tests take permissions away.
    // Links are skipped: permissions() follows them, and a test's link to /dev/null must not make
    // the machine's /dev/null executable.
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path_, ignored)) {
        if (entry.is_symlink(ignored)) continue;
        std::filesystem::permissions(entry.path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ignored);
    }
    std::filesystem::remove_all(path_, ignored);
}

void write_file(const std::string& path, const std::string& contents) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!file) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

std::string as_handed_in(const std::string& file) {
    static TempDir copies;
    const std::string text = read_file(file);
    const std::string marker = "#include \"../independent/";
    const auto at = text.find(marker);
    if (at == std::string::npos) return file;
    const auto name_start = at + std::string("#include \"").size();
    const std::string included = text.substr(name_start, text.find('"', name_start) - name_start);
    const auto end = text.find('\n', at);
    const std::string folder = file.substr(0, file.rfind('/') + 1);
    const std::string copy = copies.path() + "/" + file.substr(file.rfind('/') + 1);
    write_file(copy, text.substr(0, at) + read_file(folder + included) + (end == std::string::npos ? "" : text.substr(end + 1)));
    return copy;
}

}  // namespace attn::testing
