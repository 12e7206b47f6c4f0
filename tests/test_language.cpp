// tutor/language.hpp: which language the tutor speaks (--lang, ATTN_LANG, the locale as POSIX
// reads it, English), its words through the gettext catalogue, and numbers that keep their
// decimal point whatever the language.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "attn/error.hpp"
#include "support/temp_dir.hpp"
#include "tutor/language.hpp"
#include "tutor/lesson/tensor_format.hpp"

namespace {

using attn::tutor::choose_language;
using attn::tutor::LanguageEnvironment;

// Leaves the process speaking English, as every other test expects.
struct SpeakEnglishAfterwards {
    ~SpeakEnglishAfterwards() { attn::tutor::use_language("en"); }
};

}  // namespace

TEST_CASE("language - --lang, then ATTN_LANG, then LC_ALL, LC_MESSAGES, LANG, then English", "[language]") {
    CHECK(choose_language("", {}) == "en");
    CHECK(choose_language("", {{"LANG", "es_ES.UTF-8"}}) == "es");
    CHECK(choose_language("", {{"LANG", "es"}}) == "es");
    CHECK(choose_language("", {{"LANG", "es_MX"}}) == "es");
    CHECK(choose_language("", {{"LANG", "en_US.UTF-8"}}) == "en");
    CHECK(choose_language("", {{"LANG", "fr_FR.UTF-8"}}) == "en");  // no French edition: English
    CHECK(choose_language("", {{"LANG", "estonian"}}) == "en");     // "es" must be the whole language
    // POSIX: the first of LC_ALL, LC_MESSAGES, LANG that is set decides, even when it is English.
    CHECK(choose_language("", {{"LC_MESSAGES", "es_ES.UTF-8"}, {"LANG", "en_US.UTF-8"}}) == "es");
    CHECK(choose_language("", {{"LC_MESSAGES", "C"}, {"LANG", "es_ES.UTF-8"}}) == "en");
    CHECK(choose_language("", {{"LC_ALL", "es_ES.UTF-8"}, {"LC_MESSAGES", "en_US.UTF-8"}, {"LANG", "en_US.UTF-8"}}) == "es");
    CHECK(choose_language("", {{"LC_ALL", "C"}, {"LC_MESSAGES", "es_ES.UTF-8"}}) == "en");
    CHECK(choose_language("", {{"LC_ALL", ""}, {"LC_MESSAGES", ""}, {"LANG", "es_ES.UTF-8"}}) == "es");  // empty: unset
    // ATTN_LANG before the locale, in both directions.
    CHECK(choose_language("", {{"ATTN_LANG", "es"}, {"LC_ALL", "en_US.UTF-8"}}) == "es");
    CHECK(choose_language("", {{"ATTN_LANG", "en"}, {"LC_ALL", "es_ES.UTF-8"}}) == "en");
    CHECK(choose_language("", {{"ATTN_LANG", "es_ES.UTF-8"}}) == "es");
    CHECK(choose_language("", {{"ATTN_LANG", ""}, {"LANG", "es_ES.UTF-8"}}) == "es");
    // --lang before everything.
    CHECK(choose_language("en", {{"ATTN_LANG", "es"}, {"LC_ALL", "es_ES.UTF-8"}}) == "en");
    CHECK(choose_language("es", {{"ATTN_LANG", "en"}}) == "es");
}

TEST_CASE("language - an unknown language is bad input naming it and the choices", "[language]") {
    CHECK_THROWS_AS(choose_language("fr", {}), attn::InputError);
    CHECK_THROWS_WITH(choose_language("fr", {}), Catch::Contains("--lang fr") && Catch::Contains("en, es"));
    CHECK_THROWS_WITH(choose_language("es_ES", {}), Catch::Contains("--lang es_ES"));  // --lang takes the short name
    CHECK_THROWS_WITH(choose_language("", {{"ATTN_LANG", "klingon"}}), Catch::Contains("ATTN_LANG=klingon") && Catch::Contains("en, es"));
    // Unprintable bytes from the command line are not echoed raw.
    CHECK_THROWS_WITH(choose_language("\x1b[31m", {}), !Catch::Contains("\x1b"));
}

TEST_CASE("language - {n} placeholders are filled in the translation's order", "[language]") {
    CHECK(attn::tutor::trf("{1} passed, {2} failed", {"3", "0"}) == "3 passed, 0 failed");
    CHECK(attn::tutor::trfc("lesson checks", "{1} passed, {2} failed", {"3", "0"}) == "3 passed, 0 failed");
    // English plural forms without a catalogue: the singular for 1 only.
    CHECK(attn::tutor::trn("{1} hint seen", "{1} hints seen", 1, {"1"}) == "1 hint seen");
    CHECK(attn::tutor::trn("{1} hint seen", "{1} hints seen", 0, {"0"}) == "0 hints seen");
    CHECK(attn::tutor::trn("{1} hint seen", "{1} hints seen", 5, {"5"}) == "5 hints seen");
    CHECK(attn::tutor::trf("Lesson {1} checked", {"7"}) == "Lesson 7 checked");
    // Braces that are not a placeholder stay as they are.
    CHECK(attn::tutor::trf("{x} {} {9} {1}", {"a"}) == "{x} {} {9} a");
}

TEST_CASE("language - Spanish through the catalogue, with numbers still written with a decimal point", "[language]") {
    SpeakEnglishAfterwards restore;
    const char* language_variable = std::getenv("LANGUAGE");
    const std::string language_before = language_variable ? language_variable : "(unset)";
    REQUIRE(attn::tutor::use_language("es"));
    CHECK(attn::tutor::current_language() == "es");
    CHECK(attn::tutor::tr("Introduction") == "Introducción");
    // One English message, two Spanish ones by the gender of what is counted (msgctxt).
    CHECK(attn::tutor::trfc("lesson checks", "{1} passed, {2} failed", {"24", "0"}) == "24 correctas, 0 fallidas");
    CHECK(attn::tutor::trfc("exercise cases", "{1} passed, {2} failed", {"8", "0"}) == "8 casos correctos, 0 fallidos");
    CHECK(attn::tutor::trfc("no such context", "{1} passed, {2} failed", {"3", "0"}) == "3 passed, 0 failed");
    // Plural forms through ngettext: the singular for 1 only.
    CHECK(attn::tutor::trn("not passing yet ({1} hint seen)", "not passing yet ({1} hints seen)", 1, {"1"}) ==
          "aún no superado (1 pista vista)");
    CHECK(attn::tutor::trn("not passing yet ({1} hint seen)", "not passing yet ({1} hints seen)", 2, {"2"}) ==
          "aún no superado (2 pistas vistas)");
    CHECK(attn::tutor::trn("not passing yet ({1} hint seen)", "not passing yet ({1} hints seen)", 0, {"0"}) ==
          "aún no superado (0 pistas vistas)");
    CHECK(attn::tutor::trf("Hint {1} of {2}", {"2", "3"}) == "Pista 2 de 3");
    CHECK(attn::tutor::tr("a string the catalogue does not have") == "a string the catalogue does not have");
    // Only LC_MESSAGES changed: printf and the PyTorch-style printer keep the decimal point.
    char text[32];
    std::snprintf(text, sizeof text, "%.4f %g", 1.5, 0.25);
    CHECK(std::string(text) == "1.5000 0.25");
    attn::DynamicTensor tensor = attn::DynamicTensor::from_shape({2});
    tensor(0) = 0.5;
    tensor(1) = -1.25;
    CHECK(attn::tutor::format_like_pytorch(tensor) == "tensor([ 0.5000, -1.2500])");

    attn::tutor::use_language("en");
    CHECK(attn::tutor::tr("Introduction") == "Introduction");
    language_variable = std::getenv("LANGUAGE");
    CHECK((language_variable ? language_variable : "(unset)") == language_before);  // LANGUAGE as it was
}

TEST_CASE("language - a file's edition in the current language, else the file itself", "[language]") {
    SpeakEnglishAfterwards restore;
    attn::testing::TempDir dir;
    attn::testing::write_file(dir.path() + "/hints.md", "# Hints\n");
    attn::testing::write_file(dir.path() + "/hints.es.md", "# Pistas\n");
    attn::testing::write_file(dir.path() + "/stub.cpp", "// stub\n");
    attn::tutor::use_language("en");
    CHECK(attn::tutor::localized_file(dir.path() + "/hints.md") == dir.path() + "/hints.md");
    attn::tutor::use_language("es");
    CHECK(attn::tutor::localized_file(dir.path() + "/hints.md") == dir.path() + "/hints.es.md");
    CHECK(attn::tutor::localized_file(dir.path() + "/stub.cpp") == dir.path() + "/stub.cpp");  // no stub.es.cpp here
}
