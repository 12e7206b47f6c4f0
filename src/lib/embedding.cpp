#include "attn/embedding.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

Tensor3 embedding(const Matrix& weight, const IdTensor& ids) {
    check_shapes("embedding", {{"weight", weight, "V,D"}, {"ids", ids, "B,T"}});
    const std::size_t V = weight.shape(0), D = weight.shape(1);
    const std::size_t B = ids.shape(0), T = ids.shape(1);
    // Every id is checked before anything is copied: a bad id must not leave a half-filled output.
    for (std::size_t flat = 0; flat < ids.size(); ++flat) {
        const std::int64_t id = ids.data()[flat];
        if (id < 0 || static_cast<std::uint64_t>(id) >= V) {
            throw InputError("embedding: ids" + index_string(flat, {B, T}) + " = " + std::to_string(id) +
                             " is not a row of weight " + shape_string(weight.shape()) + ": the table has V = " +
                             std::to_string(V) + " rows, so an id must be 0 … " + std::to_string(V - 1));
        }
    }
    Tensor3 output = Tensor3::from_shape({B, T, D});
    for (std::size_t flat = 0; flat < ids.size(); ++flat) {
        const double* row = weight.data() + static_cast<std::size_t>(ids.data()[flat]) * D;  // weight[id, :]
        std::copy(row, row + D, output.data() + flat * D);                                     // output[b, t, :]
    }
    return output;
}

}  // namespace attn
