// Lesson 1's .squeeze() trap: every weight 1.
#define PLANTED_WEIGHTS_ALL_ONE
#include "../independent/dot-product.cpp"
