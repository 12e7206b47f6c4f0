// RoPE always turns the pairs (i, i + d_k/2) of rotate_half, whatever layout is asked.
#define PLANTED_ALWAYS_HALVES
#include "../independent/positions.cpp"
