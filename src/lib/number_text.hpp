// src/lib/number_text.hpp — private to the library: a number as an error message writes it.
//
// Why not std::to_string: it prints six decimals, so an ε of 1e-09 would read "0.000000" in the
// message that refuses it. %g keeps six significant digits and says nan and inf as they are.
#pragma once

#include <cstdio>
#include <string>

namespace attn::detail {

inline std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

}  // namespace attn::detail
