// RoPE turned by −φ instead of φ (the angles themselves right): the other way round.
#define PLANTED_ANGLE_NEGATED
#include "../independent/positions.cpp"
