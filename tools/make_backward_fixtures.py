#!/usr/bin/python3
"""Regenerate tests/data/backward/: PyTorch's gradients (torch.autograd.grad, float64) of every
layer the library differentiates (include/attn/*_backward.hpp), for tests/test_backward_autograd.cpp.

    CASE/in/<name>.npy             float64 inputs and parameters, named as the library names them
                                   (attention_mask: 1 = attend, 0 = padding), and grad_output.npy,
                                   the upstream gradient of the layer's output
    CASE/expected/grad_<name>.npy  torch.autograd.grad(output, <name>, grad_output) for every
                                   floating-point input that is not a mask
    CASE/options.txt               heads=…, causal=0|1, no_output_projection=0|1, norm_first=0|1,
                                   activation=relu|gelu|gelu-tanh, eps=…, encoder_layers=…,
                                   decoder_layers=…

CASE starts with the module: softmax-, linear-, layer-norm-, feed-forward-, sdpa-, mha-,
encoder-layer-, decoder-layer-, transformer-. The layers' parameters are named as the library's
tests name them (w_q …, norm1_weight …; a decoder layer's self_attention_w_q …, cross_attention_w_q
…; in nn.Transformer encoder0_w_q …, decoder1_cross_attention_w_q …, encoder_norm_weight …). The attention references follow the library's policy for a query whose keys are
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
MASKS = ("attention_mask", "tgt_attention_mask", "memory_attention_mask", "src_attention_mask")


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


def replace_parameters(module, weight, bias):
    """The module's weight and bias replaced by leaves, so that autograd reaches them by name."""
    del module.weight, module.bias
    module.weight, module.bias = weight, bias


def layer_leaves(g, D, Fw, attentions, norms, prefix=""):
    """Every parameter of an encoder layer (attentions ("",), norms 2) or a decoder layer
    (attentions ("self_attention_", "cross_attention_"), norms 3), named as the library's tests name
    them, each name after `prefix`."""
    x = {}
    for attention in attentions:
        for p in ("q", "k", "v", "o"):
            x.update(leaves(g, **{f"{prefix}{attention}w_{p}": ((D, D), D ** -0.5),
                                  f"{prefix}{attention}b_{p}": ((D,), 0.1)}))
    shapes = {}
    for n in range(1, norms + 1):
        shapes.update({f"{prefix}norm{n}_weight": ((D,), 0.3), f"{prefix}norm{n}_bias": ((D,), 0.1)})
    shapes.update({f"{prefix}linear1_weight": ((Fw, D), D ** -0.5), f"{prefix}linear1_bias": ((Fw,), 0.1),
                   f"{prefix}linear2_weight": ((D, Fw), Fw ** -0.5), f"{prefix}linear2_bias": ((D,), 0.1)})
    x.update(leaves(g, **shapes))
    for n in range(1, norms + 1):
        x[f"{prefix}norm{n}_weight"].data += 1.0
    return x


def install_layer(layer, x, attentions, prefix=""):
    """Puts the leaves of layer_leaves into an nn.TransformerEncoderLayer or DecoderLayer;
    attentions maps its attention modules to their names' prefixes."""
    for module_name, attention in attentions.items():
        module, name = getattr(layer, module_name), prefix + attention
        del module.in_proj_weight, module.in_proj_bias
        module.in_proj_weight = torch.cat([x[f"{name}w_q"], x[f"{name}w_k"], x[f"{name}w_v"]])
        module.in_proj_bias = torch.cat([x[f"{name}b_q"], x[f"{name}b_k"], x[f"{name}b_v"]])
        replace_parameters(module.out_proj, x[f"{name}w_o"], x[f"{name}b_o"])
    for module_name in ("norm1", "norm2", "norm3", "linear1", "linear2"):
        if hasattr(layer, module_name):
            replace_parameters(getattr(layer, module_name), x[f"{prefix}{module_name}_weight"],
                               x[f"{prefix}{module_name}_bias"])


def padding(T, lengths):
    """(B, T) 1 = attend for sequences of these lengths: the library's attention_mask."""
    return (torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]).to(torch.float64)


ENCODER_ATTENTIONS = {"self_attn": ""}
DECODER_ATTENTIONS = {"self_attn": "self_attention_", "multihead_attn": "cross_attention_"}


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
        x.update(layer_leaves(g, D, Fw, ENCODER_ATTENTIONS.values(), 2))
        install_layer(layer, x, ENCODER_ATTENTIONS)
        layer.train()                                            # PyTorch's reference path, dropout 0
        kwargs = {}
        if lengths is not None:
            x["attention_mask"] = padding(T, lengths)
            kwargs["src_key_padding_mask"] = x["attention_mask"] == 0   # PyTorch: True = ignore
        if causal:
            kwargs["src_mask"] = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        output = layer(x["x"], **kwargs)
        save_case(f"encoder-layer-{case}", x, output,
                  {"heads": heads, "causal": int(causal), "norm_first": int(norm_first), "activation": activation,
                   "eps": 1e-5})


def decoder_masks(x, T, S, tgt_lengths, memory_lengths, causal, memory_name):
    """The padding masks saved in x (tgt_attention_mask, and the memory's as memory_name) and
    PyTorch's keyword arguments for the same masks."""
    kwargs = {}
    if tgt_lengths is not None:
        x["tgt_attention_mask"] = padding(T, tgt_lengths)
        kwargs["tgt_key_padding_mask"] = x["tgt_attention_mask"] == 0
    if memory_lengths is not None:
        x[memory_name] = padding(S, memory_lengths)
        kwargs["memory_key_padding_mask"] = x[memory_name] == 0
    if causal:
        kwargs["tgt_mask"] = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    return kwargs


def decoder_layer_cases():
    g = torch.Generator().manual_seed(3105)
    # case: (B, T, S, D, heads, F, norm_first, activation, tgt lengths, memory lengths, causal)
    shapes = {
        "post-relu-causal-padding": (2, 3, 4, 4, 2, 6, False, "relu", [3, 2], [4, 2], True),
        "pre-gelu-causal": (2, 3, 4, 4, 2, 6, True, "gelu", None, [4, 3], True),
        "post-gelu": (2, 4, 5, 6, 3, 8, False, "gelu", None, None, False),
        "pre-relu-padding": (2, 4, 3, 4, 1, 6, True, "relu", [4, 3], None, False),
    }
    for case, (B, T, S, D, heads, Fw, norm_first, activation, tgt_lengths, memory_lengths, causal) in shapes.items():
        layer = torch.nn.TransformerDecoderLayer(D, heads, Fw, dropout=0.0, activation=activation, batch_first=True,
                                                 norm_first=norm_first, dtype=torch.float64)
        x = leaves(g, tgt=((B, T, D), 1.0), memory=((B, S, D), 1.0))
        x.update(layer_leaves(g, D, Fw, DECODER_ATTENTIONS.values(), 3))
        install_layer(layer, x, DECODER_ATTENTIONS)
        layer.train()
        kwargs = decoder_masks(x, T, S, tgt_lengths, memory_lengths, causal, "memory_attention_mask")
        output = layer(x["tgt"], x["memory"], **kwargs)
        save_case(f"decoder-layer-{case}", x, output,
                  {"heads": heads, "causal": int(causal), "norm_first": int(norm_first), "activation": activation,
                   "eps": 1e-5})


def transformer_cases():
    """nn.Transformer with two layers in each stack; the source's padding hides the same positions
    from the encoder's self-attention and the decoder's cross-attention (src_attention_mask)."""
    g = torch.Generator().manual_seed(3106)
    # case: (B, S, T, D, heads, F, norm_first, activation, src lengths, tgt lengths, causal)
    shapes = {
        "post-relu-padding-causal": (2, 4, 3, 4, 2, 6, False, "relu", [4, 3], [3, 2], True),
        "pre-gelu-causal": (2, 5, 4, 4, 2, 6, True, "gelu", None, None, True),
    }
    layers = 2
    for case, (B, S, T, D, heads, Fw, norm_first, activation, src_lengths, tgt_lengths, causal) in shapes.items():
        model = torch.nn.Transformer(D, heads, layers, layers, Fw, dropout=0.0, activation=activation,
                                     batch_first=True, norm_first=norm_first, dtype=torch.float64)
        x = leaves(g, src=((B, S, D), 1.0), tgt=((B, T, D), 1.0))
        for stack, attentions, norms in (("encoder", ENCODER_ATTENTIONS, 2), ("decoder", DECODER_ATTENTIONS, 3)):
            for i, layer in enumerate(getattr(model, stack).layers):
                x.update(layer_leaves(g, D, Fw, attentions.values(), norms, f"{stack}{i}_"))
                install_layer(layer, x, attentions, f"{stack}{i}_")
            x.update(leaves(g, **{f"{stack}_norm_weight": ((D,), 0.3), f"{stack}_norm_bias": ((D,), 0.1)}))
            x[f"{stack}_norm_weight"].data += 1.0
            replace_parameters(getattr(model, stack).norm, x[f"{stack}_norm_weight"], x[f"{stack}_norm_bias"])
        model.train()
        kwargs = decoder_masks(x, T, S, tgt_lengths, src_lengths, causal, "src_attention_mask")
        if src_lengths is not None:
            kwargs["src_key_padding_mask"] = kwargs["memory_key_padding_mask"]
        output = model(x["src"], x["tgt"], **kwargs)
        save_case(f"transformer-{case}", x, output,
                  {"heads": heads, "causal": int(causal), "norm_first": int(norm_first), "activation": activation,
                   "eps": 1e-5, "encoder_layers": layers, "decoder_layers": layers})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    small_layer_cases()
    sdpa_cases()
    mha_cases()
    encoder_layer_cases()
    decoder_layer_cases()
    transformer_cases()
    print(f"wrote {len(list(OUT.iterdir()))} cases to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
