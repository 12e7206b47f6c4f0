// src/exercises/student_build.hpp and sandbox.hpp's helpers: the build log cut down to what is
// about the student's file, symbols demangled, the library calls an exercise refuses, text made
// safe for a terminal, output capped.
#include <catch2/catch.hpp>

#include "exercises/sandbox.hpp"
#include "exercises/student_build.hpp"

using namespace attn::exercises;

TEST_CASE("student build - the log keeps the student's errors, their excerpts and every link error", "[exercises][build]") {
    const std::string log =
        "[1/3] Building CXX object CMakeFiles/exercise_01_student.dir/exercises/exercise_01_student.cpp.o\n"
        "In file included from /build/exercises/exercise_01_student.cpp:2:\n"
        "/src/lessons/01-dot-product/exercise/exercise.cpp:12:5: error: 'foo' was not declared in this scope\n"
        "   12 |     foo();\n"
        "      |     ^~~\n"
        "/src/lessons/01-dot-product/exercise/exercise.cpp:3:8: warning: unused variable 'x' [-Wunused-variable]\n"
        "    3 |    int x;\n"
        "      |        ^\n"
        "ninja: build stopped: subcommand failed.\n"
        "/usr/bin/ld: exercise.cpp.o: in function `exercise::dot_attention()':\n"
        "/src/lessons/01-dot-product/exercise/exercise.cpp:20: undefined reference to `_Z6helperd'\n"
        "collect2: error: ld returned 1 exit status\n";
    std::string warnings;
    const std::string kept = compiler_messages(log, "/src/lessons/01-dot-product/exercise/exercise.cpp", "/src", warnings);
    CHECK_THAT(kept, Catch::Contains("lessons/01-dot-product/exercise/exercise.cpp:12:5: error: 'foo' was not declared") &&
                         Catch::Contains("   12 |     foo();") && Catch::Contains("^~~") &&
                         Catch::Contains("lessons/01-dot-product/exercise/exercise.cpp:20: undefined reference to `helper(double)'") &&
                         Catch::Contains("ld returned 1 exit status"));
    CHECK_THAT(kept, !Catch::Contains("/src/lessons") && !Catch::Contains("ninja:") && !Catch::Contains("Building CXX") &&
                         !Catch::Contains("In file included"));
    CHECK_THAT(warnings, Catch::Contains("exercise.cpp:3:8: warning: unused variable 'x'") && Catch::Contains("    3 |    int x;"));
    CHECK_THAT(kept, !Catch::Contains("unused variable"));
}

TEST_CASE("student build - a log with nothing recognisable ends with its last lines", "[exercises][build]") {
    std::string warnings;
    const std::string kept = compiler_messages("line one\nsomething odd happened\n", "/src/x.cpp", "/src", warnings);
    CHECK_THAT(kept, Catch::Contains("something odd happened"));
}

TEST_CASE("student build - mangled symbols are demangled inside text", "[exercises][build]") {
    CHECK(demangle_symbols("undefined reference to `_ZN4attn13dot_attentionEv'") ==
          "undefined reference to `attn::dot_attention()'");
    CHECK(demangle_symbols("not_Z6helperd stays") == "not_Z6helperd stays");
    CHECK(demangle_symbols("_Zgarbage") == "_Zgarbage");
}

TEST_CASE("student build - only the library functions an exercise allows may be called", "[exercises][build]") {
    const std::string nm =
        "_ZN4attn13dot_attentionERKN2xt17xtensor_containerINS0_7uvectorIdSaIdEEELm3ELNS0_11layout_typeE1ENS0_"
        "22xtensor_expression_tagEEERKNS1_IS5_Lm2ELS6_1ES7_EE U\n"
        "_ZN4attn6linearERKN2xt17xtensor_containerINS0_7uvectorIdSaIdEEELm3ELNS0_11layout_typeE1ENS0_22xtensor_"
        "expression_tagEEERKNS1_IS5_Lm2ELS6_1ES7_EERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE U\n"
        "_ZN4attn10ShapeErrorC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE U\n"
        "_ZTIN4attn10ShapeErrorE U\n"
        "_ZSt4cout U\n"
        "exp U\n";
    CHECK(forbidden_library_calls(nm, {}) == std::vector<std::string>{"attn::dot_attention", "attn::linear"});
    CHECK(forbidden_library_calls(nm, {"attn::linear"}) == std::vector<std::string>{"attn::dot_attention"});
    CHECK(forbidden_library_calls(nm, {"attn::linear", "attn::dot_attention"}).empty());
    // A template instantiation, whose demangled name starts with its return type, is read from
    // its mangled name: the library's function is named, whatever the return type.
    CHECK(forbidden_library_calls("_ZN4attn13dot_attentionIdEEN2xt7xtensorIdLi2EEERKT_i U\n", {}) ==
          std::vector<std::string>{"attn::dot_attention"});
    CHECK(library_name_of_symbol("_ZN4attn13dot_attentionIdEEN2xt7xtensorIdLi2EEERKT_i") == "attn::dot_attention");
    CHECK(library_name_of_symbol("_ZNK4attn4fast6Engine3runEv") == "attn::fast::Engine::run");
    CHECK(library_name_of_symbol("_ZN4attn12shape_stringB5cxx11ERKSt6vectorImSaImEE") == "attn::shape_string");
    CHECK(library_name_of_symbol("_ZTIN4attn10ShapeErrorE") == "attn::ShapeError");
    CHECK(library_name_of_symbol("_ZN2xt7xtensorIN4attn3FooEE4sizeEv").empty());  // attn only in a template argument
    CHECK(library_name_of_symbol("_ZSt4cout").empty());
    // A name that merely starts like an allowed one is not allowed.
    CHECK(forbidden_library_calls("_ZN4attn13linear_helperEv U\n", {"attn::linear"}) == std::vector<std::string>{"attn::linear_helper"});
}

TEST_CASE("sandbox - text from the student's program is safe for a terminal", "[exercises][sandbox]") {
    CHECK(printable("plain\ttext\n") == "plain\ttext\n");
    CHECK(printable("\x1b[31mred\x07") == "\\x1b[31mred\\x07");
    CHECK(printable("caf\xc3\xa9 \xe2\x9c\x93") == "caf\xc3\xa9 \xe2\x9c\x93");
    CHECK(printable("bad \xff\xfe end") == "bad \xef\xbf\xbd\xef\xbf\xbd end");
    CHECK(printable("cut \xe2\x9c") == "cut \xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("sandbox - output is capped at its head and tail", "[exercises][sandbox]") {
    CappedOutput output(10, 10);
    const std::string text = "0123456789abcdefghijklmnopqrstuvwxyz";
    output.append(text.data(), 5);
    output.append(text.data() + 5, text.size() - 5);
    CHECK(output.text() == "0123456789\n… (16 bytes left out) …\nqrstuvwxyz");
    CappedOutput small(10, 10);
    small.append("short", 5);
    CHECK(small.text() == "short");
}
