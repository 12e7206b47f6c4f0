// Looks for the run's secret before main() runs, where the checker's own code has not started:
// in its environment and in /proc/self/environ. Found, it is thrown as the case's error;
// not found, the run passes.
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "exercise.hpp"

extern char** environ;

namespace {

std::string found_at_start = [] {
    std::string found;
    for (char** entry = environ; entry && *entry; ++entry) {
        if (std::string(*entry).find("NONCE") != std::string::npos) found += std::string(*entry) + " ";
    }
    std::ifstream file("/proc/self/environ", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (text.find("NONCE") != std::string::npos) found += "in /proc/self/environ";
    return found;
}();

void tell() {
    if (!found_at_start.empty()) throw std::runtime_error("the nonce: " + found_at_start);
}

}  // namespace

#define PLANTED_BEFORE_ANSWER tell
#include "../independent/dot-product.cpp"
