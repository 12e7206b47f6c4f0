#include "attn/error.hpp"
#include "exercise_case.hpp"

namespace attn::exercises {

Exercise exercise_definition(int number, const std::string& source) {
    switch (number) {
        case 1: return exercise01(source);
        case 2: return exercise02(source);
        case 3: return exercise03(source);
        case 4: return exercise04(source);
        case 5: return exercise05(source);
        case 6: return exercise06(source);
        case 7: return exercise07(source);
        default: throw InputError("there is no exercise " + std::to_string(number) + "; the exercises are 1 to 7");
    }
}

}  // namespace attn::exercises
