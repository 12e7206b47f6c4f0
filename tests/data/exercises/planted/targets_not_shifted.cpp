// Targets taken from the decoder's own input, tgt[:, :-1].
#define PLANTED_TARGETS_NOT_SHIFTED
#include "../independent/training.cpp"
