// This lesson's own tests: hostile head counts through the real `attn check --lessons-dir`.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/lesson_test_case.hpp"

using attn::testing::expect_refused;
using attn::testing::TempDir;

ATTN_LESSON_TEST_CASE("hostile - heads must be a whole number in range", "[cli][hostile]") {
    TempDir dir;
    for (const auto& [heads, fragment] : std::vector<std::pair<std::string, std::string>>{
             {"[1e300]", "holds 1e+300 at [0]; it must be a whole number from 1 to 4096"},
             {"[2.5]", "holds 2.5"},
             {"[-3]", "holds -3"}}) {
        std::string text = "# Lesson " + attn::testing::this_lesson_number() + " — hostile\n\n## Weights\n\n";
        for (const char* name : {"w_q", "w_k", "w_v"}) text += std::string("```attn input ") + name + "\n[[1, 0], [0, 1]]\n```\n\n";
        for (const char* name : {"b_q", "b_k", "b_v"}) text += std::string("```attn input ") + name + "\n[0, 0]\n```\n\n";
        text += "```attn input heads\n" + heads + "\n```\n";  // line 29
        const std::string lessons = attn::testing::this_lesson_with_document(dir, text);
        INFO(heads);
        expect_refused({"--lessons-dir", lessons, "check", attn::testing::this_lesson_number()}, {"README.md:29", fragment});
    }
}
