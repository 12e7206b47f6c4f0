// A softmax without the row's maximum subtracted: NaN when the scores are in the hundreds.
#define PLANTED_UNSHIFTED_SOFTMAX
#include "../independent/dot-product.cpp"
