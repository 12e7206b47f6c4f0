// Tests for attn/printable.hpp: what may reach a terminal. Every byte that could drive one —
// ESC and the rest of C0, DEL, C1, NUL — and every byte that is not UTF-8 becomes U+FFFD.
#include <catch2/catch.hpp>

#include <string>

#include "attn/printable.hpp"

using attn::LineBreaks;
using attn::printable_excerpt;
using attn::printable_text;

namespace {
const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD
}

TEST_CASE("printable text keeps UTF-8 and replaces control characters", "[printable]") {
    CHECK(printable_text("caf\xC3\xA9") == "caf\xC3\xA9");
    CHECK(printable_text("\xF0\x9F\x90\x95") == "\xF0\x9F\x90\x95");  // a dog, 4 bytes
    CHECK(printable_text("a\033[31mb") == "a" + replacement + "[31mb");
    CHECK(printable_text("\033]8;;http://x\033\\link") == replacement + "]8;;http://x" + replacement + "\\link");
    CHECK(printable_text(std::string("a\0b", 3)) == "a" + replacement + "b");  // NUL
    CHECK(printable_text("a\x7f" "b") == "a" + replacement + "b");              // DEL
    CHECK(printable_text("a\xC2\x9B" "31m") == "a" + replacement + "31m");      // C1 CSI, U+009B
    CHECK(printable_text("a\rb") == "a" + replacement + "b");
    CHECK(printable_text("a\tb") == "a\tb");
}

TEST_CASE("printable text replaces bytes that are not UTF-8 one by one", "[printable]") {
    CHECK(printable_text("x\xFFy") == "x" + replacement + "y");
    CHECK(printable_text("\xC0\xAF") == replacement + replacement);                  // an overlong "/"
    CHECK(printable_text("\xED\xA0\x80") == replacement + replacement + replacement);  // a surrogate
    CHECK(printable_text("\xF4\x90\x80\x80") == replacement + replacement + replacement + replacement);  // past U+10FFFF
    CHECK(printable_text("\xE2\x82") == replacement + replacement);                  // cut short
}

TEST_CASE("printable text replaces the bidirectional overrides", "[printable]") {
    CHECK(printable_text("a\xE2\x80\xAE" "b") == "a" + replacement + "b");  // U+202E RIGHT-TO-LEFT OVERRIDE
    CHECK(printable_text("a\xE2\x81\xA6" "b") == "a" + replacement + "b");  // U+2066 LEFT-TO-RIGHT ISOLATE
    CHECK(printable_text("a\xE2\x80\x94" "b") == "a\xE2\x80\x94" "b");     // an em dash stays
}

TEST_CASE("line breaks are kept only when asked", "[printable]") {
    CHECK(printable_text("one\ntwo") == "one" + replacement + "two");
    CHECK(printable_text("one\ntwo", LineBreaks::keep) == "one\ntwo");
    CHECK(printable_text("one\r\ntwo", LineBreaks::keep) == "one" + replacement + "\ntwo");
}

TEST_CASE("an excerpt is cut on a character boundary", "[printable]") {
    CHECK(printable_excerpt("short", 10) == "short");
    CHECK(printable_excerpt("abcdef", 3) == "abc…");
    CHECK(printable_excerpt("ab\xC3\xA9" "cd", 3) == "ab…");  // é is not split
    CHECK(printable_excerpt("a\033bcdef", 3) == "a" + replacement + "b…");
}
