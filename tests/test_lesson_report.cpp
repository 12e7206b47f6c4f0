// Tests for tutor/lesson/lesson_report.hpp: tensors printed to fit the width (checked against PyTorch's
// own print at the linewidth it needs), and paths shortened for the screen.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tutor/lesson/lesson_report.hpp"

using namespace attn::tutor;

namespace {

// torch.tensor([[0.1234, -1.5, 2.25, 3.125, -0.5, 0.75, 1.0, -2.0],
//               [1.5, 2.5, -3.5, 0.25, 0.125, -0.0625, 4.0, 5.0]])
attn::DynamicTensor two_rows() {
    attn::DynamicTensor t = attn::DynamicTensor::from_shape({2, 8});
    const double values[] = {0.1234, -1.5, 2.25, 3.125, -0.5, 0.75, 1.0, -2.0, 1.5, 2.5, -3.5, 0.25, 0.125, -0.0625, 4.0, 5.0};
    std::copy(std::begin(values), std::end(values), t.begin());
    return t;
}

// torch.arange(24, dtype=torch.float32).reshape(1, 3, 8) / 7
attn::DynamicTensor sevenths() {
    attn::DynamicTensor t = attn::DynamicTensor::from_shape({1, 3, 8});
    for (std::size_t i = 0; i < 24; ++i) t.data()[i] = static_cast<double>(static_cast<float>(i) / 7.0f);
    return t;
}

}  // namespace

// Every expected text below is str(tensor) from PyTorch 1.13 after
// torch.set_printoptions(linewidth=L), L the linewidth named in the comment.
TEST_CASE("a tensor that fits with its indent is PyTorch's print at linewidth 80", "[lesson_report]") {
    const std::string at_80 =  // L = 80
        "tensor([[ 0.1234, -1.5000,  2.2500,  3.1250, -0.5000,  0.7500,  1.0000, -2.0000],\n"
        "        [ 1.5000,  2.5000, -3.5000,  0.2500,  0.1250, -0.0625,  4.0000,  5.0000]])";
    CHECK(format_to_fit(two_rows(), 2, 100) == at_80);
    const std::string sevenths_at_80 =  // L = 80: 76 columns wide, so it fits at 80 with an indent of 4
        "tensor([[[0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000],\n"
        "         [1.1429, 1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429],\n"
        "         [2.2857, 2.4286, 2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857]]])";
    CHECK(format_to_fit(sevenths(), 2, 80) == sevenths_at_80);
    CHECK(format_to_fit(sevenths(), 4, 80) == sevenths_at_80);
}

TEST_CASE("a tensor too wide once indented is PyTorch's print at a narrower linewidth", "[lesson_report]") {
    const std::string at_78 =  // L = 78: 80 columns minus an indent of 2
        "tensor([[ 0.1234, -1.5000,  2.2500,  3.1250, -0.5000,  0.7500,  1.0000,\n"
        "         -2.0000],\n"
        "        [ 1.5000,  2.5000, -3.5000,  0.2500,  0.1250, -0.0625,  4.0000,\n"
        "          5.0000]])";
    CHECK(format_to_fit(two_rows(), 2, 80) == at_78);
    CHECK(format_to_fit(two_rows(), 4, 80) == at_78);  // L = 76 prints the same
    const std::string at_38 =  // L = 38
        "tensor([[ 0.1234, -1.5000,  2.2500,\n"
        "          3.1250, -0.5000,  0.7500,\n"
        "          1.0000, -2.0000],\n"
        "        [ 1.5000,  2.5000, -3.5000,\n"
        "          0.2500,  0.1250, -0.0625,\n"
        "          4.0000,  5.0000]])";
    CHECK(format_to_fit(two_rows(), 2, 40) == at_38);
    const std::string sevenths_at_58 =  // L = 58
        "tensor([[[0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143,\n"
        "          0.8571, 1.0000],\n"
        "         [1.1429, 1.2857, 1.4286, 1.5714, 1.7143, 1.8571,\n"
        "          2.0000, 2.1429],\n"
        "         [2.2857, 2.4286, 2.5714, 2.7143, 2.8571, 3.0000,\n"
        "          3.1429, 3.2857]]])";
    CHECK(format_to_fit(sevenths(), 2, 60) == sevenths_at_58);
}

TEST_CASE("display_path is relative to the working folder and keeps its end when cut", "[lesson_report]") {
    const std::string inside = (std::filesystem::current_path() / "lessons" / "01-dot-product" / "README.md").string();
    CHECK(display_path(inside, 80) == "lessons/01-dot-product/README.md");
    CHECK(display_path("/elsewhere/lessons/01-dot-product/README.md", 80) == "/elsewhere/lessons/01-dot-product/README.md");
    CHECK(display_path("/a/very/long/folder/lessons/01-dot-product/README.md", 20) == "…t-product/README.md");  // 20 columns
}

TEST_CASE("display_path outside the working folder is relative to the base it is given", "[lesson_report]") {
    // The lessons from another folder: named from the folder that holds the lessons folder.
    CHECK(display_path("/elsewhere/my-lessons/01-dot-product/README.md", 80, "/elsewhere") == "my-lessons/01-dot-product/README.md");
    CHECK(display_path("/elsewhere/my-lessons/01-dot-product/README.md", 80, "/elsewhere/") == "my-lessons/01-dot-product/README.md");
    // Not inside the base: the path as it is.
    CHECK(display_path("/elsewhere/lessons/x.md", 80, "/other") == "/elsewhere/lessons/x.md");
    // Inside the working folder wins over the base.
    const std::string inside = (std::filesystem::current_path() / "lessons" / "x.md").string();
    CHECK(display_path(inside, 80, "/") == "lessons/x.md");
}

TEST_CASE("an input written with whole numbers only is an int64 literal", "[lesson_report]") {
    const auto block = [](const std::string& text, LessonBlock::Kind kind = LessonBlock::Kind::input) {
        LessonBlock b;
        b.kind = kind;
        b.text = text;
        return b;
    };
    CHECK(written_as_integers(block("[1, 4, 512, 8, 2048]")));
    CHECK(written_as_integers(block("[[1, 0], [0, -1]]\n")));
    CHECK(written_as_integers(block("tensor([6])")));
    CHECK_FALSE(written_as_integers(block("[0, 0, 0, 0.5]")));
    CHECK_FALSE(written_as_integers(block("tensor([1., 4.])")));
    CHECK_FALSE(written_as_integers(block("[1e3, 2]")));
    CHECK_FALSE(written_as_integers(block("[inf, 1]")));
    CHECK_FALSE(written_as_integers(block("tensor([1, 2], dtype=torch.float64)")));
    CHECK_FALSE(written_as_integers(block("[1, 2]", LessonBlock::Kind::expect)));  // expected values print as computed
}
