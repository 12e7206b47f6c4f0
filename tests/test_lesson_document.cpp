// Tests for tutor/document/lesson_document.hpp: the block format of docs/lesson-format.md, and a
// file:line message for each way a document can be malformed.
#include <catch2/catch.hpp>

#include "tutor/document/lesson_document.hpp"

using attn::tutor::LessonBlock;
using attn::tutor::LessonFormatError;
using attn::tutor::parse_lesson_document;

namespace {

const char* const good_document = R"(# Lesson 9 — A test lesson

Intro prose.

## Step 1 — Inputs

```attn input x shape=B,H
[[1, 2]]
```

```python
print("ordinary code stays prose")
```

## Step 2 — A value

```attn expect y shape=B atol=1e-3 rtol=0
tensor([3.])
```

```attn input x example=other
[[5, 6]]
```
)";

}  // namespace

TEST_CASE("a lesson document splits into title sections and blocks", "[lesson_document]") {
    const auto doc = parse_lesson_document(good_document, "lessons/09-test/README.md");
    CHECK(doc.title == "Lesson 9 — A test lesson");
    REQUIRE(doc.sections.size() == 3);
    CHECK(doc.sections[1].heading == "Step 1 — Inputs");
    CHECK(doc.sections[2].line == 15);
    REQUIRE(doc.blocks.size() == 3);
    const LessonBlock& x = doc.blocks[0];
    CHECK(x.kind == LessonBlock::Kind::input);
    CHECK(x.name == "x");
    CHECK(x.example == "main");
    CHECK(x.line == 7);
    CHECK(x.dimension_letters == std::vector<std::string>{"B", "H"});
    const LessonBlock& y = doc.blocks[1];
    CHECK(y.kind == LessonBlock::Kind::expect);
    CHECK(*y.absolute_tolerance == 1e-3);
    CHECK(*y.relative_tolerance == 0.0);
    CHECK(y.literal.tensor(0) == 3.0);
    CHECK(doc.blocks[2].example == "other");
    CHECK(doc.examples() == std::vector<std::string>{"main", "other"});
    CHECK(doc.inputs("other").at("x")(0, 1) == 6.0);
    // The python block is kept as prose of step 1, between the two segments.
    bool prose_has_code = false;
    for (const auto& segment : doc.sections[1].segments) {
        prose_has_code = prose_has_code || segment.prose.find("ordinary code") != std::string::npos;
    }
    CHECK(prose_has_code);
}

TEST_CASE("malformed lesson blocks are reported with file and line", "[lesson_document][errors]") {
    const std::string title = "# T\n";
    auto parse = [&](const std::string& body) { return parse_lesson_document(title + body, "l.md"); };
    CHECK_THROWS_WITH(parse("```attn input\n[1]\n```\n"), Catch::StartsWith("l.md:2:") && Catch::Contains("a kind and a name"));
    CHECK_THROWS_WITH(parse("```attn show x\n[1]\n```\n"), Catch::Contains("unknown attn block kind 'show'"));
    CHECK_THROWS_WITH(parse("```attn input x\n[1]\n"), Catch::StartsWith("l.md:2:") && Catch::Contains("never closed"));
    CHECK_THROWS_WITH(parse("```attn input x colour=red\n[1]\n```\n"), Catch::Contains("unknown attribute 'colour'"));
    CHECK_THROWS_WITH(parse("```attn input x shape=B,H\n[1]\n```\n"), Catch::StartsWith("l.md:2:") &&
                                                                     Catch::Contains("shape=(B, H)"));
    CHECK_THROWS_WITH(parse("```attn input x\n\n```\n"), Catch::Contains("holds no values"));
    CHECK_THROWS_WITH(parse("```attn input x\n[1]\n```\n```attn input x\n[2]\n```\n"),
                      Catch::StartsWith("l.md:5:") && Catch::Contains("a second input block for 'x'"));
    CHECK_THROWS_WITH(parse("```attn expect y example=nowhere\n[1]\n```\n"), Catch::Contains("no input blocks"));
    CHECK_THROWS_WITH(parse("```attn expect y atol=-1\n[1]\n```\n```attn input x\n[1]\n```\n"),
                      Catch::Contains("expected a number"));
    CHECK_THROWS_WITH(parse("```attn input x atol=1\n[1]\n```\n"), Catch::Contains("belong to expect blocks"));
    CHECK_THROWS_WITH(parse("```attn input x\n[1, y]\n```\n"), Catch::StartsWith("l.md:3:5:"));
    CHECK_THROWS_WITH(parse_lesson_document("no title\n", "l.md"), Catch::Contains("no title"));
}

TEST_CASE("heatmap attributes are parsed and their labels checked against the shape", "[lesson_document]") {
    const auto doc = parse_lesson_document("# T\n```attn input w heatmap rows=a,b columns=x,y,z\n[[1, 2, 3], [4, 5, 6]]\n```\n", "l.md");
    CHECK(doc.blocks[0].heatmap);
    CHECK(doc.blocks[0].row_labels == std::vector<std::string>{"a", "b"});
    CHECK(doc.blocks[0].column_labels.size() == 3);
    CHECK_THROWS_WITH(parse_lesson_document("# T\n```attn input w columns=x,y\n[[1, 2, 3]]\n```\n", "l.md"),
                      Catch::StartsWith("l.md:2:") && Catch::Contains("columns= gives 2 labels but 'w' has 3 columns"));
    CHECK_THROWS_WITH(parse_lesson_document("# T\n```attn input w rows=a\n[[1], [2]]\n```\n", "l.md"),
                      Catch::Contains("rows= gives 1 labels but 'w' has 2 rows"));
}

TEST_CASE("a missing lesson file is an input error naming it", "[lesson_document][errors]") {
    CHECK_THROWS_WITH(attn::tutor::read_lesson_document("no/such/README.md"), Catch::Contains("no/such/README.md"));
}

TEST_CASE("brief marks an input seen in an earlier lesson, and only an input", "[lesson_document]") {
    const auto doc = parse_lesson_document("# L\n\n## Step 1\n\n```attn input w_q shape=D,D brief\n[[1, 0], [0, 1]]\n```\n",
                                           "lessons/09-test/README.md");
    REQUIRE(doc.blocks.size() == 1);
    CHECK(doc.blocks[0].brief);
    CHECK_THROWS_WITH(parse_lesson_document("# L\n\n```attn expect y brief\n[1]\n```\n", "lessons/09-test/README.md"),
                      Catch::Contains("README.md:3") && Catch::Contains("brief belongs to input blocks"));
}
