// The softmax's backward without the row sum: dS = P ∘ dP.
#define PLANTED_ROW_SUM_FORGOTTEN
#include "../independent/backward.cpp"
