// The one translation unit that holds Catch2's main (it is the slowest file to compile).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
