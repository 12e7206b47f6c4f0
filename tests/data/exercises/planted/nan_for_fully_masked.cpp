// No policy for a query whose keys are all padding: 0 / 0, NaN.
#define PLANTED_NAN_FOR_FULLY_MASKED
#include "../independent/multi-head-attention.cpp"
