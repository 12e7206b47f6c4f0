// Tests for tutor/views/attention_view.hpp: sentences and token files, the deterministic embeddings and
// positions, the untrained sentence attention, and the checks that keep a wrong tensor (scores,
// a transposed matrix, PyTorch's NaN rows, tokens that do not fit) from being drawn.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/npy.hpp"
#include "support/temp_dir.hpp"
#include "tutor/views/attention_view.hpp"

using namespace attn::tutor;
using attn::testing::TempDir;
using attn::testing::write_file;

namespace {

const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD

std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const attn::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("a sentence is split at whitespace and an empty one is refused", "[attention_view]") {
    CHECK(split_sentence("  El perro\tva\ncaminando  ") == std::vector<std::string>{"El", "perro", "va", "caminando"});
    CHECK(split_sentence("</script> \"") == std::vector<std::string>{"</script>", "\""});
    CHECK_THROWS_WITH(split_sentence(" \t "), Catch::Contains("the sentence is empty"));
    CHECK_THROWS_AS(split_sentence(""), attn::InputError);
}

TEST_CASE("a token file holds one token per line kept verbatim", "[attention_view]") {
    TempDir dir;
    const std::string path = dir.path() + "/tokens.txt";
    write_file(path, "[CLS]\r\n\xE2\x96\x81the dog\nña\n");
    CHECK(read_tokens(path) == std::vector<std::string>{"[CLS]", "\xE2\x96\x81the dog", "ña"});
    write_file(path, "last line without newline");
    CHECK(read_tokens(path).size() == 1);
    write_file(path, "");
    CHECK_THROWS_WITH(read_tokens(path), Catch::Contains("tokens.txt is empty"));
    CHECK_THROWS_WITH(read_tokens(dir.path() + "/missing.txt"), Catch::Contains("missing.txt"));
    // Text that would drive a terminal is replaced, line by line.
    write_file(path, std::string("a\033]0;owned\007b\nc\0d\n", 17));
    CHECK(read_tokens(path) == std::vector<std::string>{"a" + replacement + "]0;owned" + replacement + "b", "c" + replacement + "d"});
    // A folder is named as one, not called empty.
    CHECK_THROWS_WITH(read_tokens(dir.path()), Catch::Contains("is a folder"));
}

TEST_CASE("the text hash is FNV-1a 64", "[attention_view]") {
    CHECK(stable_text_hash("") == 0xcbf29ce484222325ull);
    CHECK(stable_text_hash("a") == 0xaf63dc4c8601ec8cull);
    CHECK(stable_text_hash("perro") != stable_text_hash("Perro"));
}

TEST_CASE("a token has the same embedding wherever it stands", "[attention_view]") {
    const attn::Matrix e = token_embeddings({"el", "perro", "el"}, 64);
    REQUIRE(e.shape(0) == 3);
    REQUIRE(e.shape(1) == 64);
    CHECK((xt::row(e, 0) == xt::row(e, 2)));
    CHECK((xt::row(e, 0) != xt::row(e, 1)));
    CHECK((token_embeddings({"perro"}, 64) == xt::view(e, xt::range(1, 2), xt::all())));
    // Standard normal values: over 3 x 64 of them the mean is near 0 and the variance near 1.
    const attn::Matrix many = token_embeddings({"a", "b", "c", "d", "e", "f", "g", "h"}, 128);
    const double mean = xt::mean(many)();
    const double variance = xt::variance(many)();
    CHECK(std::abs(mean) < 0.15);
    CHECK(variance == Approx(1.0).margin(0.15));
}

TEST_CASE("embeddings and weights are pinned so that every build draws the same picture", "[attention_view]") {
    // Recorded once: a change here changes every student's pictures (std::normal_distribution,
    // std::hash or a different generator would).
    const attn::Matrix e = token_embeddings({"perro"}, 4);
    CHECK(e(0, 0) == Approx(0.36541072657829693).epsilon(1e-12));
    CHECK(e(0, 1) == Approx(1.6216983810535992).epsilon(1e-12));
    CHECK(e(0, 3) == Approx(-0.20619833859476594).epsilon(1e-12));
    const attn::Tensor4 w = sentence_attention({"El", "perro", "va"}, {2, 8, 1});
    CHECK(w(0, 0, 0, 0) == Approx(0.64795486358935417).epsilon(1e-9));
    CHECK(w(0, 1, 2, 1) == Approx(0.1961440400685264).epsilon(1e-9));
}

TEST_CASE("a sentence's untrained attention is deterministic and each row sums to one", "[attention_view]") {
    const auto tokens = split_sentence("El perro va caminando sobre el pasto");
    const attn::Tensor4 w = sentence_attention(tokens, {8, 64, 1});
    REQUIRE(w.shape(0) == 1);
    REQUIRE(w.shape(1) == 8);
    REQUIRE(w.shape(2) == 7);
    REQUIRE(w.shape(3) == 7);
    const attn::Tensor3 sums = xt::sum(w, {3});
    CHECK(xt::allclose(sums, 1.0));
    CHECK((sentence_attention(tokens, {8, 64, 1}) == w));
    CHECK((sentence_attention(tokens, {8, 64, 2}) != w));
    // Neither uniform nor one-hot: something worth looking at.
    const double largest = xt::amax(w)();
    CHECK(largest > 0.3);
    CHECK(largest < 0.999);
    CHECK_THROWS_AS(sentence_attention(tokens, {5, 64, 1}), attn::ShapeError);
    CHECK_THROWS_AS(sentence_attention({}, {8, 64, 1}), attn::InputError);
}

TEST_CASE("weights of rank 2 to 4 with rows summing to one are accepted", "[attention_view]") {
    CHECK_NOTHROW(check_attention_weights(attn::DynamicTensor({{0.25, 0.75}, {1.0, 0.0}}), "w"));
    CHECK_NOTHROW(check_attention_weights(attn::DynamicTensor({{{0.5, 0.5}}}), "w"));
    attn::DynamicTensor four = xt::ones<double>({2, 3, 4, 5}) * 0.2;
    four(1, 2, 3, 0) = 0.205;  // a row off by 0.005: float rounding, accepted
    CHECK_NOTHROW(check_attention_weights(four, "w"));
    // A query whose keys were all masked: a row of zeros, as this library returns it.
    CHECK_NOTHROW(check_attention_weights(attn::DynamicTensor({{0.0, 0.0}, {0.5, 0.5}}), "w"));
}

TEST_CASE("weights that are not attention weights are refused with the place and the reason", "[attention_view][errors]") {
    CHECK_THAT(error_of([] { check_attention_weights(attn::DynamicTensor({0.5, 0.5}), "w.npy"); }),
               Catch::Contains("w.npy has shape (2), rank 1") && Catch::Contains("(B, h, T, S)"));
    CHECK_THAT(error_of([] { check_attention_weights(xt::zeros<double>({1, 1, 1, 1, 1}), "w.npy"); }),
               Catch::Contains("rank 5"));
    CHECK_THAT(error_of([] { check_attention_weights(xt::zeros<double>({2, 0}), "w.npy"); }),
               Catch::Contains("an empty axis"));
    CHECK_THAT(error_of([] { check_attention_weights(attn::DynamicTensor({{{2.5, -1.0}}}), "w.npy"); }),
               Catch::Contains("w.npy holds 2.5 at [0, 0, 0]") && Catch::Contains("scores before the softmax"));
    CHECK_THAT(error_of([] { check_attention_weights(attn::DynamicTensor({{0.5, 0.5}, {NAN, NAN}}), "w.npy"); }),
               Catch::Contains("NaN at [1, 0]") && Catch::Contains("nan_to_num"));
    CHECK_THAT(error_of([] { check_attention_weights(attn::DynamicTensor({{{0.5, 0.5}, {0.5, 0.2}}}), "w.npy"); }),
               Catch::Contains("query [0, 1, :]") && Catch::Contains("sum to 0.7, not 1"));
    // Saved transposed: the columns sum to one, the rows do not.
    CHECK_THAT(error_of([] { check_attention_weights(attn::DynamicTensor({{0.9, 0.3}, {0.1, 0.7}}), "w.npy"); }),
               Catch::Contains("transposed"));
}

TEST_CASE("a weights file is read and checked naming the file", "[attention_view][errors]") {
    TempDir dir;
    const std::string good = dir.path() + "/weights.npy";
    attn::write_npy(good, {1, 2, 2, 2}, {1, 0, 0.5, 0.5, 0.25, 0.75, 0, 1}, attn::NpyDtype::float32);
    CHECK(read_attention_weights(good).shape() == std::vector<std::size_t>{1, 2, 2, 2});
    const std::string scores = dir.path() + "/scores.npy";
    attn::write_npy(scores, {2, 2}, {3, 1, 0, 2}, attn::NpyDtype::float64);
    CHECK_THROWS_WITH(read_attention_weights(scores), Catch::Contains("scores.npy holds 3"));
    const std::string text = dir.path() + "/weights.txt";
    write_file(text, "0.5 0.5\n");
    CHECK_THROWS_WITH(read_attention_weights(text), Catch::Contains("weights.txt"));
}

TEST_CASE("one sequence is selected as one matrix per head", "[attention_view]") {
    attn::DynamicTensor four = xt::ones<double>({2, 3, 4, 5}) * 0.2;
    four(1, 2, 0, 0) = 0.6;
    const AttentionHeads second = select_sequence(four, 1);
    CHECK(second.weights.shape() == std::array<std::size_t, 3>{3, 4, 5});
    CHECK(second.weights(2, 0, 0) == 0.6);
    CHECK(second.query_tokens == std::vector<std::string>{"0", "1", "2", "3"});
    CHECK(second.key_tokens.size() == 5);
    CHECK(select_sequence(attn::DynamicTensor({{0.5, 0.5}}), 0).weights.shape(0) == 1);  // (T, S): one head
    CHECK(select_sequence(xt::ones<double>({3, 2, 2}) * 0.5, 2).weights.shape(0) == 1);  // (B, T, S): one head each
    CHECK_THROWS_WITH(select_sequence(four, 2, "w.npy"),
                      Catch::Contains("w.npy holds 2 sequences (B = 2); there is no sequence 2"));
}

TEST_CASE("tokens that do not fit the weights name both counts and the shape", "[attention_view][errors]") {
    AttentionHeads heads = select_sequence(xt::ones<double>({1, 2, 3, 3}) / 3.0, 0);
    const std::string name = "w.npy (1, 2, 3, 3) (B, h, T, S)";
    label_with_tokens(heads, name, {"a", "b", "c"}, "tokens.txt");
    CHECK(heads.key_tokens == std::vector<std::string>{"a", "b", "c"});
    CHECK_THROWS_WITH(label_with_tokens(heads, name, {"a", "b"}, "tokens.txt"),
                      Catch::Contains("tokens.txt has 2 tokens but w.npy (1, 2, 3, 3) (B, h, T, S) has T = 3 queries"));
    CHECK_THROWS_WITH(label_with_tokens(heads, name, {"a", "b", "c"}, "tokens.txt", {"x"}, "keys.txt"),
                      Catch::Contains("keys.txt has 1 token but") && Catch::Contains("S = 3 keys"));
    AttentionHeads cross = select_sequence(xt::ones<double>({2, 3}) / 3.0, 0);
    CHECK_THROWS_WITH(label_with_tokens(cross, "c.npy", {"a", "b"}, "tokens.txt"), Catch::Contains("--key-tokens"));
    label_with_tokens(cross, "c.npy", {"a", "b"}, "tokens.txt", {"x", "y", "z"}, "keys.txt");
    CHECK(cross.key_tokens == std::vector<std::string>{"x", "y", "z"});
}
