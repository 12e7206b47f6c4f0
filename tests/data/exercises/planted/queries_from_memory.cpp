// Cross-attention with its queries projected from the memory instead of the decoder.
#define PLANTED_QUERIES_FROM_MEMORY
#include "../independent/decoder.cpp"
