// Adam without bias correction: m and v not divided by 1 − βᵗ.
#define PLANTED_BIAS_CORRECTION_MISSING
#include "../independent/training.cpp"
