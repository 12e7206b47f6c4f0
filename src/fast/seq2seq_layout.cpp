// Where each parameter of the float32 encoder-decoder model lives in its flat buffer, and the
// attentions' AttentionParameters refreshed from it (seq2seq_model.hpp).
#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "attn/error.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "seq2seq_model.hpp"

namespace attn::fast::detail {

namespace {

// The slots by their state_dict names; a name the layout asks for must be there.
class SlotFinder {
public:
    explicit SlotFinder(const std::vector<ParameterSlot>& slots) {
        for (const ParameterSlot& slot : slots) offsets_[slot.name] = slot.offset;
    }
    std::size_t operator()(const std::string& name) const {
        const auto found = offsets_.find(name);
        if (found == offsets_.end()) throw InputError("seq2seq training: the model has no parameter " + name);
        return found->second;
    }
    LinearSlot linear(const std::string& prefix) const { return {(*this)(prefix + "weight"), (*this)(prefix + "bias")}; }
    NormSlot norm(const std::string& prefix) const { return {(*this)(prefix + "weight"), (*this)(prefix + "bias")}; }
    AttentionSlot attention(const std::string& prefix) const {
        return {(*this)(prefix + "in_proj_weight"), (*this)(prefix + "in_proj_bias"), linear(prefix + "out_proj.")};
    }

private:
    std::map<std::string, std::size_t> offsets_;
};

// in_proj (3D, D) and its bias (3D) split into q, k, v; out_proj as w_o, b_o.
void load_attention(const float* parameters, const AttentionSlot& slot, std::size_t D, AttentionParameters& p) {
    const auto matrix = [D](Matrix& m, const float* from) {
        if (m.shape(0) != D || m.shape(1) != D) m = Matrix::from_shape({D, D});
        std::memcpy(m.data(), from, D * D * sizeof(float));
    };
    const auto vector = [D](std::optional<Vector>& v, const float* from) {
        if (!v || v->size() != D) v = Vector::from_shape({D});
        std::memcpy(v->data(), from, D * sizeof(float));
    };
    matrix(p.w_q, parameters + slot.in_proj_weight);
    matrix(p.w_k, parameters + slot.in_proj_weight + D * D);
    matrix(p.w_v, parameters + slot.in_proj_weight + 2 * D * D);
    vector(p.b_q, parameters + slot.in_proj_bias);
    vector(p.b_k, parameters + slot.in_proj_bias + D);
    vector(p.b_v, parameters + slot.in_proj_bias + 2 * D);
    if (!p.w_o) p.w_o = Matrix::from_shape({D, D});
    matrix(*p.w_o, parameters + slot.out_proj.weight);
    vector(p.b_o, parameters + slot.out_proj.bias);
}

}  // namespace

ModelLayout model_layout(const Seq2SeqWeights& weights, std::size_t heads) {
    const Seq2SeqSizes sizes = seq2seq_sizes(weights);
    const std::vector<ParameterSlot> slots = seq2seq_parameter_slots(weights);
    const SlotFinder find(slots);
    ModelLayout layout;
    layout.V = sizes.vocabulary;
    layout.D = sizes.d_model;
    layout.F = sizes.d_ff;
    layout.heads = heads;
    for (std::size_t i = 0; i < sizes.encoder_layers; ++i) {
        const std::string prefix = "encoder.layers." + std::to_string(i) + ".";
        layout.encoder.push_back({find.attention(prefix + "self_attn."), find.linear(prefix + "linear1."),
                                  find.linear(prefix + "linear2."), find.norm(prefix + "norm1."),
                                  find.norm(prefix + "norm2.")});
    }
    layout.encoder_norm = find.norm("encoder.norm.");
    for (std::size_t i = 0; i < sizes.decoder_layers; ++i) {
        const std::string prefix = "decoder.layers." + std::to_string(i) + ".";
        layout.decoder.push_back({find.attention(prefix + "self_attn."), find.attention(prefix + "multihead_attn."),
                                  find.linear(prefix + "linear1."), find.linear(prefix + "linear2."),
                                  find.norm(prefix + "norm1."), find.norm(prefix + "norm2."),
                                  find.norm(prefix + "norm3.")});
    }
    layout.decoder_norm = find.norm("decoder.norm.");
    layout.src_embedding = find("src_embed.weight");
    layout.tgt_embedding = find("tgt_embed.weight");
    layout.generator = find.linear("generator.");
    for (const ParameterSlot& slot : slots) {
        std::size_t count = 1;
        for (std::size_t extent : slot.shape) count *= extent;
        layout.total = std::max(layout.total, slot.offset + count);
    }
    return layout;
}

void load_attention_parameters(const std::vector<float>& parameters, const ModelLayout& layout, ModelWork& work) {
    work.encoder_attention.resize(layout.encoder.size());
    work.decoder_self_attention.resize(layout.decoder.size());
    work.decoder_cross_attention.resize(layout.decoder.size());
    for (std::size_t l = 0; l < layout.encoder.size(); ++l) {
        load_attention(parameters.data(), layout.encoder[l].self_attention, layout.D, work.encoder_attention[l]);
    }
    for (std::size_t l = 0; l < layout.decoder.size(); ++l) {
        load_attention(parameters.data(), layout.decoder[l].self_attention, layout.D, work.decoder_self_attention[l]);
        load_attention(parameters.data(), layout.decoder[l].cross_attention, layout.D, work.decoder_cross_attention[l]);
    }
}

}  // namespace attn::fast::detail
