// `attn train copy` through the real program: a short run prints every epoch's line, the final
// accuracy and five decodes, the same for the same seed; bad options are exit 2 naming them; Spanish.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"

using attn::testing::expect_refused;
using attn::testing::hostile_time_limit;
using attn::testing::run_attn;

namespace {

// A model small enough to train two short epochs in well under a second.
const std::vector<std::string> tiny = {"train", "copy",      "--d-model", "8", "--heads",  "2", "--layers", "1",
                                       "--d-ff",  "16",  "--batch", "4", "--steps", "3",  "--epochs", "2"};

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The run's lines without the seconds, which differ from run to run.
std::string without_times(const std::string& out) {
    std::string kept;
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        std::string line = out.substr(start, end - start);
        const auto sequences = line.find("fresh sequences  ");
        if (sequences != std::string::npos) line.erase(sequences);
        kept += line + "\n";
        start = end + 1;
    }
    return kept;
}

}  // namespace

TEST_CASE("cli train copy - a short run: every epoch, the final accuracy and five decodes, reproducible", "[cli][train][slow]") {
    const auto r = run_attn(tiny, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("D = 8, h = 2, 1 + 1 layers, F = 16") && Catch::Contains("batch 4, 3 steps per epoch") &&
                          Catch::Contains("epoch 1/2  loss ") && Catch::Contains("epoch 2/2  loss ") &&
                          Catch::Contains("of 1000 fresh sequences exactly") &&
                          Catch::Contains("Greedy decodes of fresh sequences:"));
    CHECK(count_of(r.out, "  →  1 ") == 5);  // every decode starts with the start symbol
    CHECK(r.err.empty());
    const auto again = run_attn(tiny, {}, hostile_time_limit);
    CHECK(without_times(again.out) == without_times(r.out));
    auto other_seed = tiny;
    other_seed.insert(other_seed.end(), {"--seed", "1"});
    CHECK(without_times(run_attn(other_seed, {}, hostile_time_limit).out) != without_times(r.out));
}

TEST_CASE("cli train copy - bad options are exit 2 naming them", "[cli][train]") {
    expect_refused({"train", "copy", "--d-model", "30", "--heads", "4"}, {"--d-model 30", "--heads 4", "h must divide D"});
    expect_refused({"train", "paste"}, {"unknown task 'paste'", "copy"});
    expect_refused({"train", "\x1b[2Jcopy"}, {"unknown task"});  // the escape never reaches the terminal
    expect_refused({"train", "copy", "--label-smoothing", "1"}, {"--label-smoothing", "'1'"});
    expect_refused({"train", "copy", "--label-smoothing", "nan"}, {"--label-smoothing", "'nan'"});
    expect_refused({"train", "copy", "--batch", "0"}, {"--batch", "'0'"});
    expect_refused({"train", "copy", "--d-model", "100000"}, {"--d-model", "from 1 to 1024"});
    expect_refused({"train", "copy", "--layers", "-1"}, {"--layers", "'-1'"});
    expect_refused({"train", "copy", "--d-model", "1024", "--d-ff", "4096", "--layers", "16", "--batch", "4096"},
                   {"--d-model 1024 --d-ff 4096 --layers 16 --batch 4096", "the limit is 8 GiB"});
    expect_refused({"train", "copy", "--lr-factor", "inf"}, {"--lr-factor", "'inf'"});
    expect_refused({"train"}, {"task"});
}

TEST_CASE("cli train copy - in Spanish", "[cli][train][language][slow]") {
    auto arguments = tiny;
    arguments.insert(arguments.end(), {"--lang", "es"});
    const auto r = run_attn(arguments, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("la tarea de copia del Annotated Transformer") && Catch::Contains("época 1/2  pérdida ") &&
                          Catch::Contains("Decodificación voraz de secuencias nuevas:"));
    CHECK_THAT(run_attn({"train", "copy", "--d-model", "30", "--lang", "es"}).err,
               Catch::Contains("--d-model 30 no es múltiplo de --heads 4"));
}
