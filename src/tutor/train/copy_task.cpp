// The copy task's data and initial weights (tutor/train/copy_task.hpp).
#include "tutor/train/copy_task.hpp"

#include <cmath>
#include <map>

#include "attn/error.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/shape.hpp"

namespace attn::tutor {
namespace {

// u = (r + 0.5) / 2³² in (0, 1), for a raw 32-bit draw r: seeded_uniform's reading of a draw.
double unit_draw(std::mt19937& generator) { return (double(generator()) + 0.5) / 4294967296.0; }

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The bound of the uniform draw for one parameter, or 0 when PyTorch initialises it to a constant.
double initial_bound(const ParameterSlot& slot) {
    if (slot.shape.size() == 2) {
        const double fan_out = double(slot.shape[0]), fan_in = double(slot.shape[1]);
        return std::sqrt(6.0 / (fan_in + fan_out));  // Xavier-uniform
    }
    return 0.0;
}

// PyTorch's constants: LayerNorm's weight 1; its bias and the attentions' biases 0.
double constant_value(const ParameterSlot& slot) {
    const bool norm_weight = ends_with(slot.name, ".weight") && slot.name.find("norm") != std::string::npos;
    return norm_weight ? 1.0 : 0.0;
}

}  // namespace

Seq2SeqWeights initial_copy_weights(const Seq2SeqSizes& sizes, std::mt19937& generator) {
    Seq2SeqWeights weights = zero_seq2seq_weights(sizes);
    std::vector<double> flat = flatten_parameters(weights);
    for (const ParameterSlot& slot : seq2seq_parameter_slots(weights)) {
        std::size_t count = 1;
        for (std::size_t size : slot.shape) count *= size;
        double bound = initial_bound(slot);
        // nn.Linear's bias: ±1/√fan_in, fan_in the width of the layer's input.
        if (ends_with(slot.name, "linear1.bias") || slot.name == "generator.bias") {
            bound = 1.0 / std::sqrt(double(sizes.d_model));
        } else if (ends_with(slot.name, "linear2.bias")) {
            bound = 1.0 / std::sqrt(double(sizes.d_ff));
        }
        for (std::size_t i = 0; i < count; ++i) {
            flat[slot.offset + i] = bound > 0 ? bound * (2.0 * unit_draw(generator) - 1.0) : constant_value(slot);
        }
    }
    unflatten_parameters(flat, weights);
    return weights;
}

CopyBatch copy_batch(std::mt19937& generator, std::size_t batch, std::size_t length, std::size_t vocabulary) {
    if (batch == 0 || length == 0 || vocabulary < 3) {
        throw InputError("copy_batch: batch " + std::to_string(batch) + ", length " + std::to_string(length) +
                         ", vocabulary " + std::to_string(vocabulary) +
                         ": the batch and the length must be at least 1 and the vocabulary at least 3 "
                         "(the padding 0, the start 1 and one more symbol)");
    }
    checked_value_count({batch, length}, "copy_batch: the (B, L) batch");
    IdTensor data = IdTensor::from_shape({batch, length});
    for (std::int64_t& symbol : data) {
        symbol = 1 + static_cast<std::int64_t>(std::floor(unit_draw(generator) * double(vocabulary - 1)));
    }
    for (std::size_t b = 0; b < batch; ++b) data(b, 0) = copy_start;
    return {data, data};
}

Seq2SeqWeights weights_from_state_dict(const std::vector<NpzMember>& members, const Seq2SeqSizes& sizes,
                                       const std::string& archive) {
    Seq2SeqWeights weights = zero_seq2seq_weights(sizes);
    const std::vector<ParameterSlot> slots = seq2seq_parameter_slots(weights);
    std::map<std::string, const NpyArray*> by_name;
    for (const auto& [name, array] : members) by_name[name] = &array;
    std::vector<double> flat = flatten_parameters(weights);
    for (const ParameterSlot& slot : slots) {
        const auto found = by_name.find(slot.name);
        if (found == by_name.end()) {
            throw InputError(archive + ": the model's parameter " + slot.name + " " + shape_string(slot.shape) +
                             " is missing");
        }
        if (found->second->shape != slot.shape) {
            throw InputError(archive + ": " + slot.name + " has shape " + shape_string(found->second->shape) +
                             "; the model's is " + shape_string(slot.shape));
        }
        std::copy(found->second->values.begin(), found->second->values.end(), flat.begin() + slot.offset);
        by_name.erase(found);
    }
    if (!by_name.empty()) {
        throw InputError(archive + ": " + by_name.begin()->first + " is not a parameter of the model (" +
                         std::to_string(slots.size()) + " parameters, e.g. " + slots.front().name + ")");
    }
    unflatten_parameters(flat, weights);
    return weights;
}

}  // namespace attn::tutor
