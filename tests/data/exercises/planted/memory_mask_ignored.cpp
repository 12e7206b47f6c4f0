// Cross-attention that gives weight to the memory's padding.
#define PLANTED_MEMORY_MASK_IGNORED
#include "../independent/decoder.cpp"
