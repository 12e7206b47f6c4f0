// `attn bench` through the real binary: the tiled path's options (--no-weights, --causal,
// --warmup), the tiles it reports, what it says it ran on (CPU, cores, kernels, the sgemm rate of
// the same run), and the sizes it refuses before allocating. Timing is not
// tested here (benchmarks never are): tiny shapes, one call.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "support/run_command.hpp"

using attn::testing::run_attn;

TEST_CASE("cli - bench mha --no-weights --causal runs the tiled path and counts the tiles it skipped", "[cli][bench][lesson07]") {
    // T = 600 in tiles of 64 queries and 512 keys: query tiles 0-63, …, 576-599 (10 of them); with
    // the causal mask the first 8 see only the first key tile, the last 2 both: 12 of 20 computed
    // per head, over 2 heads.
    const auto r = run_attn({"bench", "mha", "--batch", "1", "--seq", "600", "--d-model", "8", "--heads", "2",
                             "--threads", "2", "--repeat", "1", "--warmup", "0", "--no-weights", "--causal", "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const std::string key : {"\"need_weights\": false", "\"causal\": true", "\"warmup\": 0", "\"tiles_computed\": 24",
                                  "\"tiles_skipped\": 16", "\"attention_gflops\": ", "\"attention_ms\": ",
                                  "\"peak_rss_mb\": ", "\"cpu_model\": \"", "\"physical_cores\": ",
                                  "\"logical_cpus\": ", "\"kernels\": \"", "\"blas\": \"", "\"sgemm_gflops\": "}) {
        CHECK_THAT(r.out, Catch::Contains(key));
    }
    const auto table = run_attn({"bench", "mha", "--batch", "1", "--seq", "70", "--d-model", "8", "--heads", "2",
                                 "--threads", "1", "--repeat", "2", "--no-weights"});
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("B 1, T 70, D 8, h 2 · 1 thread · tiled · 2 timed calls after 1 warm-up call") &&
                              Catch::Contains("tiles computed 4, skipped 0") && Catch::Contains("peak RSS"));
    // What it ran on: the CPU and its cores, the kernels' instruction set, the sgemm rate beside
    // the attention's share of it.
    CHECK_THAT(table.out, Catch::Contains("  machine   ") && Catch::Contains(" physical core") &&
                              Catch::Contains(" · kernels ") && Catch::Contains("  BLAS      ") &&
                              Catch::Contains("  sgemm     ") &&
                              Catch::Contains(" % of sgemm"));
    const auto rope = run_attn({"bench", "mha", "--batch", "1", "--seq", "9", "--d-model", "8", "--heads", "2",
                                "--threads", "1", "--repeat", "1", "--no-weights", "--rope", "pairs"});
    CHECK(rope.exit_code == 0);
    CHECK_THAT(rope.out, Catch::Contains("· tiled · RoPE pairs · 1 timed call"));
    const auto weights = run_attn({"bench", "mha", "--batch", "1", "--seq", "7", "--d-model", "8", "--heads", "2",
                                   "--threads", "1", "--repeat", "1", "--causal"});
    CHECK_THAT(weights.out, Catch::Contains("· weights kept · causal ·"));
}

TEST_CASE("cli - bench refuses the weights of a long context but not its tiled path, and --no-weights for the layer",
          "[cli][bench][errors]") {
    // (1, 12, 32768, 32768) float32 weights are 48 GiB: refused before anything is allocated.
    const auto kept = run_attn({"bench", "mha", "--batch", "1", "--seq", "32768", "--heads", "12"});
    CHECK(kept.exit_code == 2);
    CHECK_THAT(kept.err, Catch::Contains("the limit is 8 GiB") && Catch::Contains("--no-weights does not hold"));
    const auto layer = run_attn({"bench", "encoder-layer", "--no-weights"});
    CHECK(layer.exit_code == 2);
    CHECK_THAT(layer.err, Catch::Contains("--no-weights applies to mha only"));
    const auto warmup = run_attn({"bench", "mha", "--warmup", "-1"});
    CHECK(warmup.exit_code == 2);
    CHECK_THAT(warmup.err, Catch::Contains("--warmup must be at least 0 (got -1)"));
}

TEST_CASE("cli - bench refuses bad options with exit 2 and a message naming the option", "[cli][bench][errors]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"bench", "mha", "--d-model", "10", "--heads", "3"}, "--heads 3 does not divide --d-model 10"},
        {{"bench", "mha", "--batch", "0"}, "--batch must be at least 1 (got 0)"},
        {{"bench", "encoder-layer", "--seq=0"}, "--seq must be at least 1 (got 0)"},
        {{"bench", "encoder-layer", "--d-ff", "0"}, "--d-ff must be at least 1 (got 0)"},
        {{"bench", "mha", "--threads", "0"}, "--threads must be at least 1 (got 0)"},
        {{"bench", "mha", "--threads=-2"}, "--threads must be at least 1 (got -2)"},
        {{"bench", "mha", "--repeat", "0"}, "--repeat must be at least 1 (got 0)"},
        {{"bench", "mha", "--d-ff", "64"}, "--d-ff applies to encoder-layer and decode only"},
        {{"bench", "attention"}, "unknown module 'attention'; the modules are: mha, encoder-layer, decode"},
        {{"bench", "mha", "--rope", "spiral\x1b[31m"}, "--rope spiral"},
        {{"bench", "encoder-layer", "--rope", "halves"}, "--rope applies to mha only"},
        {{"bench", "mha", "--d-model", "6", "--heads", "2", "--rope", "pairs"}, "even d_k = d_model / heads"},
        {{"bench", "encoder-layer", "--backward"}, "--backward applies to mha only, not to encoder-layer"},
        {{"bench", "decode", "--backward"}, "--backward applies to mha only, not to decode"},
        {{"bench", "mha", "--backward", "--rope", "halves"}, "--rope does not apply to mha --backward"},
        {{"bench", "mha", "--backward", "--no-weights"}, "--no-weights does not apply to mha --backward"},
        {{"bench", "mha", "--backward", "--d-model", "10", "--heads", "3"}, "--heads 3 does not divide --d-model 10"},
        {{"bench", "mha", "--backward", "--repeat", "0"}, "--repeat must be at least 1 (got 0)"},
        {{"bench", "mha", "--backward", "--batch", "64", "--seq", "100000"}, "would need 183.1 GiB of memory; the limit is 8 GiB"},
    };
    for (const auto& [arguments, message] : cases) {
        const auto r = run_attn(arguments);
        INFO(arguments[1] << " " << message << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(message));
        CHECK(r.out.empty());
    }
    CHECK_THAT(run_attn({"bench", "mha", "--rope", "spiral\x1b[31m"}).err, !Catch::Contains("\x1b"));  // sanitised
    CHECK(run_attn({"bench", "mha", "--batch", "two"}).exit_code == 2);  // the parser's own message
    CHECK(run_attn({"bench"}).exit_code == 2);
}

TEST_CASE("cli - bench prints one JSON object with the documented keys", "[cli][bench]") {
    // A tiny shape and one timed call: this checks the output, not the speed.
    const auto r = run_attn({"bench", "mha", "--batch", "2", "--seq", "5", "--d-model", "8", "--heads", "2",
                             "--threads", "1", "--repeat", "1", "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("{\"module\": \"mha\", \"shape\": {\"batch\": 2, \"seq\": 5, \"d_model\": 8, "
                                        "\"heads\": 2, \"d_ff\": null}") &&
                          Catch::EndsWith("}\n"));
    for (const std::string key : {"\"threads\": 1", "\"min_ms\": ", "\"median_ms\": ", "\"gflops\": ", "\"peak_rss_mb\": "}) {
        CHECK_THAT(r.out, Catch::Contains(key));
    }
    const auto table = run_attn({"bench", "encoder-layer", "--batch", "1", "--seq", "4", "--d-model", "8", "--heads",
                                 "2", "--d-ff", "16", "--threads", "2", "--repeat", "2"});
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("attn bench encoder-layer · float32 · B 1, T 4, D 8, h 2, F 16 · 2 threads") &&
                              Catch::Contains("GFLOP/s") && Catch::Contains("peak RSS"));
    CHECK_THAT(run_attn({"bench", "--help"}).out, Catch::Contains("encoder-layer") && Catch::Contains("--d-ff 2048"));
}

TEST_CASE("cli - bench decode generates tokens with the cache and reports tokens per second", "[cli][bench][fast_decode]") {
    // A tiny decoder: 2 layers, D 8, h 4 with 2 K/V heads, 5 tokens over a memory of 3. The output
    // is checked, not the speed: tokens_per_s = tokens / min_ms, as printed.
    const auto r = run_attn({"bench", "decode", "--layers", "2", "--d-model", "8", "--heads", "4", "--kv-heads", "2",
                             "--d-ff", "16", "--memory", "3", "--tokens", "5", "--threads", "2", "--repeat", "2",
                             "--warmup", "0", "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("{\"module\": \"decode\", \"shape\": {\"batch\": 1, \"layers\": 2, \"d_model\": 8, "
                                        "\"heads\": 4, \"kv_heads\": 2, \"d_ff\": 16, \"memory\": 3, \"tokens\": 5}") &&
                          Catch::EndsWith("}\n"));
    for (const std::string key : {"\"threads\": 2", "\"repeat\": 2", "\"warmup\": 0", "\"min_ms\": ", "\"median_ms\": ",
                                  "\"tokens_per_s\": ", "\"ms_per_token\": ", "\"memory_ms\": ", "\"weights_gb_per_s\": ",
                                  "\"cache_mb\": ", "\"peak_rss_mb\": ", "\"cpu_model\": \"", "\"sgemm_gflops\": "}) {
        CHECK_THAT(r.out, Catch::Contains(key));
    }
    // The numbers agree with each other: tokens_per_s = 5 / (min_ms / 1000), within the rounding
    // of min_ms to 3 decimals (a tiny run takes well under a millisecond) and of tokens_per_s to 2.
    auto number = [&](const std::string& key) {
        const auto at = r.out.find("\"" + key + "\": ");
        REQUIRE(at != std::string::npos);
        return std::stod(r.out.substr(at + key.size() + 4));
    };
    const double min_ms = number("min_ms"), expected = 5000.0 / min_ms;
    INFO("min_ms " << min_ms << " tokens_per_s " << number("tokens_per_s") << " expected " << expected);
    CHECK(std::abs(number("tokens_per_s") - expected) <= expected * 0.0005 / std::max(min_ms - 0.0005, 1e-9) + 0.005);
    const auto table = run_attn({"bench", "decode", "--layers", "1", "--d-model", "8", "--heads", "2", "--d-ff", "8",
                                 "--memory", "4", "--tokens", "3", "--threads", "1", "--repeat", "1"});
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("attn bench decode · float32 · B 1, L 1, D 8, h 2, g 2, F 8, S 4 · 3 tokens · "
                                          "1 thread · 1 timed generation after 1 warm-up generation") &&
                              Catch::Contains("  tokens/s  ") && Catch::Contains("  machine   ") &&
                              Catch::Contains("the cache holds"));
    CHECK_THAT(run_attn({"bench", "--help"}).out, Catch::Contains("decode") && Catch::Contains("--kv-heads") &&
                                                      Catch::Contains("--memory 512 --tokens 512"));
}

TEST_CASE("cli - bench decode refuses bad options with exit 2 and names them", "[cli][bench][errors][fast_decode]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"bench", "decode", "--heads", "8", "--kv-heads", "3"}, "--kv-heads 3 does not divide --heads 8"},
        {{"bench", "decode", "--d-model", "10", "--heads", "4"}, "--heads 4 does not divide --d-model 10"},
        {{"bench", "decode", "--tokens", "0"}, "--tokens must be at least 1 (got 0)"},
        {{"bench", "decode", "--memory=-1"}, "--memory must be at least 1 (got -1)"},
        {{"bench", "decode", "--layers", "0"}, "--layers must be at least 1 (got 0)"},
        {{"bench", "decode", "--kv-heads", "0"}, "--kv-heads must be at least 1 (got 0)"},
        {{"bench", "decode", "--repeat", "0"}, "--repeat must be at least 1 (got 0)"},
        {{"bench", "decode", "--seq", "4"}, "--seq does not apply to decode"},
        {{"bench", "decode", "--causal"}, "--causal does not apply to decode"},
        {{"bench", "mha", "--tokens", "4"}, "--tokens applies to decode only, not to mha"},
        {{"bench", "encoder-layer", "--kv-heads", "2"}, "--kv-heads applies to decode only, not to encoder-layer"},
        {{"bench", "decode", "--tokens", "100000000", "--layers", "100"}, "the limit is 8 GiB"},
    };
    for (const auto& [arguments, message] : cases) {
        const auto r = run_attn(arguments);
        INFO(arguments[2] << " " << message << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(message));
        CHECK(r.out.empty());
    }
    CHECK(run_attn({"bench", "decode", "--kv-heads", "two"}).exit_code == 2);  // the parser's own message
}

TEST_CASE("cli - bench mha --backward times the training step and prints its parts", "[cli][bench]") {
    const auto r = run_attn({"bench", "mha", "--backward", "--batch", "2", "--seq", "5", "--d-model", "8", "--heads", "2",
                             "--threads", "1", "--repeat", "2", "--json"});
    REQUIRE(r.exit_code == 0);
    // FLOPs (2 per multiply-add), B 2, T = S 5, D 8: forward 8·B·T·D² + 4·B·T²·D = 5120 + 1600;
    // backward: the output projection's two products 4·B·T·D², the heads' five 10·B·T²·D, the Q, K,
    // V projections' six 12·B·T·D²: 2560 + 4000 + 7680.
    CHECK_THAT(r.out, Catch::StartsWith("{\"module\": \"mha-backward\", \"shape\": {\"batch\": 2, \"seq\": 5, "
                                        "\"d_model\": 8, \"heads\": 2}") &&
                          Catch::Contains("\"forward_gflop\": 0.0000, \"backward_gflop\": 0.0000"));
    for (const char* key : {"\"min_ms\": ", "\"forward_ms\": ", "\"backward_ms\": ", "\"backward_attention_ms\": ",
                            "\"backward_projection_ms\": ", "\"peak_rss_mb\": ", "\"sgemm_gflops\": "}) {
        CHECK_THAT(r.out, Catch::Contains(key));
    }
    const auto table = run_attn({"bench", "mha", "--backward", "--batch", "4", "--seq", "64", "--d-model", "32", "--heads",
                                 "4", "--threads", "2", "--repeat", "1"});
    CHECK(table.exit_code == 0);
    // forward 8·4·64·32² + 4·4·64²·32 = 2 097 152 + 2 097 152; backward 4·4·64·32² + 10·4·64²·32 +
    // 12·4·64·32² = 1 048 576 + 5 242 880 + 3 145 728.
    CHECK_THAT(table.out, Catch::Contains("attn bench mha --backward · float32 · B 4, T 64, D 32, h 4 · 2 threads · "
                                          "1 timed step after 1 warm-up step") &&
                              Catch::Contains("GFLOP of matrix products: forward 0.004, backward 0.009)") &&
                              Catch::Contains("  backward  output projection "));
}

TEST_CASE("cli - bench train times the copy model's training step; bad options are exit 2 naming them", "[cli][bench]") {
    const auto r = run_attn({"bench", "train", "--d-model", "32", "--heads", "4", "--d-ff", "64", "--batch", "4",
                             "--threads", "1", "--repeat", "2", "--warmup", "0", "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Parameters, D 32, F 64, V 11: an encoder layer 3168 + 1056 + 2112 + 2080 + 128 = 8544, a decoder
    // layer 2 · 4224 + 4192 + 192 = 12832, two of each, the final norms 2 · 64, the embeddings
    // 2 · 352 and the generator 363: 17088 + 25664 + 128 + 704 + 363 = 43947.
    CHECK_THAT(r.out, Catch::StartsWith("{\"module\": \"train\", \"shape\": {\"batch\": 4, \"seq\": 10, \"d_model\": 32, "
                                        "\"heads\": 4, \"d_ff\": 64, \"layers\": 2, \"vocabulary\": 11}, "
                                        "\"dtype\": \"float32\", \"parameters\": 43947, \"threads\": 1, \"repeat\": 2"));
    for (const char* key : {"\"min_ms\": ", "\"median_ms\": ", "\"peak_rss_mb\": ", "\"sgemm_gflops\": "}) {
        CHECK_THAT(r.out, Catch::Contains(key));
    }
    for (const auto& [arguments, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"bench", "train", "--causal"}, "--causal does not apply to bench train"},
             {{"bench", "train", "--backward"}, "--backward applies to mha only, not to train"},
             {{"bench", "train", "--seq", "1"}, "--seq must be at least 2 (got 1)"},
             {{"bench", "train", "--d-model", "10", "--heads", "3"}, "--heads 3 does not divide --d-model 10"},
             {{"bench", "train", "--repeat", "0"}, "--repeat must be at least 1 (got 0)"},
             {{"bench", "train", "--batch", "4096", "--seq", "4096"}, "the limit is 8 GiB"}}) {
        const auto refused = run_attn(arguments);
        INFO(message);
        CHECK(refused.exit_code == 2);
        CHECK_THAT(refused.err, Catch::Contains(message));
    }
}
