// The sinusoidal table with the cosine in the even columns and the sine in the odd ones.
#define PLANTED_SIN_COS_SWAPPED
#include "../independent/positions.cpp"
