// The schedule's branches chosen the other way round: the larger of the two.
#define PLANTED_WARMUP_BRANCH_INVERTED
#include "../independent/training.cpp"
