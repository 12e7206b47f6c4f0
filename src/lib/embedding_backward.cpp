// grad_weight[v] = Σ grad_output at the positions whose id is v (attn/embedding_backward.hpp).
#include "attn/embedding_backward.hpp"

#include <string>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

constexpr const char* function = "embedding_backward";

void check_ids(const IdTensor& ids, std::size_t V) {
    for (std::size_t flat = 0; flat < ids.size(); ++flat) {
        const std::int64_t id = ids.data()[flat];
        if (id < 0 || static_cast<std::uint64_t>(id) >= V)
            throw InputError(std::string(function) + ": ids" + index_string(flat, {ids.shape(0), ids.shape(1)}) + " = " +
                             std::to_string(id) + " is not a row of the (V, D) table: V = " + std::to_string(V) +
                             ", so an id must be 0 … " + std::to_string(V - 1));
    }
}

}  // namespace

Matrix embedding_backward(std::size_t vocabulary, const IdTensor& ids, const Tensor3& grad_output,
                          std::optional<std::int64_t> padding_index) {
    if (vocabulary == 0)
        throw ShapeError(std::string(function) + ": vocabulary = 0: the table (V, D) must have at least one row");
    const ShapeLetters sizes =
        check_shapes(function, {{"ids", ids, "B,T"}, {"grad_output", grad_output, "B,T,D"}});
    const std::size_t D = sizes.at("D");
    checked_value_count({vocabulary, D}, std::string(function) + ": the gradient (V, D)");
    check_ids(ids, vocabulary);
    if (padding_index && (*padding_index < 0 || static_cast<std::uint64_t>(*padding_index) >= vocabulary))
        throw InputError(std::string(function) + ": padding_index = " + std::to_string(*padding_index) +
                         " is not a row of the table: V = " + std::to_string(vocabulary) + ", so it must be 0 … " +
                         std::to_string(vocabulary - 1));
    detail::require_finite(function, "grad_output", grad_output, detail::upstream_gradient_advice);

    Matrix grad_weight = Matrix::from_shape({vocabulary, D});
    grad_weight.fill(0.0);
    for (std::size_t flat = 0; flat < ids.size(); ++flat) {
        const std::int64_t id = ids.data()[flat];
        if (padding_index && id == *padding_index) continue;  // nn.Embedding(padding_idx=p): row p never learns
        double* row = grad_weight.data() + static_cast<std::size_t>(id) * D;
        const double* upstream = grad_output.data() + flat * D;  // grad_output[b, t, :]
        for (std::size_t d = 0; d < D; ++d) row[d] += upstream[d];
    }
    return grad_weight;
}

}  // namespace attn
