// RoPE's frequencies base^(−i/d_k) instead of base^(−2i/d_k).
#define PLANTED_ROPE_EXPONENT_WITHOUT_TWO
#include "../independent/positions.cpp"
