// What `attn lesson` shows, through the real program: a lesson found by its folder name or its
// slug in any case; inputs written as whole numbers printed as PyTorch prints an int64 tensor;
// 0/1 flags printed as a tensor, not shaded; inputs the class has seen summarised on one line
// (whole with --all-inputs); the closing screen's paths short and whole, also with --lessons-dir;
// heat maps and diagrams not cut across screens.
#include <catch2/catch.hpp>

#include <filesystem>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::run_attn;
namespace fs = std::filesystem;

}  // namespace

TEST_CASE("lesson screens - a lesson is found by number, slug in any case and folder name", "[cli][lessons][lesson02]") {
    const auto by_number = run_attn({"lesson", "2", "--no-pause"});
    REQUIRE(by_number.exit_code == 0);
    for (const std::string name : {"luong", "Luong", "LUONG", "02-luong", "02-Luong"}) {
        const auto r = run_attn({"lesson", name, "--no-pause"});
        INFO(name << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out == by_number.out);
    }
    for (const std::string name : {"2-luong", "03-luong", "luong-02", "luon"}) {
        const auto r = run_attn({"lesson", name, "--no-pause"});
        INFO(name);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(name));
    }
}

TEST_CASE("lesson screens - inputs written as whole numbers print as int64, 0/1 flags as a tensor", "[cli][lessons][lesson06][lesson07]") {
    // lessons/06-encoder-layer's sizes, written [1, 4, 512, 8, 2048]: what print(torch.tensor([1,
    // 4, 512, 8, 2048])) shows.
    const auto six = run_attn({"lesson", "6", "--no-pause", "--width", "80"});
    REQUIRE(six.exit_code == 0);
    CHECK_THAT(six.out, Catch::Contains("  tensor([   1,    4,  512,    8, 2048])\n"));
    CHECK_THAT(six.out, Catch::Contains("  tensor([6])\n"));
    CHECK_THAT(six.out, !Catch::Contains("5.1200e+02"));
    // lessons/07-online-softmax's tiles computed (1) or skipped (0): PyTorch's print, no shaded
    // grid and no min/max legend.
    const auto seven = run_attn({"lesson", "7", "--no-pause", "--width", "80"});
    REQUIRE(seven.exit_code == 0);
    const std::size_t at = seven.out.find("\n  tile_computed ");
    REQUIRE(at != std::string::npos);
    const std::string block = seven.out.substr(at, seven.out.find("✓", at) - at);
    CHECK_THAT(block, Catch::Contains("tensor([[1., 0., 0.],\n          [1., 1., 0.],\n          [1., 1., 1.]])"));
    CHECK_THAT(block, !Catch::Contains(" max"));
}

TEST_CASE("lesson screens - inputs seen before are one line; --all-inputs shows them whole", "[cli][lessons][lesson06]") {
    const auto brief = run_attn({"lesson", "6", "--no-pause", "--width", "80", "--step", "4"});
    REQUIRE(brief.exit_code == 0);
    // lessons/05-multi-head-attention's weights, marked brief in lessons/06-encoder-layer: name,
    // shape and the document's line.
    for (const std::string name : {"w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o"}) {
        CHECK_THAT(brief.out, Catch::Contains("  input " + name + "  (D") && Catch::Contains(" · written in README.md:"));
    }
    CHECK_THAT(brief.out, !Catch::Contains("tensor([[ 1,  0,  0,  1],"));
    const auto whole = run_attn({"lesson", "6", "--no-pause", "--width", "80", "--step", "4", "--all-inputs"});
    REQUIRE(whole.exit_code == 0);
    CHECK_THAT(whole.out, Catch::Contains("  input w_q  (D, D) = (4, 4)\n  tensor([[ 1,  0,  0,  1],\n"));
    CHECK_THAT(whole.out, !Catch::Contains("written in README.md:"));
    // On screens at 80×24, the eight weights are one screen, not eight.
    const auto screens = run_attn({"lesson", "6", "--screens", "--width", "80", "--height", "24", "--step", "4"});
    const auto all = run_attn({"lesson", "6", "--screens", "--width", "80", "--height", "24", "--step", "4", "--all-inputs"});
    const auto count = [](const std::string& out) { return std::count(out.begin(), out.end(), '\f'); };
    CHECK(count(all.out) - count(screens.out) >= 7);
}

TEST_CASE("lesson screens - the closing screen names the document and the exercise whole and short", "[cli][lessons][lesson01]") {
    // The lessons from a folder outside the working folder, as ATTN_LESSONS_DIR or --lessons-dir give them.
    attn::testing::TempDir copy;
    const fs::path lessons = fs::path(copy.path()) / "my-lessons";
    fs::create_directories(lessons / "01-dot-product");
    fs::copy_file(ATTN_SOURCE_DIR "/lessons/01-dot-product/README.md", lessons / "01-dot-product" / "README.md");
    for (const auto& [arguments, environment] :
         std::vector<std::pair<std::vector<std::string>, std::map<std::string, std::string>>>{
             {{"lesson", "1", "--no-pause", "--width", "80", "--lessons-dir", lessons.string()}, {}},
             {{"lesson", "1", "--no-pause", "--width", "80"}, {{"ATTN_LESSONS_DIR", lessons.string()}}}}) {
        const auto r = run_attn(arguments, environment);
        REQUIRE(r.exit_code == 0);
        const std::string closing = r.out.substr(r.out.find("── Lesson 1 checked"));
        INFO(closing);
        std::string folded;  // the closing's words, whatever the wrapping
        for (char c : closing) {
            if (c == '\n' || c == ' ') {
                if (!folded.empty() && folded.back() != ' ') folded += ' ';
            } else {
                folded += c;
            }
        }
        CHECK_THAT(folded, Catch::Contains("written in my-lessons/01-dot-product/README.md."));
        CHECK_THAT(folded, Catch::Contains(" in lessons/01-dot-product/exercise/exercise.cpp and check it with `attn exercise 1`."));
        CHECK_THAT(closing, !Catch::Contains("…") && !Catch::Contains(copy.path()));
    }
}

namespace {

std::vector<std::string> lines_in(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) lines.push_back(text.substr(start, end - start));
    return lines;
}

}  // namespace

TEST_CASE("lesson screens - at 80x24 a heat map's caption, grid and legend share a screen, and so do a diagram's lines",
          "[cli][lessons][lesson04][lesson05]") {
    for (const std::string language : {"en", "es"}) {
        // lessons/05-multi-head-attention, steps 9 to 11: four (B, h) grids of three queries each,
        // about 26 rows in all.
        for (const std::string step : {"9", "10", "11"}) {
            const auto r = run_attn({"lesson", "5", "--screens", "--width", "80", "--height", "24", "--step", step, "--lang", language});
            REQUIRE(r.exit_code == 0);
            std::size_t captions = 0;
            for (std::size_t start = 0, end; (end = r.out.find("\n\f\n", start)) != std::string::npos; start = end + 3) {
                const auto rows = lines_in(r.out.substr(start, end - start + 1));
                for (std::size_t i = 0; i < rows.size(); ++i) {
                    if (rows[i].rfind("  B ", 0) != 0 || rows[i].find(" · h ") == std::string::npos) continue;
                    ++captions;
                    INFO(language << " step " << step << ":\n" << r.out.substr(start, end - start));
                    REQUIRE(i + 5 < rows.size());  // caption, column labels, three rows, legend
                    CHECK((rows[i + 5].rfind(language == "en" ? "  min " : "  mín ", 0) == 0 ||
                           rows[i + 5].rfind(language == "en" ? "  every cell:" : "  todas las celdas:", 0) == 0));
                }
            }
            CHECK(captions >= 4);
        }
        // lessons/04-causal-self-attention, step 11: the two alignments' captions and their grids.
        const auto four = run_attn({"lesson", "4", "--screens", "--width", "80", "--height", "24", "--step", "11", "--lang", language});
        REQUIRE(four.exit_code == 0);
        // The screen that shows the diagram's first caption line ("triu(ones(T, S), 1) …" in both
        // editions) shows its last grid row too.
        const std::size_t caption = four.out.find("    triu(ones(T, S), 1) ");
        REQUIRE(caption != std::string::npos);
        const std::size_t screen_end = four.out.find("\n\f\n", caption);
        const std::string screen = four.out.substr(four.out.rfind("\f", caption) + 1, screen_end - four.out.rfind("\f", caption));
        INFO(screen);
        CHECK_THAT(screen, Catch::Contains("    q1  [    0,  0, −∞, −∞ ]             q1  [    0,  0,  0,  0 ]"));
        CHECK(screen.find("k0  k1  k2  k3") > screen.find("triu(ones(T, S), 1)"));
    }
}
