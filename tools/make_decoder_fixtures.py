#!/usr/bin/python3
"""Regenerate tests/data/decoder/: PyTorch's decoder layer, decoder stack and nn.Transformer.

Each case is two files: CASE.npz holds the module's state_dict under PyTorch's own names
("self_attn.in_proj_weight", "layers.1.norm3.bias", "encoder.norm.weight", …), the inputs under
the names of the module's forward arguments ("tgt", "memory", "src", "tgt_mask", …) and what
PyTorch computed, "expected_output" (and, for nn.Transformer, "expected_memory"); CASE.txt holds
the settings the state_dict does not carry (heads, norm_first, activation, eps), one key=value a
line. Every tensor is float64: PyTorch computes in float64 too, so the C++ tests compare to 1e-10.

Padding masks are stored the library's way round, "tgt_attention_mask" and
"memory_attention_mask" (B, ·) with 1 = attend: PyTorch's key_padding_mask negated. Position 0 is
never padding and no mask hides a whole row, so no softmax row is all −∞ (PyTorch gives NaN there,
the library zeros).

The modules run in training mode with dropout 0: the same numbers as eval mode, without the
fused fast path that PyTorch 1.13 may take in eval mode.

    /usr/bin/python3 tools/make_decoder_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy. Seeded: twice, the same files.
"""
import pathlib
import shutil

import numpy as np
import torch
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "decoder"
D, HEADS, F = 8, 2, 12  # small: every case fits in a few kilobytes


def randomize(module, generator):
    """Every parameter drawn from N(0, 0.5²), norm gains around 1: LayerNorm's ones and zeros
    replaced too, so that a norm1/norm2/norm3 mix-up changes the output."""
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator, dtype=torch.float64) * 0.5)
            if ".norm" in "." + name and name.endswith("weight"):
                parameter.add_(1.0)  # norm gains near 1, as trained models have them
    module.train()  # dropout is 0: training mode only keeps PyTorch off its fused eval path
    return module


def padding(lengths, size):
    """(B, size) key_padding_mask, True = padding, for sequences of the given lengths."""
    return torch.arange(size)[None, :] >= torch.tensor(lengths)[:, None]


def additive(generator, rows, t, s, hide_some):
    """An additive float mask (rows, t, s): finite offsets, and −∞ on a few keys other than key 0."""
    mask = torch.randn(rows, t, s, generator=generator, dtype=torch.float64)
    if hide_some:
        mask[:, :, 1::3] = float("-inf")
    return mask


def save_case(name, settings, state, inputs, expected):
    arrays = {key: value.detach().numpy() for key, value in state.items()}
    for key, value in inputs.items():
        if value is not None:
            arrays[key] = value.detach().double().numpy()
    for key, value in expected.items():
        arrays["expected_" + key] = value.detach().numpy()
    np.savez(OUT / f"{name}.npz", **arrays)
    lines = [f"{key}={value}" for key, value in settings.items()]
    (OUT / f"{name}.txt").write_text("\n".join(lines) + "\n")


def settings_of(norm_first, activation, eps):
    return {"heads": HEADS, "norm_first": int(norm_first), "activation": activation, "eps": repr(eps)}


def masks_for(generator, b, t, s, case):
    """PyTorch's mask arguments for one case, and the same masks as the library stores them."""
    torch_masks, stored = {}, {}
    if case.get("causal"):
        torch_masks["tgt_mask"] = nn.Transformer.generate_square_subsequent_mask(t).double()
    # PyTorch takes one mask for all as (T, ·) and a mask per sequence and head as (B·h, T, ·);
    # the library takes (1 or B·h, T, ·).
    for key, width in (("tgt_mask", t), ("memory_mask", s)):
        if case.get(key):
            stored[key] = additive(generator, case[key], t, width, True)
            torch_masks[key] = stored[key][0] if case[key] == 1 else stored[key]
    if case.get("tgt_lengths"):
        torch_masks["tgt_key_padding_mask"] = padding(case["tgt_lengths"], t)
        stored["tgt_attention_mask"] = (~torch_masks["tgt_key_padding_mask"]).double()
    if case.get("memory_lengths"):
        torch_masks["memory_key_padding_mask"] = padding(case["memory_lengths"], s)
        stored["memory_attention_mask"] = (~torch_masks["memory_key_padding_mask"]).double()
    return torch_masks, stored


# name: (B, T, S, norm_first, activation, eps, masks)
LAYER_CASES = {
    "layer-post-relu": (2, 3, 5, False, "relu", 1e-5, {}),
    "layer-pre-gelu": (2, 4, 3, True, "gelu", 1e-5, {}),
    "layer-post-relu-causal-padding": (2, 4, 5, False, "relu", 1e-5,
                                       {"causal": True, "tgt_lengths": [4, 2], "memory_lengths": [3, 5]}),
    "layer-pre-relu-causal-padding": (3, 3, 6, True, "relu", 1e-6,
                                      {"causal": True, "tgt_lengths": [1, 3, 2], "memory_lengths": [6, 1, 4]}),
    "layer-post-gelu-additive-shared": (2, 3, 4, False, "gelu", 1e-5, {"tgt_mask": 1, "memory_mask": 1}),
    "layer-pre-gelu-additive-per-head": (2, 3, 4, True, "gelu", 1e-5,
                                         {"tgt_mask": 2 * HEADS, "memory_mask": 2 * HEADS, "memory_lengths": [4, 2]}),
    "layer-post-relu-t1": (2, 1, 5, False, "relu", 1e-5, {"causal": True, "memory_lengths": [5, 3]}),
}


def layer_cases(generator):
    for name, (b, t, s, norm_first, activation, eps, case) in LAYER_CASES.items():
        layer = randomize(nn.TransformerDecoderLayer(D, HEADS, F, dropout=0.0, activation=activation,
                                                     layer_norm_eps=eps, batch_first=True, norm_first=norm_first,
                                                     dtype=torch.float64), generator)
        tgt = torch.randn(b, t, D, generator=generator, dtype=torch.float64)
        memory = torch.randn(b, s, D, generator=generator, dtype=torch.float64)
        torch_masks, stored = masks_for(generator, b, t, s, case)
        output = layer(tgt, memory, **torch_masks)
        settings = settings_of(norm_first, activation, eps)
        settings["causal"] = int(bool(case.get("causal")))
        save_case(name, settings, layer.state_dict(), {"tgt": tgt, "memory": memory, **stored}, {"output": output})


def stack_cases(generator):
    """A 2-layer nn.TransformerDecoder with a final norm whose eps differs from the layers'."""
    for name, norm_first in (("decoder-post", False), ("decoder-pre", True)):
        b, t, s = 2, 4, 3
        layer = nn.TransformerDecoderLayer(D, HEADS, F, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=norm_first, dtype=torch.float64)
        final_norm = nn.LayerNorm(D, eps=1e-3, dtype=torch.float64)
        decoder = randomize(nn.TransformerDecoder(layer, 2, norm=final_norm), generator)
        tgt = torch.randn(b, t, D, generator=generator, dtype=torch.float64)
        memory = torch.randn(b, s, D, generator=generator, dtype=torch.float64)
        case = {"causal": True, "tgt_lengths": [4, 3], "memory_lengths": [2, 3]}
        torch_masks, stored = masks_for(generator, b, t, s, case)
        output = decoder(tgt, memory, **torch_masks)
        settings = {**settings_of(norm_first, "gelu", 1e-5), "causal": 1, "final_norm_eps": repr(1e-3)}
        save_case(name, settings, decoder.state_dict(), {"tgt": tgt, "memory": memory, **stored}, {"output": output})


def transformer_cases(generator):
    """nn.Transformer, 2 encoder and 2 decoder layers, with encoder.norm and decoder.norm."""
    for name, norm_first, activation in (("transformer-post", False, "relu"), ("transformer-pre", True, "gelu")):
        b, s, t = 2, 5, 3
        model = randomize(nn.Transformer(D, HEADS, 2, 2, F, dropout=0.0, activation=activation, batch_first=True,
                                         norm_first=norm_first, dtype=torch.float64), generator)
        src = torch.randn(b, s, D, generator=generator, dtype=torch.float64)
        tgt = torch.randn(b, t, D, generator=generator, dtype=torch.float64)
        case = {"causal": True, "tgt_lengths": [3, 2], "memory_lengths": [5, 4]}
        torch_masks, stored = masks_for(generator, b, t, s, case)
        src_mask = additive(generator, 1, s, s, True)[0]
        src_key_padding_mask = torch_masks["memory_key_padding_mask"]  # PyTorch's usual: the same padding
        output = model(src, tgt, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask, **torch_masks)
        memory = model.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        inputs = {"src": src, "tgt": tgt, "src_mask": src_mask[None], "src_attention_mask": stored["memory_attention_mask"],
                  **stored}
        settings = {**settings_of(norm_first, activation, 1e-5), "causal": 1}
        save_case(name, settings, model.state_dict(), inputs, {"output": output, "memory": memory})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    generator = torch.Generator().manual_seed(9)
    layer_cases(generator)
    stack_cases(generator)
    transformer_cases(generator)


if __name__ == "__main__":
    main()
