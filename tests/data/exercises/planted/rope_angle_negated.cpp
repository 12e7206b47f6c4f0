// RoPE turned by −position · θ_i: the other way round.
#define PLANTED_ANGLE_NEGATED
#include "../independent/08.cpp"
