// Tests for attn/npz.hpp's writer: the bytes Python's zipfile stores for the same .npy members,
// a round trip through the reader, refusals, and an archive written all or none.
#include <catch2/catch.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/npz.hpp"
#include "support/temp_dir.hpp"

using attn::NpyDtype;
using attn::NpzOutputMember;
using attn::testing::read_file;
using attn::testing::TempDir;
using Catch::Matchers::Contains;

namespace {

// The members of tools/make_npz_write_fixture.py, encoded by this library's encode_npy.
std::vector<NpzOutputMember> fixture_members() {
    return {
        {"encoder.layers.0.linear1.bias", attn::encode_npy({3}, {0.5, -1.25, 3.0}, NpyDtype::float32)},
        {"generator.weight", attn::encode_npy({2, 3}, {0, 0.125, 0.25, 0.375, 0.5, 0.625}, NpyDtype::float64)},
        {"ids", attn::encode_npy({2, 3}, {1, 2, 3, 1, -7, 10}, NpyDtype::integer)},
        {"keep", attn::encode_npy({3}, {1, 0, 1}, NpyDtype::boolean)},
    };
}

// The first offset where two byte strings differ, for a failure message a person can act on.
std::string first_difference(const std::string& expected, const std::string& got) {
    std::size_t at = 0;
    while (at < expected.size() && at < got.size() && expected[at] == got[at]) ++at;
    return "sizes " + std::to_string(expected.size()) + " (expected) and " + std::to_string(got.size()) +
           " (got); first difference at byte " + std::to_string(at);
}

}  // namespace

TEST_CASE("npz writer - the bytes Python's zipfile stores for numpy's .npy members", "[npz]") {
    const std::string expected = read_file(ATTN_SOURCE_DIR "/tests/data/npz_write/zipfile_stored.npz");
    REQUIRE(expected.size() == 1085);
    const std::string got = attn::encode_npz(fixture_members());
    INFO(first_difference(expected, got));
    CHECK(got == expected);
}

TEST_CASE("npz writer - what it writes, the reader reads back, in order and to the bit", "[npz]") {
    const auto members = attn::parse_npz(attn::encode_npz(fixture_members()), "written.npz",
                                         [](const std::string&) { return attn::NpyAccept::floats_bools_integers; });
    REQUIRE(members.size() == 4);
    CHECK(members[0].first == "encoder.layers.0.linear1.bias");
    CHECK(members[0].second.values == std::vector<double>{0.5, -1.25, 3.0});
    CHECK(members[1].second.shape == std::vector<std::size_t>{2, 3});
    CHECK(members[1].second.values[5] == 0.625);
    CHECK(members[2].second.dtype == NpyDtype::integer);
    CHECK(members[2].second.values == std::vector<double>{1, 2, 3, 1, -7, 10});
    CHECK(members[3].second.dtype == NpyDtype::boolean);
    CHECK(members[3].second.values == std::vector<double>{1, 0, 1});
    CHECK(attn::parse_npz(attn::encode_npz({}), "empty.npz").empty());
}

TEST_CASE("npz writer - keys a reader would refuse or confuse are refused before anything is written", "[npz]") {
    const std::string npy = attn::encode_npy({1}, {1.0}, NpyDtype::float64);
    CHECK_THROWS_WITH(attn::encode_npz({{"", npy}}), Contains("empty key"));
    CHECK_THROWS_WITH(attn::encode_npz({{"layers/0", npy}}), Contains("'layers/0' has a folder in it"));
    CHECK_THROWS_WITH(attn::encode_npz({{"a\\b", npy}}), Contains("has a folder in it"));
    CHECK_THROWS_WITH(attn::encode_npz({{"w", npy}, {"w", npy}}), Contains("'w' is given twice"));
    CHECK_THROWS_WITH(attn::encode_npy({2}, {1.5, 2}, NpyDtype::integer), Contains("value 0 is not an integer"));

    TempDir dir;
    const std::string path = dir.path() + "/model.npz";
    CHECK_THROWS_AS(attn::write_npz(path, {{"w", npy}, {"w", npy}}), std::invalid_argument);
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("npz writer - write_npz puts the whole archive in place, and an unwritable path is an InputError", "[npz]") {
    TempDir dir;
    const std::string path = dir.path() + "/model.npz";
    attn::write_npz(path, fixture_members());
    CHECK(read_file(path) == attn::encode_npz(fixture_members()));
    CHECK(attn::read_npz(path, [](const std::string&) { return attn::NpyAccept::floats_bools_integers; }).size() == 4);
    CHECK_THROWS_AS(attn::write_npz(dir.path() + "/missing/folder/model.npz", fixture_members()), attn::InputError);
}
