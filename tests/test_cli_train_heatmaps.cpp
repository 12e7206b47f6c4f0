// What the copy-task model looks at, through the real program: `attn train copy` draws its last
// decoder layer's cross-attention before and after training (--heatmap-head, --no-heatmaps), and
// `attn heatmap` / `attn view` draw every decoder layer's from a checkpoint (--checkpoint,
// --sequence); bad checkpoints and sequences are exit 2 naming them, with nothing written.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "attn/npy.hpp"
#include "attn/npz.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

using attn::testing::expect_refused;
using attn::testing::hostile_time_limit;
using attn::testing::count_of;
using attn::testing::run_attn;
using attn::testing::snapshot;

namespace {

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/copy_training/";

// One layer of two heads, two short epochs: a model in well under a second.
const std::vector<std::string> tiny = {"train", "copy", "--d-model", "8", "--heads", "2", "--layers", "1",
                                       "--d-ff", "16", "--batch", "4", "--steps", "3", "--epochs", "2"};

std::vector<std::string> with(std::vector<std::string> arguments, const std::vector<std::string>& extra) {
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return arguments;
}

// The lines of a run that say how it trained: the epochs (without their seconds), the final
// accuracy and the decodes.
std::string training_lines(const std::string& out) {
    static const std::regex kept("^(epoch [0-9]+/[0-9]+  loss [0-9.]+  copied [0-9]+ %|After training: copied .*|  [0-9 ]+  →  .*)$");
    std::string lines;
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        const std::string line = out.substr(start, end - start);
        std::smatch match;
        if (std::regex_search(line, match, kept)) lines += match[1].str() + "\n";
        start = end + 1;
    }
    return lines;
}

// An archive of the members of `model` (an attn train copy checkpoint) changed by `edit`.
void save_edited(const std::string& model, const std::string& path,
                 const std::function<void(std::vector<attn::NpzOutputMember>&)>& edit) {
    std::vector<attn::NpzOutputMember> members;
    for (const auto& [name, array] : attn::read_npz(model, [](const std::string&) { return attn::NpyAccept::floats_bools_integers; })) {
        if (name == "attn_config") {
            std::string bytes;
            for (double byte : array.values) bytes += static_cast<char>(byte);
            members.push_back({name, attn::encode_npy_uint8(bytes)});
        } else {
            members.push_back({name, attn::encode_npy(array.shape, array.values, attn::NpyDtype::float32)});
        }
    }
    edit(members);
    attn::write_npz(path, members);
}

}  // namespace

TEST_CASE("cli train copy - the last decoder layer's cross-attention before and after training", "[cli][train][slow]") {
    const auto r = run_attn(tiny, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string before = "Before training: the cross-attention of decoder layer 0 (the last), the mean of its 2 heads, "
                               "on a fresh sequence";
    const std::string after = "After training: the cross-attention of decoder layer 0 (the last), the mean of its 2 heads, "
                              "on a fresh sequence";
    REQUIRE(r.out.find(before) != std::string::npos);
    REQUIRE(r.out.find(after) != std::string::npos);
    // Before the first epoch and after the decodes; each a grid of 9 steps over 10 source symbols.
    CHECK(r.out.find(before) < r.out.find("epoch 1/2"));
    CHECK(r.out.find(after) > r.out.find("Greedy decodes of fresh sequences:"));
    CHECK(count_of(r.out, "rows: each step of the greedy decode, the symbol read → the symbol written; columns: the source") == 2);
    CHECK(std::regex_search(r.out, std::regex("\n +1→[0-9]+ ")));  // the first step reads the start symbol
    CHECK(count_of(r.out, " of 9 rows the largest weight is on source position t + 1") == 2);
    CHECK(count_of(r.out, "\n  min ") == 2);  // each grid's legend

    // The pictures draw nothing from the training's generators: without them, the same run.
    const auto plain = run_attn(with(tiny, {"--no-heatmaps"}), {}, hostile_time_limit);
    CHECK(plain.exit_code == 0);
    CHECK(plain.out.find("cross-attention") == std::string::npos);
    CHECK(training_lines(plain.out) == training_lines(r.out));
    CHECK(!training_lines(r.out).empty());

    const auto one_head = run_attn(with(tiny, {"--heatmap-head", "1"}), {}, hostile_time_limit);
    CHECK(one_head.exit_code == 0);
    CHECK_THAT(one_head.out, Catch::Contains("Before training: the cross-attention of decoder layer 0 (the last), head 1, on a fresh sequence"));
    CHECK(training_lines(one_head.out) == training_lines(r.out));
}

TEST_CASE("cli train copy - after the default run every step looks hardest at the symbol it writes", "[cli][train][slow]") {
    // What the README says of the default run: before training no pattern; after it each row's
    // largest weight is on source position t + 1, one place right of the main diagonal.
    const auto r = run_attn({"train", "copy"}, {}, hostile_time_limit);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("After training: copied 100.0 % of 1000 fresh sequences exactly."));
    const auto after = r.out.find("After training: the cross-attention of decoder layer 1 (the last), the mean of its 4 heads");
    REQUIRE(after != std::string::npos);
    CHECK_THAT(r.out.substr(after), Catch::Contains("In 9 of 9 rows the largest weight is on source position t + 1"));
    CHECK_THAT(r.out.substr(0, after), !Catch::Contains("In 9 of 9 rows"));
}

TEST_CASE("cli train copy - a bad --heatmap-head is exit 2 before the training", "[cli][train]") {
    expect_refused(with(tiny, {"--heatmap-head", "2"}), {"--heatmap-head 2", "the model's 2 heads are numbered 0 to 1"});
    expect_refused(with(tiny, {"--heatmap-head", "-1"}), {"--heatmap-head", "'-1'"});
    expect_refused(with(tiny, {"--heatmap-head", "0", "--no-heatmaps"}), {"--heatmap-head", "--no-heatmaps"});
}

TEST_CASE("cli heatmap and view - a checkpoint's cross-attention while it decodes --sequence", "[cli][train][view][slow]") {
    attn::testing::TempDir dir;
    const std::string model = dir.path() + "/model.npz";
    auto two_layers = with(tiny, {"--no-heatmaps", "--save", model});
    two_layers[7] = "2";  // --layers 2
    REQUIRE(run_attn(two_layers, {}, hostile_time_limit).exit_code == 0);
    const std::string sequence = "1 2 3 4 5 6 7 8 9 10";

    const auto shown = run_attn({"heatmap", "--checkpoint", model, "--sequence", sequence});
    INFO(shown.out << shown.err);
    REQUIRE(shown.exit_code == 0);
    CHECK_THAT(shown.out, Catch::StartsWith("1 2 3 4 5 6 7 8 9 10  →  1 "));
    CHECK_THAT(shown.out, Catch::Contains("(d_model 8, 2 heads, 2 decoder layers) read the sequence 1 2 3 4 5 6 7 8 9 10"));
    for (const char* caption : {"decoder layer 0 · head 0", "decoder layer 0 · head 1", "decoder layer 1 · head 0",
                                "decoder layer 1 · head 1"}) {
        CHECK_THAT(shown.out, Catch::Contains(caption));
    }
    CHECK(count_of(shown.out, "\n  min ") == 4);
    // The columns are the source's symbols, the rows the decode's steps.
    CHECK(std::regex_search(shown.out, std::regex("\n +1 +2 +3 +4 +5 +6 +7 +8 +9 +10\n +1→[0-9]+ ")));

    const std::string page = dir.path() + "/page.html";
    const auto viewed = run_attn({"view", "--checkpoint", model, "--sequence", sequence, "--html", page});
    INFO(viewed.err);
    REQUIRE(viewed.exit_code == 0);
    CHECK_THAT(viewed.out, Catch::Contains("4 heads, 9 queries × 10 keys"));
    const std::string html = attn::testing::read_file(page);
    CHECK_THAT(html, Catch::Contains("\"keyTokens\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"10\"]"));
    CHECK_THAT(html, Catch::Contains("\"queryTokens\":[\"1→"));
    CHECK_THAT(html, Catch::Contains("Heads 0 to 1 are decoder layer 0&#39;s cross-attention, 2 to 3 layer 1&#39;s"));

    // In Spanish.
    CHECK_THAT(run_attn({"heatmap", "--checkpoint", model, "--sequence", sequence, "--lang", "es"}).out,
               Catch::Contains("capa del decodificador 1 · cabeza 1"));
}

TEST_CASE("cli heatmap and view - bad checkpoints and sequences are exit 2 naming them, nothing written", "[cli][train][view][slow]") {
    attn::testing::TempDir dir;
    const std::string model = dir.path() + "/model.npz";
    REQUIRE(run_attn(with(tiny, {"--no-heatmaps", "--save", model}), {}, hostile_time_limit).exit_code == 0);
    const auto before = snapshot(dir.path());
    const auto heatmap = [&](const std::string& checkpoint, const std::string& sequence) {
        return std::vector<std::string>{"heatmap", "--checkpoint", checkpoint, "--sequence", sequence};
    };
    expect_refused(heatmap(model, "1 2 11"), {"--sequence", "'11' is not a symbol of " + model, "vocabulary is 0 to 10"});
    expect_refused(heatmap(model, "1 two 3"), {"'two' is not a symbol"});
    expect_refused(heatmap(model, "1 -2 3"), {"'-2' is not a symbol"});
    expect_refused(heatmap(model, "1 99999999999999999999"), {"'99999999999999999999' is not a symbol"});
    expect_refused(heatmap(model, "1 \x1b[2J"), {"is not a symbol"});  // the escape never reaches the terminal
    expect_refused(heatmap(model, "1"), {"--sequence holds 1 symbols", "give 2 to 128"});
    expect_refused(heatmap(model, " "), {"--sequence holds 0 symbols"});
    std::string long_sequence;
    for (int i = 0; i < 129; ++i) long_sequence += "1 ";
    expect_refused(heatmap(model, long_sequence), {"--sequence holds 129 symbols"});

    expect_refused(heatmap(dir.path() + "/missing.npz", "1 2"), {"missing.npz"});
    expect_refused(heatmap(fixtures + "initial.npz", "1 2"), {"initial.npz", "no member attn_config", "heads"});
    expect_refused(heatmap(fixtures + "batches.npz", "1 2"), {"batches.npz"});
    const std::string edited = dir.path() + "/edited.npz";
    save_edited(model, edited, [](auto& members) {
        members.erase(std::remove_if(members.begin(), members.end(), [](const auto& m) { return m.key == "src_embed.weight"; }),
                      members.end());
    });
    expect_refused(heatmap(edited, "1 2"), {"edited.npz", "no 2-D member src_embed.weight"});
    save_edited(model, edited, [](auto& members) {
        for (auto& m : members) {
            if (m.key == "attn_config") m.npy = attn::encode_npy_uint8("{\"heads\": 3}");
        }
    });
    expect_refused(heatmap(edited, "1 2"), {"edited.npz", "heads 3, which does not divide d_model 8"});
    save_edited(model, edited, [](auto& members) {
        for (auto& m : members) {
            if (m.key == "attn_config") m.npy = attn::encode_npy_uint8("{\"heads\": 2, \"activation\": \"gelu\"}");
        }
    });
    expect_refused(heatmap(edited, "1 2"), {"edited.npz", "activation gelu", "relu"});
    save_edited(model, edited, [](auto& members) {
        members.push_back({"decoder.layers.0.extra", attn::encode_npy({2}, {1.0, 2.0}, attn::NpyDtype::float32)});
    });
    expect_refused(heatmap(edited, "1 2"), {"edited.npz", "decoder.layers.0.extra is not a parameter of the model"});
    std::filesystem::remove(edited);

    expect_refused({"heatmap", "--checkpoint", model}, {"--checkpoint", "--sequence"});
    expect_refused({"heatmap", "--sequence", "1 2"}, {"--sequence", "--checkpoint"});
    expect_refused({"heatmap", "--checkpoint", model, "--sequence", "1 2", "--sentence", "a b"}, {"--checkpoint", "--sentence"});
    expect_refused({"view", "--checkpoint", model, "--sequence", "1 2", "--html", model}, {"--html", "model.npz"});
    expect_refused({"view", "--checkpoint", model, "--sequence", "1 2 11", "--html", dir.path() + "/page.html"}, {"'11'"});
    CHECK(snapshot(dir.path()) == before);
}
