// dV = P dO: the transpose of the weights forgotten.
#define PLANTED_VALUE_TRANSPOSE_FORGOTTEN
#include "../independent/backward.cpp"
