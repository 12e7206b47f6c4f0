#!/usr/bin/python3
"""Regenerate tests/data/fast_attention/: the PyTorch cases the float32 fast path (attn::fast,
include/attn/fast/) is tested on besides the `attn compute` fixtures of tests/data/compute.

The fast path's tests run every float32, top-left-causal `mha-*` and `encoder-layer-*` case of
tests/data/compute (tools/make_compute_fixtures.py) and these, in the same format and made by the
same references (this script imports them):

    CASE/in/<name>.npy        float32 inputs and parameters, named as attn::fast names them
                              (attention_mask: 1 = attend, 0 = padding)
    CASE/expected/<name>.npy  output (B, T, D), and for mha the per-head weights (B, h, T, S)
    CASE/options.txt          heads=…, causal=0|1, and for the encoder norm_first, activation, eps

The cases the compute fixtures do not have: scores in the hundreds; sequences longer than one
tile of the tests' small tiles and than a vector register, with padding and the causal mask,
T ≠ S both ways; nn.MultiheadAttention(bias=False) (no b_q, b_k, b_v, b_o files: absent biases);
causal encoder layers (src_mask = triu(ones(T, T), 1)), post- and pre-norm; a wide encoder layer.
Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_fast_attention_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import pathlib
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_compute_fixtures as compute  # noqa: E402  (the references and the options format)

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "fast_attention"


def save_case(name, inputs, outputs, options):
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    for sub, tensors in (("in", inputs), ("expected", outputs)):
        (folder / sub).mkdir(parents=True)
        for key, tensor in tensors.items():
            np.save(folder / sub / f"{key}.npy", tensor.detach().to(torch.float32).numpy())
    (folder / "options.txt").write_text("".join(f"{key}={value}\n" for key, value in options.items()))


def mha_cases():
    generator = torch.Generator().manual_seed(2031)
    # case: (B, T, S, D, heads, mask lengths or None, causal, input scale, biases)
    shapes = {
        "large-scores": (2, 6, 6, 16, 2, None, False, 8.0, True),     # scores in the hundreds
        "long-padding": (2, 37, 37, 32, 4, [37, 20], False, 1.0, True),
        "long-causal-padding": (2, 37, 37, 32, 4, [37, 23], True, 1.0, True),
        "long-cross-t-lt-s": (2, 13, 41, 24, 3, [41, 30], True, 1.0, True),
        "long-cross-t-gt-s": (1, 29, 11, 16, 2, None, True, 1.0, True),
        "no-bias": (2, 9, 9, 12, 3, [9, 5], True, 1.0, False),        # nn.MultiheadAttention(bias=False)
    }
    for case, (b, t, s, d, heads, lengths, causal, scale, biases) in shapes.items():
        randn = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64).to(torch.float32)
        query = randn(b, t, d) * scale
        key, value = (query, query) if t == s else (randn(b, s, d) * scale, randn(b, s, d) * scale)
        inputs = {"query": query, "key": key, "value": value}
        for name in ("q", "k", "v", "o"):
            inputs[f"w_{name}"] = randn(d, d) / d ** 0.5
            inputs[f"b_{name}"] = randn(d) * 0.1 if biases else torch.zeros(d)
        if lengths is not None:
            inputs["attention_mask"] = (torch.arange(s)[None, :] < torch.tensor(lengths)[:, None]).to(torch.float32)
        outputs = compute.mha_reference(inputs, heads, causal)
        if not biases:  # zero biases compute what bias=False computes; the files say "absent"
            inputs = {k: v for k, v in inputs.items() if not k.startswith("b_")}
        save_case(f"mha-{case}", inputs, outputs, {"heads": heads, "causal": int(causal)})


def encoder_layer_reference(inputs, heads, norm_first, activation, eps, causal):
    """compute.encoder_layer_reference, with the causal mask as src_mask when asked."""
    if not causal:
        return compute.encoder_layer_reference(inputs, heads, norm_first, activation, eps)
    x = inputs["x"]
    layer = torch.nn.TransformerEncoderLayer(x.shape[-1], heads, inputs["linear1_weight"].shape[0], dropout=0.0,
                                             activation=activation, layer_norm_eps=eps, batch_first=True,
                                             norm_first=norm_first)
    compute.load_encoder_layer(layer, inputs)
    kwargs = {"src_mask": compute.future_keys(x.shape[1], x.shape[1], "top-left")}
    if "attention_mask" in inputs:
        kwargs["src_key_padding_mask"] = inputs["attention_mask"] == 0  # PyTorch: True = ignore
    with torch.no_grad():
        return {"output": layer(x, **kwargs)}


def encoder_layer_cases():
    generator = torch.Generator().manual_seed(2032)
    # case: (B, T, D, heads, F, norm_first, activation, eps, mask lengths or None, causal)
    shapes = {
        "post-relu-causal": (2, 7, 8, 2, 16, False, "relu", 1e-5, None, True),
        "pre-gelu-causal-padding": (2, 19, 12, 3, 20, True, "gelu", 1e-5, [19, 11], True),
        "wide": (2, 33, 64, 4, 96, False, "gelu", 1e-6, [33, 17], False),
    }
    for case, (b, t, d, heads, f, norm_first, activation, eps, lengths, causal) in shapes.items():
        randn = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64).to(torch.float32)
        inputs = {"x": randn(b, t, d)}
        for name in ("q", "k", "v", "o"):
            inputs[f"w_{name}"] = randn(d, d) / d ** 0.5
            inputs[f"b_{name}"] = randn(d) * 0.1
        for norm in ("norm1", "norm2"):
            inputs[f"{norm}_weight"] = 1.0 + randn(d) * 0.2
            inputs[f"{norm}_bias"] = randn(d) * 0.1
        inputs["linear1_weight"], inputs["linear1_bias"] = randn(f, d) / d ** 0.5, randn(f) * 0.1
        inputs["linear2_weight"], inputs["linear2_bias"] = randn(d, f) / f ** 0.5, randn(d) * 0.1
        if lengths is not None:
            inputs["attention_mask"] = (torch.arange(t)[None, :] < torch.tensor(lengths)[:, None]).to(torch.float32)
        outputs = encoder_layer_reference(inputs, heads, norm_first, activation, eps, causal)
        assert torch.isfinite(outputs["output"]).all(), case
        save_case(f"encoder-layer-{case}", inputs, outputs,
                  {"heads": heads, "norm_first": int(norm_first), "activation": activation, "eps": repr(eps),
                   "causal": int(causal)})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    mha_cases()
    encoder_layer_cases()
    print(f"wrote {sorted(p.name for p in OUT.iterdir())}")


if __name__ == "__main__":
    main()
