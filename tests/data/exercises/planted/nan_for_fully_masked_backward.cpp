// NaN weights, and so NaN gradients, for a query whose keys are all hidden.
#define PLANTED_NAN_FOR_FULLY_MASKED
#include "../independent/backward.cpp"
