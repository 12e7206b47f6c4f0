#include "support/tensor_match.hpp"

#include "tutor/lesson/tensor_format.hpp"

namespace attn::testing {

TensorMatch match_tensors(const DynamicTensor& expected, const DynamicTensor& got, double absolute, double relative) {
    const auto comparison = tutor::compare(expected, got, tutor::Tolerance{absolute, relative});
    tutor::PrintOptions precise;
    precise.precision = 8;
    std::string report = "expected " + tutor::format_like_pytorch(expected, precise) + "\n     got " +
                         tutor::format_like_pytorch(got, precise) + "\n" + comparison.summary() +
                         " (tolerance: absolute " + std::to_string(absolute) + ", relative " +
                         std::to_string(relative) + ")";
    return {comparison.passed, report};
}

}  // namespace attn::testing
