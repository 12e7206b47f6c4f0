// libFuzzer harness: the .npz reader (attn::parse_npz). What is checked for each input is in
// fuzz_targets.cpp, shared with tests/test_fuzz_regressions.cpp, which replays every finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::npz_input(std::string(reinterpret_cast<const char*>(data), size));
    return 0;
}
