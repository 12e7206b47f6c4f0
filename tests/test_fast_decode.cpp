// Tests of attn/fast/decoder.hpp (IncrementalDecoder: generating tokens with a K/V cache) against
// PyTorch: tests/data/fast_decode (tools/make_fast_decode_fixtures.py), where step t's expected
// output is nn.TransformerDecoder re-run on the whole prefix 0 … t with the causal tgt_mask (and,
// with kv_heads < heads, a hand-written PyTorch layer sharing K/V heads by repeat_interleave).
// Post-norm and norm_first, relu and gelu, 1 and 2 layers, with and without a final norm, B = 1
// and 2, caches longer than a vector register; at 1 and 2 threads and with every instruction set
// this CPU runs. Then grouped-query attention against the same decoder with its K/V heads copied
// out (repeat_interleave done on the weights), reset(), and the arguments it refuses. And against
// the library's own double decoder (attn::transformer_decoder, causal) re-run on every prefix.
//
// Tolerance 5e-6 absolute against float64 references: the values are of order 1 and the float32
// sums, in another order, drift a few ulps per layer; measured at most 7.2e-7 over every case,
// instruction set and thread count (AMD EPYC Zen 4: baseline, AVX2 + FMA, AVX-512).
#include <catch2/catch.hpp>

#include <filesystem>
#include <limits>
#include <string>

#include <xtensor/xview.hpp>

#include "attn/decoder_layer.hpp"
#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "fast/simd.hpp"
#include "support/fast_guards.hpp"
#include "support/fast_inputs.hpp"
#include "support/fixtures.hpp"
#include "support/float_fixtures.hpp"
#include "support/tensor_match.hpp"

using attn::testing::ThreadsGuard;
using attn::testing::SimdGuard;

namespace {

namespace fs = std::filesystem;
using attn::testing::load;
using attn::testing::random_float;
using attn::testing::widen;
constexpr double decode_absolute = 5e-6, decode_relative = 0.0;

attn::fast::AttentionParameters load_attention(const fs::path& in, const std::string& prefix) {
    attn::fast::AttentionParameters p;
    p.w_q = load<2>(in / (prefix + "w_q.npy"));
    p.w_k = load<2>(in / (prefix + "w_k.npy"));
    p.w_v = load<2>(in / (prefix + "w_v.npy"));
    p.b_q = load<1>(in / (prefix + "b_q.npy"));
    p.b_k = load<1>(in / (prefix + "b_k.npy"));
    p.b_v = load<1>(in / (prefix + "b_v.npy"));
    p.w_o = load<2>(in / (prefix + "w_o.npy"));
    p.b_o = load<1>(in / (prefix + "b_o.npy"));
    return p;
}

struct DecodeCase {
    std::vector<attn::fast::DecoderLayerParameters> layers;
    attn::fast::DecoderOptions options;
    attn::fast::Tensor3 memory, tokens, expected;
};

DecodeCase load_case(const fs::path& folder) {
    const fs::path in = folder / "in";
    const auto settings = attn::testing::read_key_values(folder / "options.txt");
    DecodeCase c;
    c.options.heads = std::stoul(settings.at("heads"));
    c.options.kv_heads = std::stoul(settings.at("kv_heads"));
    c.options.norm_first = settings.at("norm_first") == "1";
    c.options.activation = settings.at("activation") == "gelu" ? attn::Activation::gelu : attn::Activation::relu;
    if (settings.at("final_norm") == "1") c.options.final_norm.emplace(load<1>(in / "norm.weight.npy"), load<1>(in / "norm.bias.npy"));
    for (std::size_t i = 0; i < std::stoul(settings.at("layers")); ++i) {
        const std::string prefix = "layers." + std::to_string(i) + ".";
        attn::fast::DecoderLayerParameters p;
        p.self_attention = load_attention(in, prefix + "self_attn.");
        p.cross_attention = load_attention(in, prefix + "cross_attn.");
        for (auto [name, vector] : {std::pair<const char*, attn::fast::Vector*>{"norm1_weight", &p.norm1_weight},
                                    {"norm1_bias", &p.norm1_bias}, {"norm2_weight", &p.norm2_weight},
                                    {"norm2_bias", &p.norm2_bias}, {"norm3_weight", &p.norm3_weight},
                                    {"norm3_bias", &p.norm3_bias}}) {
            *vector = load<1>(in / (prefix + name + ".npy"));
        }
        p.linear1_weight = load<2>(in / (prefix + "linear1_weight.npy"));
        p.linear1_bias = load<1>(in / (prefix + "linear1_bias.npy"));
        p.linear2_weight = load<2>(in / (prefix + "linear2_weight.npy"));
        p.linear2_bias = load<1>(in / (prefix + "linear2_bias.npy"));
        c.layers.push_back(std::move(p));
    }
    c.memory = load<3>(in / "memory.npy");
    c.tokens = load<3>(in / "tokens.npy");
    c.expected = load<3>(folder / "expected" / "output.npy");
    return c;
}

// Every step's output, side by side: (B, T, D).
attn::fast::Tensor3 decode_all(attn::fast::IncrementalDecoder& decoder, const attn::fast::Tensor3& tokens) {
    attn::fast::Tensor3 outputs = xt::zeros<float>(tokens.shape());
    attn::fast::Matrix output;
    for (std::size_t t = 0; t < tokens.shape(1); ++t) {
        const attn::fast::Matrix token = xt::view(tokens, xt::all(), t, xt::all());
        decoder.step_into(token, output);
        xt::view(outputs, xt::all(), t, xt::all()) = output;
    }
    return outputs;
}

}  // namespace

TEST_CASE("fast decoding equals nn.TransformerDecoder re-run on every prefix, GQA included", "[fast_decode][pytorch]") {
    const auto folders = attn::testing::fixture_cases(ATTN_SOURCE_DIR "/tests/data/fast_decode", "decode");
    REQUIRE(folders.size() == 4);
    ThreadsGuard threads_guard;
    SimdGuard simd_guard;
    for (const auto& folder : folders) {
        const DecodeCase c = load_case(folder);
        for (const auto simd : attn::fast::detail::available_simd()) {
            for (const int threads : {1, 2}) {
                INFO(folder.filename().string() << " · " << attn::fast::detail::simd_name(simd) << " · " << threads
                                                << " threads");
                attn::fast::detail::use_simd(simd);
                attn::fast::set_threads(threads);
                attn::fast::IncrementalDecoder decoder(c.layers, c.options, c.memory, c.tokens.shape(1));
                CHECK_TENSOR_CLOSE(c.expected, decode_all(decoder, c.tokens), decode_absolute, decode_relative);
                CHECK(decoder.length() == c.tokens.shape(1));
            }
        }
    }
}

TEST_CASE("fast decoding equals the library's double decoder re-run on every causal prefix", "[fast_decode][lesson09]") {
    std::mt19937 generator(2811);
    const std::size_t B = 2, S = 11, T = 19, D = 24, F = 40, h = 3;
    for (const bool norm_first : {false, true}) {
        for (const auto activation : {attn::Activation::relu, attn::Activation::gelu, attn::Activation::gelu_tanh}) {
            INFO("norm_first " << norm_first << " activation (relu, gelu, gelu_tanh) " << int(activation));
            std::vector<attn::fast::DecoderLayerParameters> layers(2);
            std::vector<attn::DecoderLayerWeights> lesson_layers;
            for (auto& p : layers) {
                const attn::fast::EncoderLayerParameters ffn = attn::testing::random_fast_layer(generator, D, F);
                p.self_attention = ffn.attention;
                p.cross_attention = attn::testing::random_fast_parameters(generator, D, true);
                p.norm1_weight = ffn.norm1_weight;
                p.norm1_bias = ffn.norm1_bias;
                p.norm2_weight = ffn.norm2_weight;
                p.norm2_bias = ffn.norm2_bias;
                p.norm3_weight = random_float<1>(generator, {D});
                p.norm3_bias = random_float<1>(generator, {D});
                p.linear1_weight = ffn.linear1_weight;
                p.linear1_bias = ffn.linear1_bias;
                p.linear2_weight = ffn.linear2_weight;
                p.linear2_bias = ffn.linear2_bias;
                const attn::EncoderLayerWeights lesson_ffn = attn::testing::lesson_weights(ffn);
                lesson_layers.push_back({lesson_ffn.attention, attn::testing::lesson_weights(p.cross_attention),
                                         lesson_ffn.norm1_weight, lesson_ffn.norm1_bias, lesson_ffn.norm2_weight,
                                         lesson_ffn.norm2_bias, widen(p.norm3_weight), widen(p.norm3_bias),
                                         lesson_ffn.linear1_weight, lesson_ffn.linear1_bias, lesson_ffn.linear2_weight,
                                         lesson_ffn.linear2_bias});
            }
            const std::pair<attn::fast::Vector, attn::fast::Vector> norm{random_float<1>(generator, {D}),
                                                                         random_float<1>(generator, {D})};
            const auto memory = random_float<3>(generator, {B, S, D});
            const auto tokens = random_float<3>(generator, {B, T, D});

            attn::DecoderLayerOptions lesson_options(h);
            lesson_options.norm_first = norm_first;
            lesson_options.activation = activation;
            lesson_options.causal = true;
            attn::Tensor3 expected = xt::zeros<double>({B, T, D});
            for (std::size_t t = 0; t < T; ++t) {
                const attn::Tensor3 prefix = xt::view(widen(tokens), xt::all(), xt::range(0, t + 1), xt::all());
                const attn::Tensor3 out = attn::transformer_decoder(prefix, widen(memory), lesson_layers, lesson_options,
                                                                    std::make_pair(attn::Vector(widen(norm.first)),
                                                                                   attn::Vector(widen(norm.second))));
                xt::view(expected, xt::all(), t, xt::all()) = xt::view(out, xt::all(), t, xt::all());
            }
            attn::fast::DecoderOptions options(h);
            options.norm_first = norm_first;
            options.activation = activation;
            options.final_norm = norm;
            attn::fast::IncrementalDecoder decoder(layers, options, memory, T);
            CHECK_TENSOR_CLOSE(expected, decode_all(decoder, tokens), decode_absolute, decode_relative);
        }
    }
}

TEST_CASE("fast decoding: K/V heads shared equal the same heads copied out by repeat_interleave, not by repeat",
          "[fast_decode]") {
    // h = 4 query heads, g = 2 K/V heads, d_k = 3: heads 0 and 1 read K/V head 0, heads 2 and 3 head 1.
    const DecodeCase c = load_case(ATTN_SOURCE_DIR "/tests/data/fast_decode/decode-gqa-post-relu");
    const std::size_t h = c.options.heads, g = c.options.kv_heads, d_k = c.memory.shape(2) / h;
    REQUIRE(g < h);
    // w_k's rows of K/V head j, copied for each query head j·(h/g) + r: the weights of an
    // ordinary multi-head attention that does the same.
    auto interleaved = [&](const attn::fast::Matrix& w, bool tile) {
        attn::fast::Matrix out = xt::zeros<float>({h * d_k, w.shape(1)});
        for (std::size_t head = 0; head < h; ++head) {
            const std::size_t j = tile ? head % g : head / (h / g);
            xt::view(out, xt::range(head * d_k, (head + 1) * d_k), xt::all()) = xt::view(w, xt::range(j * d_k, (j + 1) * d_k), xt::all());
        }
        return out;
    };
    auto vector_interleaved = [&](const attn::fast::Vector& b, bool tile) {
        attn::fast::Matrix column = xt::view(b, xt::all(), xt::newaxis());
        return attn::fast::Vector(xt::view(interleaved(column, tile), xt::all(), 0));
    };
    auto expanded = [&](bool tile) {
        DecodeCase e = c;
        e.options.kv_heads = h;
        for (auto& layer : e.layers) {
            for (auto* a : {&layer.self_attention, &layer.cross_attention}) {
                a->w_k = interleaved(a->w_k, tile);
                a->w_v = interleaved(a->w_v, tile);
                a->b_k = vector_interleaved(*a->b_k, tile);
                a->b_v = vector_interleaved(*a->b_v, tile);
            }
        }
        attn::fast::IncrementalDecoder decoder(e.layers, e.options, e.memory, e.tokens.shape(1));
        return decode_all(decoder, e.tokens);
    };
    attn::fast::IncrementalDecoder shared(c.layers, c.options, c.memory, c.tokens.shape(1));
    const attn::fast::Tensor3 got = decode_all(shared, c.tokens);
    CHECK_TENSOR_CLOSE(expanded(false), got, 1e-6, 0.0);
    // The classic mistake, tiling (head j % g) instead: far from it.
    const auto report = attn::testing::match_tensors(attn::DynamicTensor(expanded(true)), attn::DynamicTensor(got), 1e-2, 0.0);
    INFO(report.report);
    CHECK_FALSE(report.passed);
}

TEST_CASE("fast decoding: reset() decodes again over the same memory, the same numbers", "[fast_decode]") {
    const DecodeCase c = load_case(ATTN_SOURCE_DIR "/tests/data/fast_decode/decode-post-relu-final-norm");
    attn::fast::IncrementalDecoder decoder(c.layers, c.options, c.memory, c.tokens.shape(1) + 3);
    const attn::fast::Tensor3 first = decode_all(decoder, c.tokens);
    CHECK(decoder.capacity() == c.tokens.shape(1) + 3);
    decoder.reset();
    CHECK(decoder.length() == 0);
    CHECK_TENSOR_CLOSE(first, decode_all(decoder, c.tokens), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(c.expected, first, decode_absolute, decode_relative);
}

TEST_CASE("fast decoding refuses bad arguments and names them", "[fast_decode][errors]") {
    const DecodeCase c = load_case(ATTN_SOURCE_DIR "/tests/data/fast_decode/decode-gqa-post-relu");  // B 2, S 9, D 32, h 4, g 2
    using attn::fast::IncrementalDecoder;
    const std::string name = "fast::IncrementalDecoder: ";
    auto options = c.options;
    options.kv_heads = 3;
    CHECK_THROWS_WITH(IncrementalDecoder(c.layers, options, c.memory, 4),
                      Catch::StartsWith(name + "kv_heads = 3 must divide heads = 4"));
    options.kv_heads = 4;  // w_k has g·d_k = 16 rows, not 32
    CHECK_THROWS_WITH(IncrementalDecoder(c.layers, options, c.memory, 4),
                      Catch::Contains("w_k and w_v have 16 rows") && Catch::Contains("must have kv_heads·d_k = 32"));
    options = c.options;
    options.heads = 0;
    CHECK_THROWS_AS(IncrementalDecoder(c.layers, options, c.memory, 4), attn::InputError);
    options = c.options;
    options.eps = 0.0f;
    CHECK_THROWS_WITH(IncrementalDecoder(c.layers, options, c.memory, 4), Catch::Contains("eps = 0"));
    CHECK_THROWS_WITH(IncrementalDecoder(c.layers, c.options, c.memory, 0), Catch::Contains("capacity = 0"));
    CHECK_THROWS_WITH(IncrementalDecoder({}, c.options, c.memory, 4), Catch::Contains("layers is empty"));
    auto layers = c.layers;
    layers[1].self_attention.w_k = xt::zeros<float>({16, 31});
    CHECK_THROWS_WITH(IncrementalDecoder(layers, c.options, c.memory, 4), Catch::Contains("layers[1].self_attention.w_k"));
    layers = c.layers;
    layers[0].cross_attention.w_o.reset();
    CHECK_THROWS_WITH(IncrementalDecoder(layers, c.options, c.memory, 4), Catch::Contains("cross_attention.w_o is absent"));
    const attn::fast::Tensor3 narrow = xt::zeros<float>({2, 9, 31});
    CHECK_THROWS_WITH(IncrementalDecoder(c.layers, c.options, narrow, 4), Catch::Contains("memory") && Catch::Contains("(2, 9, 31)"));
    attn::fast::Tensor3 bad_memory = c.memory;
    bad_memory(1, 2, 3) = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(IncrementalDecoder(c.layers, c.options, bad_memory, 4),
                      Catch::StartsWith(name + "memory[1, 2, 3] is nan"));

    IncrementalDecoder decoder(c.layers, c.options, c.memory, 2);
    const attn::fast::Matrix token = xt::view(c.tokens, xt::all(), 0, xt::all());
    CHECK_THROWS_WITH(decoder.step(attn::fast::Matrix(xt::zeros<float>({1, 32}))), Catch::Contains("token") && Catch::Contains("(1, 32)"));
    attn::fast::Matrix nan_token = token;
    nan_token(1, 5) = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(decoder.step(nan_token), Catch::StartsWith(name + "token[1, 5] is inf"));
    CHECK(decoder.length() == 0);
    decoder.step(token);
    decoder.step(token);
    CHECK_THROWS_WITH(decoder.step(token), Catch::StartsWith(name + "the cache is full: it holds 2 tokens"));
    CHECK(decoder.length() == 2);
    // Inputs too large for float32: the overflow is named at the output, and the cache is as before.
    decoder.reset();
    CHECK_THROWS_WITH(decoder.step(attn::fast::Matrix(token * 1e37f)), Catch::StartsWith(name + "output["));
    CHECK(decoder.length() == 0);
}
