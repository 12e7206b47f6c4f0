// dQ and dK returned in each other's place.
#define PLANTED_QUERY_KEY_SWAPPED
#include "../independent/backward.cpp"
