// RoPE always turns the adjacent pairs (2i, 2i+1), whatever layout is asked: lesson 8's trap.
#define PLANTED_ALWAYS_PAIRS
#include "../independent/positions.cpp"
