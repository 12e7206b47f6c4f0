// tests/support/training_fixtures.hpp — reading tests/data/training (tools/make_training_fixtures.py)
// and integer .npy files: token ids (B, T) and targets (N), saved by PyTorch as int64.
//
//   for (const auto& dir : attn::testing::training_cases("adam")) { … dir / "options.txt" … }
//   attn::IdTensor ids = attn::testing::load_ids(dir / "in" / "ids.npy");
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "attn/embedding.hpp"

namespace attn::testing {

/// The case folders tests/data/training/<module>-*, sorted by name; at least one (REQUIREd).
std::vector<std::filesystem::path> training_cases(const std::string& module);

/// A 2-D int64 .npy file (REQUIREs its dtype and rank).
IdTensor load_ids(const std::filesystem::path& path);

/// A 1-D int64 .npy file (REQUIREs its dtype and rank).
std::vector<std::int64_t> load_id_vector(const std::filesystem::path& path);

/// "none" → no value; otherwise the integer (options.txt's padding_index=…).
std::optional<std::int64_t> optional_index(const std::string& text);

}  // namespace attn::testing
