// src/exercises/student/exercise_checker.hpp — kept so that an exercise.cpp written from an
// older stub (which included this header for NotImplementedYet) still compiles. New stubs include
// only their exercise.hpp.
#pragma once

#include "not_implemented.hpp"
