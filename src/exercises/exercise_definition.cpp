#include "attn/error.hpp"
#include "exercise_case.hpp"
#include "tutor/language.hpp"

namespace attn::exercises {

Exercise exercise_definition(int number, const std::string& source) {
    std::string known;
    for (const ExerciseEntry& entry : exercise_entries()) {
        if (entry.number == number) return entry.define(source);
        known += (known.empty() ? "" : ", ") + std::to_string(entry.number);
    }
    throw InputError(tutor::trf("there is no exercise {1}; the exercises are {2}", {std::to_string(number), known}));
}

}  // namespace attn::exercises
