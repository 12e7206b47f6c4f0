// Every input the fuzzers (fuzz/) ever found a problem with, replayed through the same checks
// the harnesses make (fuzz/fuzz_targets.hpp): the reader returns or throws attn::InputError, and
// every text it produces is printable. A finding goes into tests/data/fuzz_regressions/ named
// <target>-<what it broke>.<ext>, where target is npy, npz, tensor_literal, lesson_document or tokens;
// the specific assertion about it goes into the reader's own test file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "fuzz_targets.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

TEST_CASE("every saved fuzz finding now passes its harness's checks", "[fuzz][errors]") {
    const std::map<std::string, void (*)(const std::string&)> targets = {
        {"npy", attn::fuzz::npy_input},
        {"npz", attn::fuzz::npz_input},
        {"tensor_literal", attn::fuzz::tensor_literal_input},
        {"lesson_document", attn::fuzz::lesson_document_input},
        {"tokens", attn::fuzz::tokens_input},
    };
    std::vector<fs::path> findings;
    for (const auto& entry : fs::directory_iterator(ATTN_SOURCE_DIR "/tests/data/fuzz_regressions")) {
        findings.push_back(entry.path());
    }
    std::sort(findings.begin(), findings.end());
    REQUIRE_FALSE(findings.empty());
    for (const auto& path : findings) {
        const std::string name = path.filename().string();
        const auto target = targets.find(name.substr(0, name.find('-')));
        INFO(name);
        REQUIRE(target != targets.end());  // the name says which harness it belongs to
        CHECK_NOTHROW(target->second(attn::testing::read_file(path.string())));
    }
}

TEST_CASE("the harnesses' own checks catch what they are meant to", "[fuzz]") {
    CHECK_THROWS_AS(attn::fuzz::require_printable("a\033[31m", "text"), std::logic_error);
    CHECK_NOTHROW(attn::fuzz::require_printable("a\tb\nc\xEF\xBF\xBD", "text"));
}
