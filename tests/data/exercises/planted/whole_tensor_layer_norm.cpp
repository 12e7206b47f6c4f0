// LayerNorm over the whole tensor: one mean and one variance for every row.
#define PLANTED_WHOLE_TENSOR
#include "../independent/encoder-layer.cpp"
