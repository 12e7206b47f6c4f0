// `attn train copy` on the float32 path through the real program: --size annotated's settings
// (each overridable), --precision and --threads; from PyTorch's initial weights and batches the
// float32 losses are PyTorch's to 1e-4 relative; --save's model is read back by --init; bad
// values are exit 2 naming the option.
#include <catch2/catch.hpp>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "support/copy_training_fixtures.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using attn::testing::expect_refused;
using attn::testing::hostile_time_limit;
using attn::testing::run_attn;

namespace {

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/copy_training/";

// The Annotated Transformer's run with its sizes made small: what --size annotated leaves is its.
const std::vector<std::string> small_annotated = {"train",   "copy", "--size",  "annotated", "--d-model", "32",
                                                  "--heads", "4",    "--d-ff",  "64",        "--batch",   "8",
                                                  "--steps", "2",    "--epochs", "1",        "--threads", "2"};

// The run's lines without the seconds of the epoch lines.
std::string without_times(const std::string& out) { return std::regex_replace(out, std::regex("  [0-9.]+ s\n"), "\n"); }

}  // namespace

TEST_CASE("cli train copy --size annotated - the Annotated Transformer's settings, each overridable, in float32",
          "[cli][train][slow]") {
    const auto r = run_attn(small_annotated, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Given: D, h, F, batch, steps, epochs. Left to --size annotated: 2 + 2 layers, warm-up 400,
    // lr factor 0.5, label smoothing 0, dropout 0.1, and the float32 path.
    CHECK_THAT(r.out, Catch::Contains("D = 32, h = 4, 2 + 2 layers, F = 64") &&
                          Catch::Contains("batch 8, 2 steps per epoch, warm-up 400, lr factor 0.5, label smoothing 0,") &&
                          Catch::Contains("float32 (the fast path, attn::fast), 2 threads") &&
                          Catch::Contains("dropout 0.1 in training, masks from seed 2") &&
                          Catch::Contains("epoch 1/1  loss "));
    // Reproducible for a seed and a thread count.
    CHECK(without_times(run_attn(small_annotated, {}, hostile_time_limit).out) == without_times(r.out));
    auto in_double = small_annotated;
    in_double.insert(in_double.end(), {"--precision", "float64"});
    const auto d = run_attn(in_double, {}, hostile_time_limit);
    CHECK(d.exit_code == 0);
    CHECK_THAT(d.out, Catch::Contains("float64 (the lesson path), OpenBLAS on 2 threads"));
}

TEST_CASE("cli train copy --precision float32 - from PyTorch's initial weights and batches, PyTorch's 20 losses to 1e-4",
          "[cli][train][slow]") {
    const auto& fixture = attn::testing::copy_training_fixture();
    attn::testing::TempDir dir;
    const std::string log = dir.path() + "/losses.json", model = dir.path() + "/model.npz";
    const std::vector<std::string> arguments = {
        "train", "copy", "--init", fixtures + "initial.npz", "--data", fixtures + "batches.npz", "--d-model", "16",
        "--heads", "2", "--layers", "2", "--d-ff", "32", "--warmup", "8", "--lr-factor", "1", "--label-smoothing", "0.1",
        "--epochs", "1", "--precision", "float32", "--threads", "1", "--log", log, "--save", model};
    const auto r = run_attn(arguments, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("float32 (the fast path, attn::fast), 1 thread\n"));
    const std::string json = attn::testing::read_file(log);
    const std::regex entry("\\{\"step\": ([0-9]+), \"loss\": ([-0-9.e+]+), \"learning_rate\": ([-0-9.e+]+)\\}");
    const auto& losses = fixture.expected.at("smoothing.losses");
    std::size_t step = 0;
    for (auto it = std::sregex_iterator(json.begin(), json.end(), entry); it != std::sregex_iterator(); ++it, ++step) {
        REQUIRE(step < losses.size());
        const double loss = std::stod((*it)[2]);
        INFO("step " << step + 1 << ": expected loss " << losses(step) << ", got " << loss);
        CHECK(std::abs(loss - losses(step)) <= 1e-4 * std::abs(losses(step)));
    }
    CHECK(step == losses.size());
    // The float32 path's trained model, read back by --init on either path.
    for (const char* precision : {"float32", "float64"}) {
        const auto resumed = run_attn({"train", "copy", "--init", model, "--d-model", "16", "--heads", "2", "--layers",
                                       "2", "--d-ff", "32", "--steps", "1", "--epochs", "1", "--precision", precision},
                                      {}, hostile_time_limit);
        INFO(precision << ": " << resumed.out << resumed.err);
        CHECK(resumed.exit_code == 0);
    }
}

TEST_CASE("cli train copy - bad --size, --precision and --threads are exit 2 naming them", "[cli][train]") {
    expect_refused({"train", "copy", "--size", "huge"}, {"--size 'huge'", "annotated"});
    expect_refused({"train", "copy", "--precision", "float16"}, {"--precision 'float16'", "float32", "float64"});
    expect_refused({"train", "copy", "--threads", "0"}, {"--threads", "'0'"});
    expect_refused({"train", "copy", "--threads", "5000"}, {"--threads", "from 1 to 1024"});
}

TEST_CASE("cli train copy --precision float32 --dropout - the float64 run's losses, the same masks from the same seed",
          "[cli][train][dropout][slow]") {
    // The two paths draw the same masks from std::mt19937(--seed + 2) (tests/test_fast_seq2seq_dropout.cpp
    // holds their losses to 1e-6): the epochs' mean losses, printed to 4 decimals, are the same.
    const std::vector<std::string> run = {"train", "copy", "--d-model", "16", "--heads", "2", "--d-ff", "32",
                                          "--batch", "8", "--steps", "3", "--epochs", "2", "--dropout", "0.3",
                                          "--no-heatmaps"};
    const auto losses = [](const std::string& out) {
        std::vector<std::string> found;
        const std::regex loss("epoch [0-9]+/[0-9]+  loss ([0-9.]+)");
        for (auto it = std::sregex_iterator(out.begin(), out.end(), loss); it != std::sregex_iterator(); ++it) {
            found.push_back((*it)[1].str());
        }
        return found;
    };
    auto in_float32 = run, in_float64 = run;
    in_float32.insert(in_float32.end(), {"--precision", "float32"});
    in_float64.insert(in_float64.end(), {"--precision", "float64"});
    const auto f = run_attn(in_float32, {}, hostile_time_limit), d = run_attn(in_float64, {}, hostile_time_limit);
    INFO(f.out << f.err << d.out << d.err);
    REQUIRE(f.exit_code == 0);
    REQUIRE(d.exit_code == 0);
    CHECK_THAT(f.out, Catch::Contains("float32 (the fast path") && Catch::Contains("dropout 0.3 in training, masks from seed 2"));
    CHECK(losses(f.out).size() == 2);
    CHECK(losses(f.out) == losses(d.out));
    // And a dropout outside [0, 1) is refused on this path too, naming the option.
    expect_refused({"train", "copy", "--precision", "float32", "--dropout", "1"}, {"--dropout", "0 ≤ p < 1"});
}
