// K/V heads shared by repeat (a tile) instead of repeat_interleave: query head j reads K/V head j mod g.
#define PLANTED_KV_HEADS_TILED
#include "../independent/decoder.cpp"
