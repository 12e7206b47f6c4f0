// A decoding step that attends over the cache before appending the new keys and values.
#define PLANTED_CACHE_APPENDED_AFTER_USE
#include "../independent/decoder.cpp"
