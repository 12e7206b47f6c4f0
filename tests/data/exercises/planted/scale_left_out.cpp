// dQ and dK without the forward's 1/√d_k.
#define PLANTED_SCALE_LEFT_OUT
#include "../independent/backward.cpp"
