// attn::io alone through the installed package: a (2, 3) float32 .npy written to bytes and read
// back (each value float32-rounded, as numpy.save of a float32 array stores it), then the same
// bytes cut short refused with an InputError that names the file.
#include <cstdio>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/npy.hpp"

int main() {
    const std::vector<double> values = {0.5, -1.25, 3.0, 1e-3, 7.0, -0.1};
    const std::string bytes = attn::encode_npy({2, 3}, values, attn::NpyDtype::float32);
    const attn::NpyArray array = attn::parse_npy(bytes, "x.npy");
    bool same = array.shape == std::vector<std::size_t>{2, 3} && array.dtype == attn::NpyDtype::float32 &&
                array.values.size() == values.size();
    for (std::size_t i = 0; same && i < values.size(); ++i) {
        same = array.values[i] == static_cast<double>(static_cast<float>(values[i]));
    }
    std::printf("x.npy read back: %s\n", same ? "shape (2, 3), float32, the same values" : "DIFFERENT");
    try {
        attn::parse_npy(bytes.substr(0, bytes.size() - 4), "x.npy");
        std::printf("a truncated x.npy was accepted\n");
        return 1;
    } catch (const attn::InputError& e) {
        const bool named = std::string(e.what()).find("x.npy") != std::string::npos;
        std::printf("a truncated x.npy: %s\n", named ? "InputError naming the file" : e.what());
        return same && named ? 0 : 1;
    }
}
