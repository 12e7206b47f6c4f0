#!/usr/bin/python3
"""Regenerate tests/data/compute/grad-*: gradients for `attn compute MODULE --grad`.

Each case is a folder like the other compute cases: in/<name>.npy (the module's inputs and
grad_output.npy, the upstream gradient of `output`), options.txt (key=value lines: module=…,
heads=…, causal=1, norm_first=1, activation=…, seq_first=1, weights=model.npz), model.npz for
the case whose weights come from an archive, and expected/: output.npy and grad_NAME.npy for every
floating-point input NAME, from torch.autograd.grad in float64 (PyTorch 1.13), as
output.backward(grad_output) would leave them in NAME.grad. Seeded: running it twice writes the
same files. tests/test_cli_compute_grad.cpp runs them.

    /usr/bin/python3 tools/make_grad_compute_fixtures.py
"""
import pathlib
import shutil

import numpy as np
import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "compute"
torch.manual_seed(29)
torch.set_default_dtype(torch.float64)


def attn_name(key):
    """A state_dict key as attn names the input (self_attn.out_proj.weight → w_o, …): its gradient is grad_<that>."""
    renamed = {"self_attn.in_proj_weight": "in_proj_weight", "self_attn.in_proj_bias": "in_proj_bias",
               "self_attn.out_proj.weight": "w_o", "self_attn.out_proj.bias": "b_o"}
    return renamed.get(key, key.replace(".", "_"))


def leaf(*shape, scale=1.0):
    return (scale * torch.randn(*shape)).requires_grad_()


def save_case(name, options, inputs, masks, output, state=None):
    """inputs: floating-point leaves by file name (their gradients are expected); masks: no gradient."""
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in").mkdir(parents=True)
    (folder / "expected").mkdir()
    grad_output = torch.randn_like(output)
    leaves = {**inputs, **(state or {})}
    grads = torch.autograd.grad(output, list(leaves.values()), grad_output)
    for key, value in {**inputs, **masks, "grad_output": grad_output}.items():
        np.save(folder / "in" / f"{key}.npy", value.detach().numpy())
    if state is not None:
        np.savez(folder / "model.npz", **{k: v.detach().numpy() for k, v in state.items()})
        options = {**options, "weights": "model.npz"}
    np.save(folder / "expected" / "output.npy", output.detach().numpy())
    for key, grad in zip(leaves, grads):
        np.save(folder / "expected" / f"grad_{attn_name(key)}.npy", grad.numpy())
    (folder / "options.txt").write_text("".join(f"{k}={v}\n" for k, v in options.items()))


def self_attention_cases():
    for name, causal, (B, T, S, d_k, d_v) in [("grad-self-attention-cross", False, (2, 3, 4, 4, 3)),
                                              ("grad-self-attention-causal", True, (2, 4, 4, 4, 2))]:
        Q, K, V = leaf(B, T, d_k), leaf(B, S, d_k), leaf(B, S, d_v)
        scores = Q @ K.transpose(1, 2) / d_k ** 0.5
        if causal:
            scores = scores.masked_fill(torch.triu(torch.ones(T, S, dtype=torch.bool), 1), float("-inf"))
        output = torch.softmax(scores, -1) @ V
        save_case(name, {"module": "self-attention", "causal": int(causal)}, {"Q": Q, "K": K, "V": V}, {}, output)


def mha(query, key, value, w, heads, **masks):
    """nn.MultiheadAttention's forward on (T, B, D) sequences, from weights that may be split."""
    in_proj_weight = w["in_proj_weight"] if "in_proj_weight" in w else torch.cat([w["w_q"], w["w_k"], w["w_v"]])
    in_proj_bias = w["in_proj_bias"] if "in_proj_bias" in w else torch.cat([w["b_q"], w["b_k"], w["b_v"]])
    D = query.shape[-1]
    output, _ = F.multi_head_attention_forward(query, key, value, D, heads, in_proj_weight, in_proj_bias, None, None,
                                               False, 0.0, w["w_o"], w["b_o"], training=False, **masks)
    return output


def mha_cases():
    B, T, S, D, h = 2, 3, 4, 8, 2
    # Cross-attention, split weights, a bool key_padding_mask (True = ignore; every query keeps a key).
    query, key, value = leaf(B, T, D), leaf(B, S, D), leaf(B, S, D)
    w = {n: leaf(D, D, scale=0.3) for n in ("w_q", "w_k", "w_v", "w_o")}
    w.update({n: leaf(D, scale=0.1) for n in ("b_q", "b_k", "b_v", "b_o")})
    padding = torch.tensor([[False, False, False, True], [False, True, True, True]])
    output = mha(query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1), w, h,
                 key_padding_mask=padding).transpose(0, 1)
    save_case("grad-mha-cross-padding", {"module": "mha", "heads": h},
              {"query": query, "key": key, "value": value, **w}, {"key_padding_mask": padding}, output)
    # Self-attention read from three files, packed weights, causal, sequence-first (T, B, D).
    x = torch.randn(T, B, D)
    query, key, value = (x.clone().requires_grad_() for _ in range(3))
    w = {"in_proj_weight": leaf(3 * D, D, scale=0.3), "in_proj_bias": leaf(3 * D, scale=0.1),
         "w_o": leaf(D, D, scale=0.3), "b_o": leaf(D, scale=0.1)}
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    output = mha(query, key, value, w, h, attn_mask=causal)
    save_case("grad-mha-self-causal-packed-seq-first", {"module": "mha", "heads": h, "causal": 1, "seq_first": 1},
              {"query": query, "key": key, "value": value, **w}, {}, output)


def encoder_layer(norm_first, activation):
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=norm_first,
                                             activation=activation).eval()
    with torch.no_grad():  # away from PyTorch's initial values (ones, zeros), so that every weight matters
        for parameter in layer.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return layer


def names(layer):
    """The state_dict's leaves under attn's file names."""
    return {attn_name(k): v for k, v in layer.named_parameters()}


def encoder_layer_cases():
    B, T, D = 2, 4, 8
    # Post-norm, relu, a bool src_key_padding_mask; the weights as files.
    layer = encoder_layer(False, "relu")
    x = leaf(B, T, D)
    padding = torch.tensor([[False, False, False, False], [False, False, True, True]])
    output = layer(x, src_key_padding_mask=padding)
    save_case("grad-encoder-layer-post-relu-padding", {"module": "encoder-layer", "heads": 2},
              {"x": x, **names(layer)}, {"src_key_padding_mask": padding}, output)
    # Pre-norm, exact GELU, PyTorch's float causal src_mask (0 / -inf); the weights in model.npz
    # under the state_dict's own keys.
    layer = encoder_layer(True, "gelu")
    x = leaf(B, T, D)
    src_mask = torch.nn.Transformer.generate_square_subsequent_mask(T).to(torch.float64)
    output = layer(x, src_mask=src_mask)
    save_case("grad-encoder-layer-pre-gelu-causal-weights", {"module": "encoder-layer", "heads": 2, "norm_first": 1,
                                                             "activation": "gelu"},
              {"x": x}, {"src_mask": src_mask}, output, dict(layer.named_parameters()))


if __name__ == "__main__":
    self_attention_cases()
    mha_cases()
    encoder_layer_cases()
