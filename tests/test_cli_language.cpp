// The tutor in Spanish, through the real `attn`: the language chosen by --lang, ATTN_LANG or the
// locale; the Spanish lesson with Spanish frame text and numbers printed exactly as in English;
// every Spanish block checked; the fallback to English with a one-line note; an exercise whose
// mistake and hint are named in Spanish.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <sstream>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/unwrapped.hpp"

namespace {

using attn::testing::CommandResult;
using attn::testing::run_attn;
using attn::testing::TempDir;
namespace fs = std::filesystem;

// The environment with nothing of the machine's own language choice left: every variable that
// chooses is given, empty unless `chosen` sets it.
std::map<std::string, std::string> language_environment(const std::map<std::string, std::string>& chosen) {
    std::map<std::string, std::string> environment = {{"ATTN_LANG", ""}, {"LC_ALL", ""}, {"LC_MESSAGES", ""}, {"LANG", ""}};
    for (const auto& [name, value] : chosen) environment[name] = value;
    return environment;
}

// The lines of a walkthrough that print tensors: "  tensor([[…" and the rows that follow.
std::vector<std::string> number_lines(const std::string& text) {
    static const std::regex tensor_line(R"(^\s+(tensor\(|\[).*)");
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        if (std::regex_match(line, tensor_line)) lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST_CASE("cli language - LANG=es_ES.UTF-8 attn lesson 1 --no-pause is the Spanish lesson, numbers as in English",
          "[cli][language]") {
    const CommandResult spanish = run_attn({"lesson", "1", "--no-pause"}, language_environment({{"LANG", "es_ES.UTF-8"}}));
    const CommandResult english = run_attn({"lesson", "1", "--no-pause"}, language_environment({}));
    INFO(spanish.out << spanish.err);
    REQUIRE(spanish.exit_code == 0);
    REQUIRE(english.exit_code == 0);
    CHECK(spanish.err.empty());
    // The Spanish document, and the tutor's own words in Spanish.
    CHECK_THAT(spanish.out, Catch::Contains("Lección 1 — Atención por producto escalar") &&
                                Catch::Contains("── Paso 2 — Puntuaciones") && Catch::Contains(" (README.es.md:") &&
                                Catch::Contains("Lección 1 comprobada") && Catch::Contains("correctas, 0 fallidas") &&
                                Catch::Contains("Te toca:"));
    // A check's phrases, wherever the width puts its line break.
    CHECK_THAT(attn::testing::unwrapped(spanish.out), Catch::Contains("): coincide · máx |Δ| ") && Catch::Contains(" valores"));
    CHECK_THAT(spanish.out, !Catch::Contains("matches") && !Catch::Contains(" passed, ") && !Catch::Contains("README.md:") &&
                                !Catch::Contains("max |Δ|") && !Catch::Contains(" values"));
    // Every number exactly as the English edition prints it: no decimal comma, same digits.
    const auto spanish_numbers = number_lines(spanish.out), english_numbers = number_lines(english.out);
    CHECK(spanish_numbers.size() >= 10);
    CHECK(spanish_numbers == english_numbers);
    CHECK_THAT(spanish.out, Catch::Contains("tensor([[") && !Catch::Contains("0,5"));
}

TEST_CASE("cli language - the choice: --lang, then ATTN_LANG, then LC_ALL, LC_MESSAGES, LANG, then English", "[cli][language]") {
    struct Choice {
        std::vector<std::string> arguments;
        std::map<std::string, std::string> environment;
        bool spanish;
    };
    const std::vector<Choice> choices = {
        {{"list"}, {}, false},
        {{"list"}, {{"LANG", "es_ES.UTF-8"}}, true},
        {{"list"}, {{"LC_MESSAGES", "es_AR.UTF-8"}, {"LANG", "en_GB.UTF-8"}}, true},
        {{"list"}, {{"LC_ALL", "C.UTF-8"}, {"LANG", "es_ES.UTF-8"}}, false},
        {{"list"}, {{"LC_ALL", "es_ES.UTF-8"}, {"LC_MESSAGES", "C"}}, true},
        {{"list"}, {{"ATTN_LANG", "en"}, {"LC_ALL", "es_ES.UTF-8"}}, false},
        {{"list"}, {{"ATTN_LANG", "es"}, {"LANG", "C"}}, true},
        {{"list", "--lang", "en"}, {{"ATTN_LANG", "es"}}, false},
        {{"list", "--lang", "es"}, {{"ATTN_LANG", "en"}}, true},
        {{"progress", "--lang", "es"}, {}, true},
    };
    for (const auto& choice : choices) {
        std::string described;
        for (const auto& [name, value] : choice.environment) described += name + "=" + value + " ";
        for (const auto& word : choice.arguments) described += word + " ";
        INFO(described);
        TempDir state;
        auto environment = language_environment(choice.environment);
        environment["ATTN_STATE_DIR"] = state.path();
        const CommandResult r = run_attn(choice.arguments, environment);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
        if (choice.arguments[0] == "list") {
            CHECK((r.out.find("Lección 1 — Atención por producto escalar") != std::string::npos) == choice.spanish);
            CHECK((r.out.find("Empieza con: attn lesson 1") != std::string::npos) == choice.spanish);
            CHECK((r.out.find("Lesson 1 — Dot-product attention") != std::string::npos) == !choice.spanish);
        } else {
            CHECK_THAT(r.out, Catch::Contains("sin empezar") && Catch::Contains("ejercicios superados"));
        }
    }
}

TEST_CASE("cli language - an unknown language is exit 2, naming it and the choices", "[cli][language]") {
    for (const auto& command : {"list", "lesson", "check", "exercise", "progress"}) {
        std::vector<std::string> arguments = {command, "--lang", "fr"};
        if (std::string(command) == "lesson" || std::string(command) == "exercise") arguments.insert(arguments.begin() + 1, "1");
        const CommandResult r = run_attn(arguments, language_environment({}));
        INFO(command << "\n" << r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("--lang fr") && Catch::Contains("en, es"));
        CHECK(r.out.empty());
    }
    const CommandResult r = run_attn({"list"}, language_environment({{"ATTN_LANG", "de"}}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("ATTN_LANG=de") && Catch::Contains("en, es"));
}

TEST_CASE("cli language - attn check --lang es passes every block of every Spanish lesson", "[cli][language]") {
    const CommandResult spanish = run_attn({"check", "--lang", "es", "--width", "200"}, language_environment({}));
    const CommandResult english = run_attn({"check", "--width", "200"}, language_environment({}));
    INFO(spanish.out << spanish.err);
    CHECK(spanish.exit_code == 0);
    CHECK(spanish.err.empty());
    CHECK_THAT(spanish.out, Catch::Contains(" correctas, 0 fallidas") && !Catch::Contains("✗") && !Catch::Contains("README.md:"));
    // The same checks as the English editions, one per block, each against README.es.md.
    const auto count = [](const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(count(spanish.out, "✓") == count(english.out, "✓"));
    CHECK(count(spanish.out, "(README.es.md:") == count(spanish.out, "✓"));
    CHECK(count(spanish.out, "✓") >= 50);
}

TEST_CASE("cli language - a lesson without the chosen edition falls back to English with a one-line note", "[cli][language]") {
    TempDir lessons;
    fs::create_directories(lessons.path() + "/01-dot-product");
    fs::copy_file(ATTN_SOURCE_DIR "/lessons/01-dot-product/README.md", lessons.path() + "/01-dot-product/README.md");
    for (const std::vector<std::string>& arguments :
         {std::vector<std::string>{"lesson", "1", "--no-pause"}, {"check"}, {"list"}}) {
        std::vector<std::string> full = {"--lessons-dir", lessons.path()};
        full.insert(full.end(), arguments.begin(), arguments.end());
        full.insert(full.end(), {"--lang", "es"});
        const CommandResult r = run_attn(full, language_environment({}));
        INFO(arguments[0] << "\n" << r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.err, Catch::Contains("nota: la lección 1 no tiene edición en este idioma") &&
                              Catch::Contains("README.es.md") && Catch::Contains("se muestra la inglesa"));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one line
        CHECK_THAT(r.out, Catch::Contains("Lesson 1 — Dot-product attention") || Catch::Contains("(README.md:"));
    }
}

TEST_CASE("cli language - an exercise run in Spanish names its mistake and its hint in Spanish", "[cli][language][exercises]") {
    TempDir state;
    auto environment = language_environment({{"ATTN_LANG", "es"}});
    environment["ATTN_STATE_DIR"] = state.path();
    const CommandResult r = run_attn(
        {"exercise", "1", "--file", attn::testing::as_handed_in(ATTN_SOURCE_DIR "/tests/data/exercises/planted/squeeze_trap.cpp")}, environment, 600);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(attn::testing::unwrapped(r.out), Catch::Contains("Ejercicio 1 · atención por producto escalar") &&
                          Catch::Contains("el ejemplo resuelto (valores del documento de la lección)") &&
                          Catch::Contains("esperado:") && Catch::Contains("obtenido:"));
    CHECK_THAT(attn::testing::unwrapped(r.out), Catch::Contains("Tus números coinciden con un error clásico en todos los casos que permiten distinguirlo: "
                                      "todos los pesos valen 1") &&
                          Catch::Contains("la trampa de `.squeeze()` de la lección 1"));
    // The first hint (they climb from it), from hints.es.md.
    CHECK_THAT(r.out, Catch::Contains("Pista 1 de 3 (scores)") && Catch::Contains("Trabaja frase a frase"));
    CHECK_THAT(r.out, !Catch::Contains("Hint ") && !Catch::Contains("Your numbers"));
    // Numbers keep their decimal point.
    CHECK_THAT(r.out, Catch::Contains("tensor([[9.1105e-04, 9.9909e-01],"));
}

TEST_CASE("cli language - exercise 7 run in Spanish names its tile-skip mistake and its hint in Spanish",
          "[cli][language][exercises][slow]") {
    TempDir state;
    auto environment = language_environment({});
    environment["ATTN_STATE_DIR"] = state.path();
    const CommandResult r = run_attn({"exercise", "7", "--lang", "es", "--file",
                                      attn::testing::as_handed_in(ATTN_SOURCE_DIR "/tests/data/exercises/planted/tile_skip_first_query.cpp")},
                                     environment, 600);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(attn::testing::unwrapped(r.out), Catch::Contains("Ejercicio 7 · el softmax en línea") &&
                          Catch::Contains("el ejemplo causal de la lección: seis tokens, bloques de dos consultas y dos claves, "
                                          "tres bloques saltados") &&
                          Catch::Contains("causal, B = 1, T = S = 8, bloques de 4 consultas y 3 claves"));
    CHECK_THAT(attn::testing::unwrapped(r.out), Catch::Contains("Tus números coinciden con un error clásico en todos los casos que permiten distinguirlo: "
                                      "el salto causal de bloques compara la primera clave del bloque con su primera consulta "
                                      "en lugar de con la última (lección 7, paso 8)"));
    // The hint about the skipped tiles, from hints.es.md.
    CHECK_THAT(r.out, Catch::Contains("Pista 1 de 3 (tile_computed, tile_counts)") &&
                          Catch::Contains("Los bucles ya están escritos"));
    CHECK_THAT(r.out, !Catch::Contains("Hint ") && !Catch::Contains("Your numbers") && !Catch::Contains("tiles of"));
}

TEST_CASE("cli language - exercise 7 in Spanish: the solution passes, the Spanish stub fails as not implemented, in Spanish",
          "[cli][language][exercises][slow]") {
    TempDir state;
    auto environment = language_environment({});
    environment["ATTN_STATE_DIR"] = state.path();
    const CommandResult solved = run_attn(
        {"exercise", "7", "--lang", "es", "--file", ATTN_SOURCE_DIR "/lessons/07-online-softmax/exercise/solution.cpp"}, environment, 600);
    INFO(solved.out << solved.err);
    CHECK(solved.exit_code == 0);
    CHECK_THAT(solved.out, Catch::Contains("9 casos correctos, 0 fallidos") && Catch::Contains("El ejercicio 7 está superado."));
    const CommandResult stub = run_attn(
        {"exercise", "7", "--lang", "es", "--file", ATTN_SOURCE_DIR "/lessons/07-online-softmax/exercise/stub.es.cpp"}, environment, 600);
    INFO(stub.out << stub.err);
    CHECK(stub.exit_code == 1);
    CHECK_THAT(stub.out, Catch::Contains("lección 7: exercise::online_softmax_attention aún no está implementada") &&
                             Catch::Contains("aún no implementado") && Catch::Contains("Pista 1 de 3 (tile_computed, tile_counts)"));
}

namespace {

// A C++ file without its comments and with every string literal emptied: the code alone.
std::string code_of(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 2, "//") == 0) {
            i = text.find('\n', i);
            if (i == std::string::npos) break;
            out += '\n';
        } else if (text[i] == '"') {
            std::size_t end = i + 1;
            while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
            out += "\"\"";
            i = end;
        } else {
            out += text[i];
        }
    }
    // Folded white space: a translated comment may take more or fewer lines.
    std::string folded;
    for (char c : out) {
        const bool space = c == ' ' || c == '\n' || c == '\t';
        if (space && (folded.empty() || folded.back() == ' ')) continue;
        folded += space ? ' ' : c;
    }
    return folded;
}

}  // namespace

TEST_CASE("cli language - a Spanish stub is its stub's code with Spanish comments and messages", "[cli][language][exercises]") {
    std::size_t spanish_stubs = 0;
    for (const auto& entry : fs::directory_iterator(ATTN_SOURCE_DIR "/lessons")) {
        const fs::path stub = entry.path() / "exercise" / "stub.cpp", spanish = entry.path() / "exercise" / "stub.es.cpp";
        if (!fs::is_regular_file(stub)) continue;
        INFO(spanish.string());
        REQUIRE(fs::is_regular_file(spanish));  // every exercise has its Spanish stub
        ++spanish_stubs;
        const std::string english_text = attn::testing::read_file(stub.string()), spanish_text = attn::testing::read_file(spanish.string());
        CHECK(code_of(spanish_text) == code_of(english_text));
        CHECK(spanish_text != english_text);
        CHECK_THAT(spanish_text, Catch::Contains("aún no está implementada"));
    }
    CHECK(spanish_stubs >= 7);
}

TEST_CASE("cli language - the Spanish stub of exercise 1 fails as not implemented, in Spanish, with the first hint",
          "[cli][language][exercises][slow]") {
    TempDir state;
    auto environment = language_environment({});
    environment["ATTN_STATE_DIR"] = state.path();
    const CommandResult r = run_attn(
        {"exercise", "1", "--lang", "es", "--file", ATTN_SOURCE_DIR "/lessons/01-dot-product/exercise/stub.es.cpp"}, environment, 600);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("lección 1: exercise::dot_attention aún no está implementada") &&
                          Catch::Contains("aún no implementado") && Catch::Contains("Pista 1 de 3 (scores)"));
}
