// The causal tile skip tested against the tile's first query instead of its last (lesson 7's trap).
#define PLANTED_TILE_SKIP_FIRST_QUERY
#include "../independent/online-softmax.cpp"
