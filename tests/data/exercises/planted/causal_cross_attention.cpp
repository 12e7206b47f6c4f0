// Cross-attention with the decoder's causal mask: decoder position t sees memory positions 0 … t only.
#define PLANTED_CAUSAL_CROSS_ATTENTION
#include "../independent/decoder.cpp"
