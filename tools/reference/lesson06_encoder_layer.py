"""PyTorch reference for lesson 6 (the Transformer encoder layer).

LayerNorm as torch.nn.LayerNorm computes it, next to the Annotated Transformer's variant written
out in torch; the encoder layer step by step with torch.nn.TransformerEncoderLayer's own
sub-modules, checked at the end against the module's forward on the same input.

Everything runs in float64 and is printed as float32: in float32 the centre of [5, 6, 7, 8, 9]
normalises to 1.8e-07 instead of 0, noise that would make the lesson's tables unreadable. Even in
float64 PyTorch's fused layer norm, (x·r) − (mean·r), leaves 3e-16 there; values within 1e-12 of
zero are that rounding noise and are written as 0."""
import torch
import torch.nn.functional as F


def annotated_layer_norm(x, eps=1e-6):
    """Seed 003's LayerNorm (with its `b_2` typo fixed and unit weights): unbiased std, eps added to it."""
    mean = x.mean(-1, keepdim=True)
    std = x.std(-1, keepdim=True)
    return (x - mean) / (std + eps)


def layer_norm_examples(x):
    pytorch = torch.nn.LayerNorm(x.shape[-1]).double()
    out = {
        "mean": x.mean(-1),
        "variance": x.var(-1, unbiased=False),
        "pytorch": pytorch(x).detach(),
        "annotated_variance": x.var(-1, unbiased=True),
        "annotated": annotated_layer_norm(x),
    }
    if x.shape[0] > 1:
        # The seed's nn.LayerNorm(x.shape) normalises over both axes at once.
        out["whole_tensor"] = torch.nn.LayerNorm(tuple(x.shape)).double()(x).detach()
    return out


def make_layer(inputs, norm_first=False, activation="relu"):
    D = inputs["x"].shape[-1]
    F_ = inputs["linear1_weight"].shape[0]
    layer = torch.nn.TransformerEncoderLayer(D, 2, F_, dropout=0.0, batch_first=True,
                                             norm_first=norm_first, activation=activation).double()
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(torch.cat([inputs["w_q"], inputs["w_k"], inputs["w_v"]]))
        layer.self_attn.in_proj_bias.copy_(torch.cat([inputs["b_q"], inputs["b_k"], inputs["b_v"]]))
        layer.self_attn.out_proj.weight.copy_(inputs["w_o"])
        layer.self_attn.out_proj.bias.copy_(inputs["b_o"])
        for name in ("norm1_weight", "norm1_bias", "norm2_weight", "norm2_bias",
                     "linear1_weight", "linear1_bias", "linear2_weight", "linear2_bias"):
            module, parameter = name.rsplit("_", 1)
            getattr(getattr(layer, module), parameter).copy_(inputs[name])
    return layer.eval()


def encoder_steps(layer, x, norm_first, activation):
    """Every intermediate, from the layer's own sub-modules."""
    act = F.relu if activation == "relu" else F.gelu
    with torch.no_grad():
        attention_input = layer.norm1(x) if norm_first else x
        attention_output, attention_weights = layer.self_attn(
            attention_input, attention_input, attention_input, need_weights=True, average_attn_weights=False)
        attention_residual = x + attention_output
        after_attention = attention_residual if norm_first else layer.norm1(attention_residual)
        ffn_input = layer.norm2(after_attention) if norm_first else after_attention
        ffn_hidden = act(layer.linear1(ffn_input))
        ffn_output = layer.linear2(ffn_hidden)
        ffn_residual = after_attention + ffn_output
        output = ffn_residual if norm_first else layer.norm2(ffn_residual)
        assert torch.allclose(output, layer(x), atol=1e-6), "step-by-step and module forward disagree"
    return {"attention_input": attention_input, "attention_weights": attention_weights,
            "attention_output": attention_output, "attention_residual": attention_residual,
            "after_attention": after_attention, "ffn_input": ffn_input, "ffn_hidden": ffn_hidden,
            "ffn_output": ffn_output, "ffn_residual": ffn_residual, "output": output}


def compute(example, inputs):
    inputs = {name: tensor.double() for name, tensor in inputs.items()}
    return {name: tensor.masked_fill(tensor.abs() < 1e-12, 0.0).float()
            for name, tensor in compute_float64(inputs).items()}


def compute_float64(inputs):
    if "w_q" not in inputs:
        return layer_norm_examples(inputs["x"])
    x = inputs["x"]
    out = encoder_steps(make_layer(inputs), x, False, "relu")
    for name, value in encoder_steps(make_layer(inputs, norm_first=True), x, True, "relu").items():
        out["prenorm_" + name] = value
    out["gelu_output"] = encoder_steps(make_layer(inputs, activation="gelu"), x, False, "gelu")["output"]
    # Seed 003's Encoder: N = 2 copies of the layer, then a final LayerNorm (unit weight, zero bias).
    with torch.no_grad():
        layer = make_layer(inputs)
        stacked = layer(layer(x))
        out["encoder_output"] = torch.nn.LayerNorm(x.shape[-1], eps=1e-5).double()(stacked)
    return out
