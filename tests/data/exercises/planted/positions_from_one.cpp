// The sinusoidal table counting positions from 1.
#define PLANTED_POSITIONS_FROM_ONE
#include "../independent/positions.cpp"
