#include "attn/error.hpp"

namespace attn {

InputError::InputError(const std::string& message) : std::runtime_error(message) {}

ShapeError::ShapeError(const std::string& message) : InputError(message) {}

}  // namespace attn
