// Lesson 9's `attn compute` modules (tutor/compute/compute_modules.hpp): nn.TransformerDecoderLayer,
// nn.TransformerDecoder and the whole nn.Transformer, on the lesson path (double), with PyTorch's names for the weights,
// the inputs (tgt, memory) and the masks.
//
// Why a file of their own: the decoder reads three groups of masks (the target's self-attention,
// the memory's cross-attention; the transformer's source too), each in PyTorch's conventions, and
// two attentions per layer.
#include "tutor/compute/compute_modules.hpp"

#include "attn/decoder_layer.hpp"
#include "attn/error.hpp"
#include "attn/transformer.hpp"
#include "tutor/compute/decoder_weights.hpp"
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

// One group of masks (PyTorch's padding mask and scores mask of one attention), read for
// `queries` queries and `keys` keys.
ModuleMasks group_masks(const NamedTensors& inputs, const ComputeOptions& options, const std::string& padding,
                        const std::string& scores, std::size_t queries, std::size_t keys) {
    NamedTensors group;
    for (const auto& name : {padding, scores}) {
        if (inputs.count(name)) group[name] = inputs.at(name);
    }
    const std::size_t batch = inputs.at("tgt").shape(0);
    return masks_from(group, options.integer_inputs, {batch, static_cast<std::size_t>(options.heads), queries, keys});
}

// The decoder's settings and masks; S is the memory's length.
DecoderLayerOptions decoder_options(const NamedTensors& inputs, const ComputeOptions& options, std::size_t S) {
    DecoderLayerOptions layer(static_cast<std::size_t>(options.heads));
    layer.norm_first = options.norm_first;
    layer.eps = options.eps.value_or(default_layer_norm_eps);
    layer.activation = options.activation.empty() ? Activation::relu : parse_activation(options.activation);
    const std::size_t T = inputs.at("tgt").shape(1);
    const ModuleMasks self = group_masks(inputs, options, "tgt_key_padding_mask", "tgt_mask", T, T);
    layer.tgt_mask = self.additive_mask;
    layer.tgt_attention_mask = self.attention_mask;
    const ModuleMasks cross = group_masks(inputs, options, "memory_key_padding_mask", "memory_mask", T, S);
    layer.memory_mask = cross.additive_mask;
    layer.memory_attention_mask = cross.attention_mask;
    return layer;
}

// torch.nn.TransformerDecoderLayer(D, h, F, dropout=0.0, batch_first=True) in eval mode.
NamedTensors run_decoder_layer(const NamedTensors& inputs, const ComputeOptions& options) {
    const DecoderLayerWeights w = decoder_layer_weights_from(inputs);
    return {{"output", transformer_decoder_layer(Tensor3(inputs.at("tgt")), Tensor3(inputs.at("memory")), w,
                                                 decoder_options(inputs, options, inputs.at("memory").shape(1)))
                           .output}};
}

// torch.nn.TransformerDecoder(layer, N, norm) in eval mode: the layers, each reading the same
// memory, then the final norm.
NamedTensors run_decoder(const NamedTensors& inputs, const ComputeOptions& options) {
    const DecoderWeights w = decoder_weights_from(inputs);
    check_norm_eps_has_norm(options, w.final_norm.has_value());
    const DecoderLayerOptions layer = decoder_options(inputs, options, inputs.at("memory").shape(1));
    return {{"output", transformer_decoder(Tensor3(inputs.at("tgt")), Tensor3(inputs.at("memory")), w.layers, layer,
                                           w.final_norm, options.norm_eps.value_or(layer.eps))}};
}

// torch.nn.Transformer(D, h, N, M, F, dropout=0.0, batch_first=True) in eval mode: the encoder
// stack and encoder.norm on src give the memory, the decoder stack and decoder.norm read it.
NamedTensors run_transformer(const NamedTensors& inputs, const ComputeOptions& options) {
    EncoderWeights encoder = encoder_stack_from(inputs, "encoder_layers_", "encoder_norm_");
    DecoderWeights decoder = decoder_weights_from(inputs, "decoder_layers_", "decoder_norm_");
    const TransformerWeights w{std::move(encoder.layers), *encoder.final_norm, std::move(decoder.layers),
                               *decoder.final_norm};  // both norms are required inputs
    const std::size_t S = inputs.at("src").shape(1);
    const DecoderLayerOptions layer = decoder_options(inputs, options, S);
    TransformerOptions model(layer.heads);
    model.norm_first = layer.norm_first;
    model.eps = layer.eps;
    model.activation = layer.activation;
    model.final_norm_eps = options.norm_eps;
    const ModuleMasks source = group_masks(inputs, options, "src_key_padding_mask", "src_mask", S, S);
    model.src_mask = source.additive_mask;
    model.src_attention_mask = source.attention_mask;
    model.tgt_mask = layer.tgt_mask;
    model.tgt_attention_mask = layer.tgt_attention_mask;
    model.memory_mask = layer.memory_mask;
    model.memory_attention_mask = layer.memory_attention_mask;
    const TransformerResult result = transformer(Tensor3(inputs.at("src")), Tensor3(inputs.at("tgt")), w, model);
    return {{"output", result.output}, {"memory", result.memory}};
}

// The weights of an encoder layer (its inputs but x and the masks): the decoder layer's
// self-attention, norm1, norm2 and feed-forward network have the same names.
std::vector<TensorSpec> shared_layer_weights(const ComputeModule& encoder_layer) {
    std::vector<TensorSpec> weights;
    for (const auto& spec : encoder_layer.inputs) {
        if (spec.name != "x" && mask_convention(spec.name) == MaskConvention::none) weights.push_back(spec);
    }
    return weights;
}

const std::vector<TensorSpec> decoder_sequences = {
    {"tgt", "B,T,D", true, N_("the target tokens, PyTorch's tgt")},
    {"memory", "B,S,D", true, N_("the encoder's output the decoder reads, PyTorch's memory")},
};

const std::vector<TensorSpec> decoder_masks = {
    {"tgt_mask", "T,T", false,
     N_("PyTorch's: bool True = ignore; float added to the self-attention's scores (causal: generate_square_subsequent_mask(T))")},
    {"memory_mask", "T,S", false, N_("PyTorch's: bool True = ignore; float added to the cross-attention's scores")},
    {"tgt_key_padding_mask", "B,T", false, N_("PyTorch's: True/1 = ignore this target position (bool or integer)")},
    {"memory_key_padding_mask", "B,S", false, N_("PyTorch's: True/1 = ignore this memory position (bool or integer)")},
};

std::vector<TensorSpec> joined(std::initializer_list<std::vector<TensorSpec>> parts) {
    std::vector<TensorSpec> all;
    for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
    return all;
}

ComputeModule decoder_module(const std::string& name, const char* summary, std::vector<TensorSpec> inputs,
                             NamedTensors (*run)(const NamedTensors&, const ComputeOptions&)) {
    ComputeModule module;
    module.name = name;
    module.summary = summary;
    module.lesson = "decoder";
    module.inputs = std::move(inputs);
    module.outputs = {{"output", "B,T,D", true, N_("the decoder's output")}};
    module.run = run;
    module.uses_heads = true;
    module.uses_layer_options = true;
    module.working_sizes = {"B,T,F", "B,h,T,T", "B,h,T,S"};
    return module;
}

}  // namespace

std::vector<ComputeModule> decoder_modules(const ComputeModule& encoder_layer) {
    const std::vector<TensorSpec> cross_attention = {
        {"multihead_attn_in_proj_weight", "3D,D", true, N_("multihead_attn.in_proj_weight: the cross-attention's q, k, v projections, packed")},
        {"multihead_attn_in_proj_bias", "3D", true, N_("multihead_attn.in_proj_bias")},
        {"multihead_attn_out_proj_weight", "D,D", true, N_("multihead_attn.out_proj.weight")},
        {"multihead_attn_out_proj_bias", "D", true, N_("multihead_attn.out_proj.bias")},
        {"norm3_weight", "D", true, N_("norm3.weight, around the feed-forward network")},
        {"norm3_bias", "D", true, N_("norm3.bias")},
    };
    ComputeModule layer = decoder_module(
        "decoder-layer",
        N_("a Transformer decoder layer, as torch.nn.TransformerDecoderLayer(D, h, F, dropout=0.0, batch_first=True): "
           "masked self-attention, cross-attention over the memory, feed-forward (--heads h required)"),
        joined({decoder_sequences, shared_layer_weights(encoder_layer), cross_attention, decoder_masks}), run_decoder_layer);
    const std::vector<TensorSpec> final_norm = {
        {"norm_weight", "D", false, N_("norm.weight, the final layer norm (with norm_bias)")},
        {"norm_bias", "D", false, N_("norm.bias")},
    };
    ComputeModule stack = decoder_module(
        "decoder",
        N_("the layers stacked: torch.nn.TransformerDecoder(layer, N, norm) in eval mode, N layers layers_0_… (each "
           "decoder-layer's weights) and the final norm (--heads h required)"),
        joined({decoder_sequences, final_norm, decoder_masks}), run_decoder);
    stack.layered = true;
    stack.uses_final_norm = true;
    const std::vector<TensorSpec> source = {
        {"src", "B,S,D", true, N_("the source tokens, PyTorch's src")},
        {"tgt", "B,T,D", true, N_("the target tokens, PyTorch's tgt")},
        {"encoder_norm_weight", "D", true, N_("encoder.norm.weight, the encoder stack's final norm")},
        {"encoder_norm_bias", "D", true, N_("encoder.norm.bias")},
        {"decoder_norm_weight", "D", true, N_("decoder.norm.weight, the decoder stack's final norm")},
        {"decoder_norm_bias", "D", true, N_("decoder.norm.bias")},
        {"src_mask", "S,S", false, N_("PyTorch's: bool True = ignore; float added to the encoder's self-attention scores")},
        {"src_key_padding_mask", "B,S", false, N_("PyTorch's: True/1 = ignore this source position, in the encoder (bool or integer)")},
    };
    ComputeModule whole = decoder_module(
        "transformer",
        N_("the whole torch.nn.Transformer(D, h, N, M, F, dropout=0.0, batch_first=True) in eval mode: N encoder layers "
           "encoder_layers_0_… and encoder.norm on src give the memory, M decoder layers decoder_layers_0_… and "
           "decoder.norm read it (--heads h required)"),
        joined({source, decoder_masks}), run_transformer);
    whole.layered = true;
    whole.uses_final_norm = true;
    whole.skipped_members = {"src_embed.weight", "tgt_embed.weight", "generator.weight", "generator.bias"};
    whole.outputs.push_back({"memory", "B,S,D", false, N_("the encoder's output, after encoder.norm")});
    whole.working_sizes = {"B,T,F", "B,S,F", "B,h,T,T", "B,h,T,S", "B,h,S,S"};
    return {layer, stack, whole};
}

}  // namespace attn::tutor
