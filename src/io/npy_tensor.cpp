#include "attn/npy_tensor.hpp"

#include <algorithm>
#include <vector>

namespace attn {

DynamicTensor to_tensor(const NpyArray& array) {
    DynamicTensor tensor = DynamicTensor::from_shape(array.shape);
    std::copy(array.values.begin(), array.values.end(), tensor.begin());
    return tensor;
}

DynamicTensor read_npy_tensor(const std::string& path) { return to_tensor(read_npy(path)); }

std::string encode_npy(const DynamicTensor& tensor, NpyDtype dtype) {
    return encode_npy(std::vector<std::size_t>(tensor.shape().begin(), tensor.shape().end()),
                      std::vector<double>(tensor.begin(), tensor.end()), dtype);
}

}  // namespace attn
