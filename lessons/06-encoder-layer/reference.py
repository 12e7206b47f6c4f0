"""PyTorch reference for lesson 6 (the Transformer encoder layer).

LayerNorm as torch.nn.LayerNorm computes it, next to the Annotated Transformer's variant written
out in torch; the worked encoder layer step by step with torch.nn.TransformerEncoderLayer's own
sub-modules, checked against the module's forward on the same input; seed 003's stack (pre-norm
layers, then a final norm) checked against torch.nn.TransformerEncoder; and a layer of the
paper's size with seeded random weights, checked against the module's forward.

Everything runs in float64 and is printed as float32: in float32 the centre of [5, 6, 7, 8, 9]
normalises to 1.8e-07 instead of 0, noise that would make the lesson's tables unreadable. Even in
float64 PyTorch's fused layer norm, (x·r) − (mean·r), leaves 3e-16 there; values within 1e-12 of
zero are that rounding noise and are written as 0."""
import numpy as np
import torch
import torch.nn.functional as F
from seeded import seeded_uniform


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


def make_layer(inputs, heads, norm_first=False, activation="relu"):
    D = inputs["x"].shape[-1]
    F_ = inputs["linear1_weight"].shape[0]
    layer = torch.nn.TransformerEncoderLayer(D, heads, F_, dropout=0.0, batch_first=True,
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
        assert torch.allclose(output, layer(x), atol=1e-10), "step-by-step and module forward disagree"
    return {"attention_input": attention_input, "attention_weights": attention_weights,
            "attention_output": attention_output, "attention_residual": attention_residual,
            "after_attention": after_attention, "ffn_input": ffn_input, "ffn_hidden": ffn_hidden,
            "ffn_output": ffn_output, "ffn_residual": ffn_residual, "output": output}


def worked_layer(inputs):
    """Steps 3 to 9: the layer by hand (two heads, as in lesson 5), pre-norm, GELU, and a stack."""
    x = inputs["x"]
    out = encoder_steps(make_layer(inputs, 2), x, False, "relu")
    # Step 5 by hand: the mean and the (biased) variance of each row that norm1 normalises.
    out["norm1_mean"] = out["attention_residual"].mean(-1)
    out["norm1_variance"] = out["attention_residual"].var(-1, unbiased=False)
    for name, value in encoder_steps(make_layer(inputs, 2, norm_first=True), x, True, "relu").items():
        out["prenorm_" + name] = value
    out["gelu_output"] = encoder_steps(make_layer(inputs, 2, activation="gelu"), x, False, "gelu")["output"]
    # Seed 003's Encoder: N = 2 copies of its pre-norm layer, then a final norm (here nn.LayerNorm,
    # unit weight and zero bias), which is torch.nn.TransformerEncoder(layer, 2, norm=LayerNorm).
    with torch.no_grad():
        layer = make_layer(inputs, 2, norm_first=True)
        final_norm = torch.nn.LayerNorm(x.shape[-1], eps=1e-5).double()
        stacked = final_norm(layer(layer(x)))
        encoder = torch.nn.TransformerEncoder(layer, 2, norm=final_norm, enable_nested_tensor=False).double().eval()
        assert torch.allclose(encoder(x), stacked, atol=1e-10)
        out["encoder_output"] = stacked
    return out


# The order and ranges of the full-size layer's tensors: (name, shape in letters, bound, center).
# x uniform in (−1, 1); linear weights and biases in ±1/√(input width), as nn.Linear initialises
# them; norm weights in 1 ± 0.2 and norm biases in ±0.2, so that the norms are not the identity.
FULL_SIZE_TENSORS = (
    ("x", "BTD", "1", 0.0), ("w_q", "DD", "1/sqrt(D)", 0.0), ("w_k", "DD", "1/sqrt(D)", 0.0),
    ("w_v", "DD", "1/sqrt(D)", 0.0), ("w_o", "DD", "1/sqrt(D)", 0.0), ("b_q", "D", "1/sqrt(D)", 0.0),
    ("b_k", "D", "1/sqrt(D)", 0.0), ("b_v", "D", "1/sqrt(D)", 0.0), ("b_o", "D", "1/sqrt(D)", 0.0),
    ("norm1_weight", "D", "0.2", 1.0), ("norm1_bias", "D", "0.2", 0.0),
    ("norm2_weight", "D", "0.2", 1.0), ("norm2_bias", "D", "0.2", 0.0),
    ("linear1_weight", "FD", "1/sqrt(D)", 0.0), ("linear1_bias", "F", "1/sqrt(D)", 0.0),
    ("linear2_weight", "DF", "1/sqrt(F)", 0.0), ("linear2_bias", "D", "1/sqrt(F)", 0.0),
)


def full_size_layer(sizes, seed):
    """Step 10: nn.TransformerEncoderLayer(D, h, F) at the paper's size with seeded weights."""
    B, T, D, heads, F_ = (int(v) for v in sizes.tolist())
    letters = {"B": B, "T": T, "D": D, "F": F_}
    bounds = {"1": 1.0, "0.2": 0.2, "1/sqrt(D)": 1.0 / np.sqrt(D), "1/sqrt(F)": 1.0 / np.sqrt(F_)}
    generator = np.random.RandomState(int(seed.item()))
    inputs = {name: seeded_uniform(generator, tuple(letters[c] for c in shape), bounds[bound], center)
              for name, shape, bound, center in FULL_SIZE_TENSORS}
    layer = make_layer(inputs, heads)
    steps = encoder_steps(layer, inputs["x"], False, "relu")
    output = steps["output"]
    return {"full_head0_weights": steps["attention_weights"][:, 0],   # (B, T, S): head 0
            "full_output_head": output[:, :, :6],                      # (B, T, 6): the first features
            "full_output_norm": output.norm(dim=-1)}                   # (B, T): every feature


def compute(example, inputs):
    inputs = {name: tensor.double() for name, tensor in inputs.items()}
    if "sizes" in inputs:
        return full_size_layer(inputs["sizes"], inputs["seed"])
    if "w_q" not in inputs:
        return layer_norm_examples(inputs["x"])
    return worked_layer(inputs)
