// A decoding step whose causal mask is aligned top-left: new query i sees keys 0 … i.
#define PLANTED_CACHE_TOP_LEFT
#include "../independent/decoder.cpp"
