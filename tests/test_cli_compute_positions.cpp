// Lesson 8's `attn compute` modules through the real binary: positions, rope and embedding against
// PyTorch's outputs recorded by tools/make_position_compute_fixtures.py (tests/data/compute), and
// their refusals: exit 2, a message naming what is wrong, nothing written.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "attn/npy.hpp"
#include "attn/npy_tensor.hpp"
#include "support/fixtures.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tensor_match.hpp"

namespace {

using attn::testing::no_abort;
using attn::testing::npy_bytes;
using attn::testing::run_attn;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/compute";

struct PositionCase {
    std::string module;
    std::string folder;
    std::vector<std::string> options;
};

// Runs a recorded case and compares every expected output, in its dtype: float32 at 1e-5,
// float64 at 1e-6.
void check_case(const PositionCase& c) {
    TempDir out;
    std::vector<std::string> arguments = {"compute", c.module, "--in", fixtures + "/" + c.folder + "/in", "--out",
                                          out.path() + "/results"};
    arguments.insert(arguments.end(), c.options.begin(), c.options.end());
    const auto r = run_attn(arguments);
    INFO(c.folder << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    std::size_t compared = 0;
    for (const auto& entry : fs::directory_iterator(fixtures + "/" + c.folder + "/expected")) {
        const std::string name = entry.path().filename().string();
        INFO(name);
        const auto expected = attn::read_npy(entry.path().string());
        const auto got = attn::read_npy(out.path() + "/results/" + name);
        CHECK(got.dtype == expected.dtype);
        REQUIRE(got.shape == expected.shape);
        const double tolerance = expected.dtype == attn::NpyDtype::float32 ? 1e-5 : 1e-6;
        CHECK_TENSOR_CLOSE(attn::to_tensor(expected), attn::to_tensor(got), tolerance, tolerance);
        ++compared;
    }
    CHECK(static_cast<std::ptrdiff_t>(compared) == std::distance(fs::directory_iterator(out.path() + "/results"), fs::directory_iterator()));
}

void save(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values) {
    write_file(path, attn::encode_npy(shape, values, attn::NpyDtype::float32));
}

// An int64 .npy file (torch.long's), its header written by hand: `shape_text` "(1, 3)".
void save_integers(const std::string& path, const std::string& shape_text, const std::vector<std::int64_t>& values) {
    std::string bytes = npy_bytes("<i8", "False", shape_text, 0);
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(std::int64_t));
    write_file(path, bytes);
}

// Runs `attn compute module` on `in`: exit 2, every fragment in the message, nothing written.
void expect_refused(const std::string& module, const std::string& in, const std::vector<std::string>& options,
                    const std::vector<std::string>& fragments) {
    TempDir out;
    std::vector<std::string> arguments = {"compute", module, "--in", in, "--out", out.path() + "/results"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    const auto r = run_attn(arguments);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(no_abort(r));
    for (const auto& fragment : fragments) CHECK_THAT(r.err, Catch::Contains(fragment));
    CHECK_FALSE(fs::exists(out.path() + "/results"));
}

}  // namespace

TEST_CASE("cli - compute positions adds the Annotated Transformer's table", "[cli][compute][lesson08]") {
    for (const std::string folder : {"positions-batch2", "positions-float64", "positions-b1-t1"}) {
        check_case({"positions", folder, {}});
    }
}

TEST_CASE("cli - compute rope matches rotate_half and rotate_every_two", "[cli][compute][lesson08]") {
    check_case({"rope", "rope-halves", {}});
    check_case({"rope", "rope-halves", {"--rope-layout", "halves"}});
    check_case({"rope", "rope-pairs", {"--rope-layout", "pairs"}});
    check_case({"rope", "rope-float64-base", {"--rope-base", "500000"}});
    check_case({"rope", "rope-positions", {"--rope-layout", "pairs"}});  // queries after cached keys
}

TEST_CASE("cli - compute embedding matches F.embedding times --scale", "[cli][compute][lesson08]") {
    check_case({"embedding", "embedding-scaled", {"--scale", "2.8284271247461903"}});
    check_case({"embedding", "embedding-float64", {}});
    // nn.Embedding's padding_idx does not change the forward: the same numbers with it.
    check_case({"embedding", "embedding-float64", {"--padding-idx", "0"}});
    check_case({"embedding", "embedding-float64", {"--padding-idx", "-7"}});
}

TEST_CASE("cli - compute rope refuses an odd d_k and positions of the wrong length", "[cli][compute][lesson08][errors]") {
    TempDir dir;
    const std::string in = dir.path() + "/in";
    fs::create_directories(in);
    SECTION("odd d_k") {
        save(in + "/q.npy", {1, 1, 2, 3}, std::vector<double>(6, 0.5));
        save(in + "/k.npy", {1, 1, 2, 3}, std::vector<double>(6, 0.5));
        expect_refused("rope", in, {}, {"rope", "q (1, 1, 2, 3)", "d_k = 3 is odd"});
    }
    SECTION("positions_q of the wrong length") {
        fs::copy(fixtures + "/rope-positions/in", in, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        save_integers(in + "/positions_q.npy", "(2,)", {0, 1});
        expect_refused("rope", in, {}, {"positions_q", "(2)", "q", "(2, 1, 3, 4)"});
    }
    SECTION("a negative position") {
        fs::copy(fixtures + "/rope-positions/in", in, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        save_integers(in + "/positions_k.npy", "(7,)", {0, 1, 2, -3, 4, 5, 6});
        expect_refused("rope", in, {}, {"positions_k[3] = -3", "negative"});
    }
    SECTION("floating-point positions") {
        fs::copy(fixtures + "/rope-positions/in", in, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        save(in + "/positions_q.npy", {3}, {4, 5, 6});
        expect_refused("rope", in, {}, {"positions_q must hold integers"});
    }
    SECTION("a bogus --rope-layout") {
        fs::copy(fixtures + "/rope-halves/in", in, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        expect_refused("rope", in, {"--rope-layout", "bogus"}, {"--rope-layout bogus", "halves", "pairs"});
    }
    SECTION("a --rope-base that is not above 0") {
        fs::copy(fixtures + "/rope-halves/in", in, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        expect_refused("rope", in, {"--rope-base", "0"}, {"--rope-base", "greater than 0"});
    }
}

TEST_CASE("cli - compute embedding names an id outside the table with its position", "[cli][compute][lesson08][errors]") {
    TempDir dir;
    const std::string in = dir.path() + "/in";
    fs::create_directories(in);
    save(in + "/weight.npy", {3, 2}, {0, 0, 1, 2, 3, 4});
    SECTION("a negative id") {
        save_integers(in + "/ids.npy", "(1, 3)", {2, -1, 1});
        expect_refused("embedding", in, {}, {"embedding", "ids[0, 1] = -1"});
    }
    SECTION("an id equal to V") {
        save_integers(in + "/ids.npy", "(2, 2)", {0, 1, 2, 3});
        expect_refused("embedding", in, {}, {"ids[1, 1] = 3", "V = 3"});
    }
    SECTION("an id beyond what a double holds exactly") {
        save_integers(in + "/ids.npy", "(1, 2)", {1, INT64_MAX});
        expect_refused("embedding", in, {}, {"ids[0, 1] is about 9.22337e+18", "too large"});
    }
    SECTION("floating-point ids") {
        save(in + "/ids.npy", {1, 2}, {0, 1});
        expect_refused("embedding", in, {}, {"ids must hold integers"});
    }
    SECTION("boolean ids, which PyTorch's embedding refuses too") {
        write_file(in + "/ids.npy", npy_bytes("|b1", "False", "(1, 2)", 0) + std::string("\x01\x00", 2));
        expect_refused("embedding", in, {}, {"ids.npy holds booleans", "int64"});
    }
    SECTION("a --padding-idx outside [-V, V)") {
        save_integers(in + "/ids.npy", "(1, 2)", {0, 1});
        expect_refused("embedding", in, {"--padding-idx", "3"}, {"--padding-idx 3", "(3, 2)", "[-3, 3)"});
        expect_refused("embedding", in, {"--padding-idx", "-4"}, {"--padding-idx -4"});
    }
}

TEST_CASE("cli - compute refuses lesson 8's options given to a module that does not take them",
          "[cli][compute][lesson08][errors]") {
    const std::string positions = fixtures + "/positions-batch2/in";
    expect_refused("positions", positions, {"--rope-layout", "pairs"}, {"positions has no rotary embedding", "--rope-layout"});
    expect_refused("positions", positions, {"--scale", "2"}, {"positions has no embedding table", "--scale"});
    expect_refused("embedding", fixtures + "/embedding-scaled/in", {"--rope-base", "100"},
                   {"embedding has no rotary embedding", "--rope-base"});
    expect_refused("rope", fixtures + "/rope-halves/in", {"--padding-idx", "0"}, {"rope has no embedding table"});
    expect_refused("rope", fixtures + "/rope-halves/in", {"--heads", "2"}, {"rope has no heads"});
}
