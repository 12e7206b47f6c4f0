// The sinusoidal table with the exponent i/D (the pair's number) instead of 2i/D.
#define PLANTED_EXPONENT_WITHOUT_TWO
#include "../independent/positions.cpp"
