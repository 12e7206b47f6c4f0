// A training loop that never clears its gradient buffer.
#define PLANTED_GRADIENTS_NOT_ZEROED
#include "../independent/training.cpp"
