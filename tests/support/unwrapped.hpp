// tests/support/unwrapped.hpp — a program's output with its wrapped lines joined again, to look
// for a sentence wherever the width made the program break it.
//
//   CHECK_THAT(unwrapped(r.out), Catch::Contains("Your numbers match a classic mistake in every case"));
#pragma once

#include <string>

namespace attn::testing {

/// `text` with each line break and the indent after it turned into one space (blank lines kept).
inline std::string unwrapped(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n' || i + 1 == text.size() || text[i + 1] == '\n') {
            out += text[i];
            continue;
        }
        std::size_t next = i + 1;
        while (next < text.size() && text[next] == ' ') ++next;
        if (next < text.size() && text[next] == '\n') {
            out += '\n';
            continue;
        }
        out += ' ';
        i = next - 1;
    }
    return out;
}

}  // namespace attn::testing
