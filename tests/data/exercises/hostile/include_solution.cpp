// The exercise's own solution, included by name as if it lay beside the student's file (it does
// beside lessons/01-dot-product/exercise/exercise.cpp): the staging folder's include path does not
// hold it.
#include "solution.cpp"
