#include "tutor/named_weights.hpp"

#include "attn/error.hpp"

namespace attn::tutor {

namespace {

const DynamicTensor& named(const NamedTensors& tensors, const char* name) {
    const auto found = tensors.find(name);
    if (found == tensors.end()) throw InputError(std::string("missing weight '") + name + "'");
    return found->second;
}

}  // namespace

MultiHeadAttentionWeights attention_weights_from(const NamedTensors& tensors) {
    MultiHeadAttentionWeights w;
    w.w_q = named(tensors, "w_q");
    w.w_k = named(tensors, "w_k");
    w.w_v = named(tensors, "w_v");
    w.b_q = named(tensors, "b_q");
    w.b_k = named(tensors, "b_k");
    w.b_v = named(tensors, "b_v");
    if (tensors.count("w_o")) w.w_o = Matrix(tensors.at("w_o"));
    if (tensors.count("b_o")) w.b_o = Vector(tensors.at("b_o"));
    return w;
}

EncoderLayerWeights encoder_layer_weights_from(const NamedTensors& tensors) {
    EncoderLayerWeights w;
    w.attention = attention_weights_from(tensors);
    w.attention.w_o = Matrix(named(tensors, "w_o"));
    w.attention.b_o = Vector(named(tensors, "b_o"));
    w.norm1_weight = named(tensors, "norm1_weight");
    w.norm1_bias = named(tensors, "norm1_bias");
    w.norm2_weight = named(tensors, "norm2_weight");
    w.norm2_bias = named(tensors, "norm2_bias");
    w.linear1_weight = named(tensors, "linear1_weight");
    w.linear1_bias = named(tensors, "linear1_bias");
    w.linear2_weight = named(tensors, "linear2_weight");
    w.linear2_bias = named(tensors, "linear2_bias");
    return w;
}

}  // namespace attn::tutor
