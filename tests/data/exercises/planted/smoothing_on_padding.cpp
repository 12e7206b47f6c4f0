// Label smoothing spread as ε / (V − 1) over every class but the target, the padding class too.
#define PLANTED_SMOOTHING_ON_PADDING
#include "../independent/training.cpp"
