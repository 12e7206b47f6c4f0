#include "support/interop_cases.hpp"

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/run_command.hpp"

namespace attn::testing {

namespace fs = std::filesystem;

const std::string interop_cases = ATTN_SOURCE_DIR "/tests/data/interop";

std::string copy_interop_inputs(const std::string& name, const std::string& to) {
    fs::create_directories(to);
    for (const auto& entry : fs::directory_iterator(interop_cases + "/" + name + "/in")) {
        fs::copy_file(entry.path(), to + "/" + entry.path().filename().string());
    }
    return to;
}

void expect_refused(const std::vector<std::string>& arguments, const std::vector<std::string>& fragments,
                    const std::string& out) {
    const auto r = run_attn(arguments);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 2);
    for (const auto& fragment : fragments) CHECK_THAT(r.err, Catch::Contains(fragment));
    CHECK_FALSE(fs::exists(out));
}

}  // namespace attn::testing
