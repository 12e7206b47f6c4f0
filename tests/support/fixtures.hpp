// tests/support/fixtures.hpp — reading the PyTorch fixtures of tests/data/compute.
//
// Each case is a folder MODULE-CASE/ with in/<name>.npy, expected/<name>.npy and, for modules
// with options, options.txt (one key=value per line). tools/make_compute_fixtures.py writes them.
//
//   for (const auto& dir : attn::testing::fixture_cases("encoder-layer")) {
//       auto x = attn::testing::load_tensor(dir / "in" / "x.npy");
//       auto options = attn::testing::read_key_values(dir / "options.txt");   // {"heads": "2", ...}
//   }
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::testing {

/// A .npy file as a tensor of doubles.
DynamicTensor load_tensor(const std::filesystem::path& path);

/// "key=value" lines; a missing file is an empty map.
std::map<std::string, std::string> read_key_values(const std::filesystem::path& path);

/// The bytes of a .npy file written by hand, so that each field of the header can be wrong on
/// purpose: {'descr': DESCR, 'fortran_order': FORTRAN, 'shape': SHAPE, } and `data_bytes` zeros.
std::string npy_bytes(const std::string& descr, const std::string& fortran, const std::string& shape,
                      std::size_t data_bytes);

/// The case folders tests/data/compute/<module>-*, sorted by name.
std::vector<std::filesystem::path> fixture_cases(const std::string& module);

/// The case folders <folder>/<module>-*, sorted by name (tests/data/fast_attention has the same format).
std::vector<std::filesystem::path> fixture_cases(const std::filesystem::path& folder, const std::string& module);

}  // namespace attn::testing
