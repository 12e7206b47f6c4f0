// `attn train copy` through the real program: a short run prints every epoch's line, the final
// accuracy and five decodes, the same for the same seed; from PyTorch's initial weights and
// batches (--init, --data) the logged losses are PyTorch's (--log); bad options and files are exit
// 2 naming them, with nothing written; Spanish.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "attn/npy.hpp"
#include "attn/npz.hpp"
#include "support/copy_training_fixtures.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using attn::testing::expect_refused;
using attn::testing::hostile_time_limit;
using attn::testing::count_of;
using attn::testing::run_attn;
using attn::testing::snapshot;

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/copy_training/";

namespace {

// A model small enough to train two short epochs in well under a second.
const std::vector<std::string> tiny = {"train", "copy",      "--d-model", "8", "--heads",  "2", "--layers", "1",
                                       "--d-ff",  "16",  "--batch", "4", "--steps", "3",  "--epochs", "2"};

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
    expect_refused({"train", "copy", "--dropout", "1"}, {"--dropout", "0 ≤ p < 1", "'1'"});
    expect_refused({"train", "copy", "--dropout", "-0.1"}, {"--dropout", "'-0.1'"});
    expect_refused({"train", "copy", "--dropout", "nan"}, {"--dropout", "'nan'"});
    expect_refused({"train"}, {"task"});
}

TEST_CASE("cli train copy - --dropout drops in training only: reproducible and --dropout 0 is the run without it",
          "[cli][train][slow]") {
    auto dropped = tiny;
    dropped.insert(dropped.end(), {"--dropout", "0.3"});
    const auto r = run_attn(dropped, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // The masks' generator is std::mt19937(--seed + 2): seed 0 gives 2.
    CHECK_THAT(r.out, Catch::Contains("dropout 0.3 in training, masks from seed 2") &&
                          Catch::Contains("of 1000 fresh sequences exactly"));
    CHECK(without_times(run_attn(dropped, {}, hostile_time_limit).out) == without_times(r.out));
    const auto plain = run_attn(tiny, {}, hostile_time_limit);
    CHECK(without_times(r.out) != without_times(plain.out));
    // p = 0 draws nothing: the very run without the option, every loss and decode the same.
    auto zero = tiny;
    zero.insert(zero.end(), {"--dropout", "0"});
    CHECK(without_times(run_attn(zero, {}, hostile_time_limit).out) == without_times(plain.out));
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

TEST_CASE("cli train copy - from PyTorch's initial weights and batches, --log holds PyTorch's 20 losses",
          "[cli][train][slow]") {
    const auto& fixture = attn::testing::copy_training_fixture();
    attn::testing::TempDir dir;
    const std::string log = dir.path() + "/losses.json";
    const auto r = run_attn({"train", "copy", "--init", fixtures + "initial.npz", "--data", fixtures + "batches.npz",
                             "--d-model", "16", "--heads", "2", "--layers", "2", "--d-ff", "32", "--warmup", "8",
                             "--lr-factor", "1", "--label-smoothing", "0.1", "--epochs", "1", "--log", log},
                            {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("batch 8, 20 steps per epoch"));
    const std::string json = attn::testing::read_file(log);
    const std::regex entry("\\{\"step\": ([0-9]+), \"loss\": ([-0-9.e+]+), \"learning_rate\": ([-0-9.e+]+)\\}");
    const auto& losses = fixture.expected.at("smoothing.losses");
    const auto& rates = fixture.expected.at("smoothing.learning_rates");
    std::size_t step = 0;
    for (auto it = std::sregex_iterator(json.begin(), json.end(), entry); it != std::sregex_iterator(); ++it, ++step) {
        REQUIRE(step < losses.size());
        const double loss = std::stod((*it)[2]), rate = std::stod((*it)[3]);
        INFO("step " << step + 1 << ": expected loss " << losses(step) << ", got " << loss << "; learning rate expected "
                     << rates(step) << ", got " << rate);
        CHECK(std::stoul((*it)[1]) == step + 1);
        CHECK(std::abs(loss - losses(step)) <= 1e-12 * std::abs(losses(step)));  // 17 digits written: float64 kept
        CHECK(rate == Approx(rates(step)).epsilon(1e-14));
    }
    CHECK(step == losses.size());
}

TEST_CASE("cli train copy - bad --init, --data and --log are exit 2 naming the file, nothing written", "[cli][train][slow]") {
    attn::testing::TempDir dir;
    const std::string log = dir.path() + "/losses.json";
    const auto before = snapshot(dir.path());
    // F is left at its default, 64: the archive's model has F = 32.
    const std::vector<std::string> small = {"train", "copy", "--d-model", "16", "--heads", "2",
                                            "--epochs", "1", "--steps", "1", "--log", log};
    const auto with = [&](std::vector<std::string> extra) {
        auto arguments = small;
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return arguments;
    };
    expect_refused(with({"--init", dir.path() + "/missing.npz"}), {"missing.npz"});
    expect_refused(with({"--init", fixtures + "initial.npz"}),
                   {"initial.npz", "encoder.layers.0.linear1.weight has shape (32, 16); the model's is (64, 16)"});
    expect_refused(with({"--init", fixtures + "batches.npz"}), {"batches.npz", "member src.npy", "int64"});
    const std::string hostile = fixtures + "hostile/";
    expect_refused(with({"--data", hostile + "id-out-of-range.npz"}),
                   {"id-out-of-range.npz", "src[1, 0, 3] = 11 is not a symbol of the vocabulary", "0 … 10"});
    expect_refused(with({"--data", hostile + "fraction.npz"}), {"fraction.npz", "tgt[0, 0, 0] = 1.5"});
    expect_refused(with({"--data", hostile + "one-symbol.npz"}), {"one-symbol.npz", "src has shape (2, 2, 1)", "L ≥ 2"});
    expect_refused(with({"--data", hostile + "shapes-differ.npz"}), {"src has shape (2, 2, 4) and tgt (2, 2, 5)"});
    expect_refused(with({"--data", hostile + "no-tgt.npz"}), {"no-tgt.npz: no member tgt"});
    expect_refused(with({"--data", dir.path()}), {dir.path()});
    CHECK(snapshot(dir.path()) == before);
    // The log may not overwrite an input, nor go to a folder that does not exist.
    expect_refused({"train", "copy", "--d-model", "16", "--heads", "2", "--d-ff", "32", "--epochs", "1", "--steps", "1",
                    "--init", fixtures + "initial.npz", "--log", fixtures + "initial.npz"},
                   {"--log", "initial.npz"});
    expect_refused(with({"--log", dir.path() + "/no/such/folder/losses.json"}), {"--log"});
    CHECK(snapshot(dir.path()) == before);
}

TEST_CASE("cli train copy - --save writes the model under PyTorch's names with its config; --init and compute read it",
          "[cli][train][slow]") {
    attn::testing::TempDir dir;
    const std::string model = dir.path() + "/model.npz";
    auto arguments = tiny;
    arguments.insert(arguments.end(), {"--save", model});
    const auto r = run_attn(arguments, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto members = attn::read_npz(model, [](const std::string&) { return attn::NpyAccept::floats_bools_integers; });
    std::map<std::string, const attn::NpyArray*> by_name;
    for (const auto& [name, array] : members) by_name[name] = &array;
    // nn.Transformer(8, 2, 1, 1, 16).state_dict() holds 34 tensors; then the embeddings, the generator, the config.
    CHECK(members.size() == 34 + 4 + 1);
    const std::map<std::string, std::vector<std::size_t>> shapes = {
        {"encoder.layers.0.self_attn.in_proj_weight", {24, 8}}, {"encoder.layers.0.linear1.weight", {16, 8}},
        {"decoder.layers.0.multihead_attn.out_proj.bias", {8}},  {"encoder.norm.weight", {8}},
        {"decoder.norm.bias", {8}},                              {"src_embed.weight", {11, 8}},
        {"tgt_embed.weight", {11, 8}},                           {"generator.weight", {11, 8}},
        {"generator.bias", {11}}};
    for (const auto& [name, shape] : shapes) {
        INFO(name);
        REQUIRE(by_name.count(name) == 1);
        CHECK(by_name[name]->shape == shape);
        CHECK(by_name[name]->dtype == attn::NpyDtype::float32);
    }
    REQUIRE(by_name.count("attn_config") == 1);
    std::string config;
    for (double byte : by_name["attn_config"]->values) config += static_cast<char>(byte);
    CHECK(config == "{\"heads\": 2, \"norm_first\": true, \"activation\": \"relu\", \"eps\": 1.0000000000000001e-05, "
                    "\"norm_eps\": 1.0000000000000001e-05}");

    // Training goes on from the saved weights; a --heads the config contradicts is exit 2 naming both.
    auto resumed = tiny;
    resumed.insert(resumed.end(), {"--init", model});
    CHECK(run_attn(resumed, {}, hostile_time_limit).exit_code == 0);
    resumed[5] = "4";  // --heads 4
    expect_refused(resumed, {"model.npz", "heads 2", "--heads 4"});

    // attn compute transformer reads the same archive: the embeddings and the generator are noted and left out.
    const std::string in = dir.path() + "/in";
    std::filesystem::create_directory(in);
    attn::write_npy(in + "/src.npy", {1, 3, 8}, std::vector<double>(24, 0.25), attn::NpyDtype::float64);
    attn::write_npy(in + "/tgt.npy", {1, 2, 8}, std::vector<double>(16, -0.5), attn::NpyDtype::float64);
    const auto computed = run_attn({"compute", "transformer", "--weights", model, "--in", in, "--out", dir.path() + "/out"});
    INFO(computed.err);
    CHECK(computed.exit_code == 0);
    CHECK_THAT(computed.err, Catch::Contains("generator.bias] belongs to the model built around transformer"));
    CHECK(std::filesystem::exists(dir.path() + "/out/output.npy"));
}

TEST_CASE("cli train copy - a bad --save is exit 2 before the training, nothing written", "[cli][train]") {
    attn::testing::TempDir dir;
    const auto before = snapshot(dir.path());
    const auto with = [&](std::vector<std::string> extra) {
        auto arguments = tiny;
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return arguments;
    };
    expect_refused(with({"--save", dir.path() + "/no/such/folder/model.npz"}), {"--save", "/no/such/folder/model.npz", "does not exist"});
    expect_refused(with({"--save", dir.path() + "/same", "--log", dir.path() + "/same"}), {"they are the same file"});
    expect_refused({"train", "copy", "--d-model", "16", "--heads", "2", "--d-ff", "32", "--epochs", "1", "--steps", "1",
                    "--init", fixtures + "initial.npz", "--save", fixtures + "initial.npz"},
                   {"--save", "initial.npz"});
    CHECK(snapshot(dir.path()) == before);
}
