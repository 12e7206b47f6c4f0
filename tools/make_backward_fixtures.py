#!/usr/bin/python3
"""Regenerate tests/data/backward/: PyTorch's gradients (torch.autograd.grad, float64) of every
layer the library differentiates (include/attn/*_backward.hpp), for tests/test_backward_autograd.cpp.

    CASE/in/<name>.npy             float64 inputs and parameters, named as the library names them
                                   (attention_mask: 1 = attend, 0 = padding), and grad_output.npy,
                                   the upstream gradient of the layer's output
    CASE/expected/grad_<name>.npy  torch.autograd.grad(output, <name>, grad_output) for every
                                   floating-point input that is not a mask
    CASE/options.txt               heads=…, causal=0|1, no_output_projection=0|1, norm_first=0|1,
                                   activation=relu|gelu|gelu-tanh, eps=…

CASE starts with the module: softmax-, linear-, layer-norm-, feed-forward-, sdpa-, mha-,
encoder-layer-. The attention references follow the library's policy for a query whose keys are
all masked (zero weights, so zero gradients), which PyTorch's own modules turn into NaN: such a
row's scores are left unmasked and its weights multiplied by 0, which gives the same output and
gradients with no NaN on the way. Where no row is fully masked the reference is checked against
nn.MultiheadAttention / F.softmax before it is saved. Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_backward_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import math
import pathlib
import shutil

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "backward"
MASKS = ("attention_mask",)


def save_case(name, inputs, output, options):
    """Differentiates `output` (a function of `inputs`) with a seeded grad_output and saves both."""
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in").mkdir(parents=True)
    (folder / "expected").mkdir(parents=True)
    generator = torch.Generator().manual_seed(len(name) * 7919)
    grad_output = torch.randn(*output.shape, generator=generator, dtype=torch.float64)
    names = [key for key in inputs if key not in MASKS]
    grads = torch.autograd.grad(output, [inputs[key] for key in names], grad_output)
    for key, tensor in list(inputs.items()) + [("grad_output", grad_output)]:
        np.save(folder / "in" / f"{key}.npy", np.ascontiguousarray(tensor.detach().numpy()))
    for key, grad in zip(names, grads):
        assert not torch.isnan(grad).any(), (name, key)
        np.save(folder / "expected" / f"grad_{key}.npy", np.ascontiguousarray(grad.numpy()))
    (folder / "options.txt").write_text("".join(f"{key}={value}\n" for key, value in options.items()))


def leaves(generator, **shapes):
    return {key: (torch.randn(*shape, generator=generator, dtype=torch.float64) * scale).requires_grad_()
            for key, (shape, scale) in shapes.items()}


def attention(q, k, v, scale, visible):
    """softmax(scale · q kᵀ + mask) v over the last two axes; visible (…, T, S) is True where a key
    is seen. A row with no visible key gets zero weights (the library's policy)."""
    has_key = visible.any(dim=-1, keepdim=True)
    hidden = ~visible & has_key                               # a fully masked row stays unmasked…
    scores = (scale * q @ k.transpose(-2, -1)).masked_fill(hidden, float("-inf"))
    weights = torch.softmax(scores, dim=-1) * has_key         # …and its weights are zeroed
    return weights @ v


def visibility(B, T, S, lengths, causal):
    visible = torch.ones(B, T, S, dtype=torch.bool)
    mask = None
    if lengths is not None:
        mask = (torch.arange(S)[None, :] < torch.tensor(lengths)[:, None]).to(torch.float64)
        visible &= (mask == 1)[:, None, :]
    if causal:
        visible &= ~torch.triu(torch.ones(T, S, dtype=torch.bool), 1)
    return visible, mask


def small_layer_cases():
    g = torch.Generator().manual_seed(3101)
    x = leaves(g, scores=((2, 3, 4), 2.0))
    save_case("softmax-rows", x, torch.softmax(x["scores"], dim=-1), {})
    x = leaves(g, x=((5, 4), 1.0), weight=((3, 4), 0.5), bias=((3,), 0.1))
    save_case("linear-rows", x, F.linear(x["x"], x["weight"], x["bias"]), {})
    x = leaves(g, x=((4, 6), 2.0), weight=((6,), 1.0), bias=((6,), 0.1))
    x["x"].data[0] += 5.0                                     # a row with a large mean
    save_case("layer-norm-rows", x, F.layer_norm(x["x"], (6,), x["weight"], x["bias"], 1e-5), {"eps": 1e-5})
    activations = {"relu": F.relu, "gelu": F.gelu, "gelu-tanh": lambda u: F.gelu(u, approximate="tanh")}
    for name, activation in activations.items():
        x = leaves(g, x=((5, 4), 1.0), linear1_weight=((8, 4), 0.5), linear1_bias=((8,), 0.1),
                   linear2_weight=((4, 8), 0.35), linear2_bias=((4,), 0.1))
        hidden = activation(F.linear(x["x"], x["linear1_weight"], x["linear1_bias"]))
        save_case(f"feed-forward-{name}", x, F.linear(hidden, x["linear2_weight"], x["linear2_bias"]),
                  {"activation": name})


def sdpa_cases():
    g = torch.Generator().manual_seed(3102)
    # case: (B, T, S, d_k, d_v, padding lengths or None, causal)
    shapes = {
        "plain": (2, 3, 4, 2, 3, None, False),
        "padding": (2, 3, 4, 2, 3, [4, 2], False),
        "causal": (1, 4, 4, 3, 2, None, True),
        "causal-padding": (2, 5, 5, 4, 4, [5, 3], True),
        "fully-masked-query": (2, 3, 3, 2, 2, [3, 0], False),   # the second sentence has no key at all
    }
    for case, (B, T, S, dk, dv, lengths, causal) in shapes.items():
        x = leaves(g, query=((B, T, dk), 1.0), key=((B, S, dk), 1.0), value=((B, S, dv), 1.0))
        visible, mask = visibility(B, T, S, lengths, causal)
        output = attention(x["query"], x["key"], x["value"], 1 / math.sqrt(dk), visible)
        if lengths is None or min(lengths) > 0:                # the plain formula agrees
            scores = x["query"] @ x["key"].transpose(1, 2) / math.sqrt(dk)
            plain = torch.softmax(scores.masked_fill(~visible, float("-inf")), -1) @ x["value"]
            assert torch.allclose(plain, output, atol=1e-14)
        if mask is not None:
            x["attention_mask"] = mask
        save_case(f"sdpa-{case}", x, output, {"causal": int(causal)})


def mha(x, heads, visible):
    B, T, D = x["query"].shape
    S = x["key"].shape[1]
    dk = D // heads
    split = lambda y, n: y.reshape(B, n, heads, dk).transpose(1, 2)
    q = split(F.linear(x["query"], x["w_q"], x["b_q"]), T)
    k = split(F.linear(x["key"], x["w_k"], x["b_k"]), S)
    v = split(F.linear(x["value"], x["w_v"], x["b_v"]), S)
    context = attention(q, k, v, 1 / math.sqrt(dk), visible[:, None]).transpose(1, 2).reshape(B, T, D)
    return F.linear(context, x["w_o"], x["b_o"]) if "w_o" in x else context


def mha_cases():
    g = torch.Generator().manual_seed(3103)
    # case: (B, T, S, D, heads, with_w_o, padding lengths or None, causal)
    shapes = {
        "cross": (2, 3, 4, 4, 2, True, None, False),
        "padding": (2, 4, 4, 6, 3, True, [4, 2], False),
        "causal-no-wo": (2, 4, 4, 4, 2, False, None, True),
        "causal-padding": (2, 5, 5, 8, 2, True, [5, 3], True),
        "fully-masked-query-no-wo": (2, 3, 3, 4, 2, False, [3, 0], False),
    }
    for case, (B, T, S, D, heads, with_w_o, lengths, causal) in shapes.items():
        x = leaves(g, query=((B, T, D), 1.0), key=((B, S, D), 1.0), value=((B, S, D), 1.0))
        for p in ("q", "k", "v") + (("o",) if with_w_o else ()):
            x.update(leaves(g, **{f"w_{p}": ((D, D), D ** -0.5), f"b_{p}": ((D,), 0.1)}))
        visible, mask = visibility(B, T, S, lengths, causal)
        output = mha(x, heads, visible)
        if with_w_o and (lengths is None or min(lengths) > 0):  # nn.MultiheadAttention agrees
            module = torch.nn.MultiheadAttention(D, heads, batch_first=True, dtype=torch.float64)
            with torch.no_grad():
                module.in_proj_weight.copy_(torch.cat([x["w_q"], x["w_k"], x["w_v"]]))
                module.in_proj_bias.copy_(torch.cat([x["b_q"], x["b_k"], x["b_v"]]))
                module.out_proj.weight.copy_(x["w_o"])
                module.out_proj.bias.copy_(x["b_o"])
                kwargs = {"attn_mask": ~visible.repeat_interleave(heads, 0), "need_weights": False}
                expected, _ = module(x["query"], x["key"], x["value"], **kwargs)
            assert torch.allclose(expected, output, atol=1e-12)
        if mask is not None:
            x["attention_mask"] = mask
        save_case(f"mha-{case}", x, output,
                  {"heads": heads, "causal": int(causal), "no_output_projection": int(not with_w_o)})


def encoder_layer_cases():
    g = torch.Generator().manual_seed(3104)
    # case: (B, T, D, heads, F, norm_first, activation, padding lengths or None, causal)
    shapes = {
        "post-relu-padding": (2, 4, 4, 2, 8, False, "relu", [4, 2], False),
        "pre-relu-causal": (2, 4, 4, 2, 8, True, "relu", None, True),
        "post-gelu-causal": (2, 3, 6, 3, 8, False, "gelu", None, True),
        "pre-gelu-padding": (2, 4, 4, 1, 6, True, "gelu", [4, 3], False),
    }
    for case, (B, T, D, heads, Fw, norm_first, activation, lengths, causal) in shapes.items():
        layer = torch.nn.TransformerEncoderLayer(D, heads, Fw, dropout=0.0, activation=activation, batch_first=True,
                                                 norm_first=norm_first, dtype=torch.float64)
        x = leaves(g, x=((B, T, D), 1.0))
        for p in ("q", "k", "v", "o"):
            x.update(leaves(g, **{f"w_{p}": ((D, D), D ** -0.5), f"b_{p}": ((D,), 0.1)}))
        x.update(leaves(g, norm1_weight=((D,), 0.3), norm1_bias=((D,), 0.1), norm2_weight=((D,), 0.3),
                        norm2_bias=((D,), 0.1), linear1_weight=((Fw, D), D ** -0.5), linear1_bias=((Fw,), 0.1),
                        linear2_weight=((D, Fw), Fw ** -0.5), linear2_bias=((D,), 0.1)))
        for norm in ("norm1", "norm2"):
            x[f"{norm}_weight"].data += 1.0
        # The module's parameters replaced by our leaves, so that autograd reaches them by name.
        attention = layer.self_attn
        del attention.in_proj_weight, attention.in_proj_bias
        attention.in_proj_weight = torch.cat([x["w_q"], x["w_k"], x["w_v"]])
        attention.in_proj_bias = torch.cat([x["b_q"], x["b_k"], x["b_v"]])
        for module_name, names in (("out_proj", ("w_o", "b_o")), ("norm1", None), ("norm2", None),
                                   ("linear1", None), ("linear2", None)):
            module = getattr(layer, module_name) if module_name != "out_proj" else attention.out_proj
            weight, bias = names or (f"{module_name}_weight", f"{module_name}_bias")
            del module.weight, module.bias
            module.weight, module.bias = x[weight], x[bias]
        layer.train()                                            # PyTorch's reference path, dropout 0
        kwargs = {}
        if lengths is not None:
            x["attention_mask"] = (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).to(torch.float64)
            kwargs["src_key_padding_mask"] = x["attention_mask"] == 0   # PyTorch: True = ignore
        if causal:
            kwargs["src_mask"] = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        output = layer(x["x"], **kwargs)
        save_case(f"encoder-layer-{case}", x, output,
                  {"heads": heads, "causal": int(causal), "norm_first": int(norm_first), "activation": activation,
                   "eps": 1e-5})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    small_layer_cases()
    sdpa_cases()
    mha_cases()
    encoder_layer_cases()
    print(f"wrote {len(list(OUT.iterdir()))} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
