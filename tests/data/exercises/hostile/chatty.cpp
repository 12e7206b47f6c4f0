// A correct implementation that prints far too much: it still passes, and the output is capped.
#include <cstdio>

#include "../independent/dot-product.cpp"

namespace {

struct Chatter {
    Chatter() {
        for (int line = 0; line < 20000; ++line) std::printf("debugging line %d: nothing to see here\n", line);
    }
} chatter;

}  // namespace
