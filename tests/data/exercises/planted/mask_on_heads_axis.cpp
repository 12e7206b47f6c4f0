// Seed 000's mask on the heads axis: head j of every sentence gets sentence j's mask.
#define PLANTED_MASK_ON_HEADS_AXIS
#include "../independent/multi-head-attention.cpp"
