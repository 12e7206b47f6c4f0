// Tests for attn/npy.hpp's writer: NumPy's bytes on disk, round trips, and failures that leave
// nothing behind (no temporary, no half-written file).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/npy.hpp"
#include "support/npy_bytes.hpp"
#include "support/temp_dir.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using attn::testing::input_error_message;
using attn::testing::read_file;
using attn::testing::sample_values;
using attn::testing::TempDir;
using attn::testing::write_file;
using Shape = std::vector<std::size_t>;
using Values = std::vector<double>;

namespace {

std::string fixture(const std::string& name) { return ATTN_SOURCE_DIR "/tests/data/npy/" + name; }

// The names in `folder`, sorted, so that a leftover temporary file shows up in the failure output.
std::vector<std::string> folder_entries(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Writing files

TEST_CASE("write_npy writes the same bytes as np.save of float32 arange 6 reshaped 2x3", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/context.npy";
    attn::write_npy(path, {2, 3}, Values{0, 1, 2, 3, 4, 5}, attn::NpyDtype::float32);
    const std::string numpy_bytes = read_file(fixture("float32_2x3.npy"));
    REQUIRE(numpy_bytes.size() == 152);  // 128 bytes of header, 24 of data: the fixture is intact
    CHECK(read_file(path) == numpy_bytes);
}

TEST_CASE("write_npy then read_npy gives back the array", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/weights.npy";
    const Values values = sample_values(12);
    attn::write_npy(path, {3, 4}, values, attn::NpyDtype::float64);
    const attn::NpyArray array = attn::read_npy(path);
    CHECK(array.shape == Shape{3, 4});
    CHECK(attn::dtype_name(array.dtype) == "float64");
    CHECK(array.values == values);
}

TEST_CASE("write_npy leaves no temporary file beside the target", "[npy]") {
    TempDir dir;
    attn::write_npy(dir.path() + "/out.npy", {2}, Values{1, 2}, attn::NpyDtype::float32);
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"out.npy"});
}

TEST_CASE("write_npy replaces an existing file whole", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/out.npy";
    write_file(path, std::string(1000, 'x'));  // longer than the new file: no stale tail may remain
    attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32);
    CHECK(read_file(path) == attn::encode_npy({2}, Values{1, 2}, attn::NpyDtype::float32));
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"out.npy"});
}

TEST_CASE("write_npy into a missing folder throws naming the path and leaves nothing", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/missing/out.npy";
    const std::string message =
        input_error_message([&] { attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32); });
    CHECK_THAT(message, StartsWith("cannot write " + path + ": ") && Contains("missing does not exist"));
    CHECK(folder_entries(dir.path()).empty());
}

TEST_CASE("write_npy below a regular file throws naming the path and leaves nothing", "[npy]") {
    // Tests run as root, so a read-only folder would not stop the write; a path through a regular
    // file fails for everyone.
    TempDir dir;
    write_file(dir.path() + "/plain.txt", "not a folder");
    const std::string path = dir.path() + "/plain.txt/out.npy";
    const std::string message =
        input_error_message([&] { attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32); });
    CHECK_THAT(message, StartsWith("cannot write " + path + ": ") && Contains("plain.txt is not a folder"));
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"plain.txt"});
    CHECK(read_file(dir.path() + "/plain.txt") == "not a folder");
}

TEST_CASE("write_npy onto an existing folder throws and writes nothing", "[npy]") {
    // Refused before anything is staged (tests/test_files.cpp covers the writer's other failures).
    TempDir dir;
    const std::string path = dir.path() + "/taken";
    std::filesystem::create_directory(path);
    const std::string message =
        input_error_message([&] { attn::write_npy(path, {2}, Values{1, 2}, attn::NpyDtype::float32); });
    CHECK_THAT(message, StartsWith("cannot write " + path + ": it is a folder"));
    CHECK(folder_entries(dir.path()) == std::vector<std::string>{"taken"});
    CHECK(std::filesystem::is_directory(path));
}

TEST_CASE("write_npy with a wrong value count creates nothing", "[npy]") {
    TempDir dir;
    const std::string path = dir.path() + "/out.npy";
    CHECK_THROWS_AS(attn::write_npy(path, {2, 2}, Values{1, 2, 3}, attn::NpyDtype::float64), std::invalid_argument);
    CHECK(folder_entries(dir.path()).empty());
}

TEST_CASE("dtype_name spells the NumPy names", "[npy]") {
    CHECK(attn::dtype_name(attn::NpyDtype::float32) == "float32");
    CHECK(attn::dtype_name(attn::NpyDtype::float64) == "float64");
}

TEST_CASE("npy writer - encode_npy_uint8 writes the bytes numpy.frombuffer(…, numpy.uint8) saves", "[npy]") {
    // np.lib.format.write_array(f, np.frombuffer(b'{"heads": 2}', np.uint8), version=(1, 0)): 140 bytes.
    std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (12,), }";
    header.append(117 - header.size(), ' ');
    const std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + header + "\n" + "{\"heads\": 2}";
    REQUIRE(expected.size() == 140);
    const std::string got = attn::encode_npy_uint8("{\"heads\": 2}");
    CHECK(got == expected);
    const attn::NpyArray back = attn::parse_npy(got, "config.npy", attn::NpyAccept::floats_bools_integers);
    CHECK(back.dtype == attn::NpyDtype::integer);
    CHECK(back.shape == std::vector<std::size_t>{12});
    CHECK(back.values.front() == double('{'));
}
