#!/usr/bin/python3
"""Regenerate tests/data/compute/: inputs and PyTorch's outputs for `attn compute` modules.

Each case is a folder tests/data/compute/MODULE-CASE/ with in/<name>.npy (the module's inputs)
and expected/<name>.npy (what PyTorch computes from them). The C++ tests run the library on the
inputs and compare with the expected files, so the suite checks against PyTorch without needing
PyTorch installed. Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_compute_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import pathlib
import shutil

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "compute"


def save_case(name, inputs, outputs, out=OUT):
    folder = out / name
    shutil.rmtree(folder, ignore_errors=True)
    for sub, tensors in (("in", inputs), ("expected", outputs)):
        (folder / sub).mkdir(parents=True)
        for key, tensor in tensors.items():
            np.save(folder / sub / f"{key}.npy", tensor.detach().numpy())


def dot_reference(encoder_outputs, decoder_output):
    """Dot-product attention as PyTorch users write it (lesson 1)."""
    scores = torch.bmm(encoder_outputs, decoder_output.unsqueeze(2)).squeeze(2)
    weights = torch.softmax(scores, dim=1)
    context = torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1)
    return {"scores": scores, "weights": weights, "context": context}


def dot_cases():
    generator = torch.Generator().manual_seed(2024)
    shapes = {
        "batch4": (4, 7, 16, torch.float32, 1.0),
        "b1": (1, 5, 8, torch.float32, 1.0),
        "s1": (3, 1, 4, torch.float32, 1.0),
        "b1-s1": (1, 1, 1, torch.float32, 1.0),
        "float64": (2, 3, 5, torch.float64, 1.0),
        "large-scores": (2, 6, 32, torch.float32, 4.0),  # scores in the hundreds: the softmax must not overflow
    }
    for case, (b, s, h, dtype, scale) in shapes.items():
        encoder_outputs = (torch.randn(b, s, h, generator=generator, dtype=torch.float64) * scale).to(dtype)
        decoder_output = (torch.randn(b, h, generator=generator, dtype=torch.float64) * scale).to(dtype)
        inputs = {"encoder_outputs": encoder_outputs, "decoder_output": decoder_output}
        save_case(f"dot-{case}", inputs, dot_reference(encoder_outputs, decoder_output))


# Random shapes for the seq2seq modules of lessons 2 and 3: (B, S, H, dtype), B = 1 and S = 1 included.
SEQ2SEQ_SHAPES = {
    "batch4": (4, 7, 16, torch.float32),
    "b1": (1, 5, 8, torch.float32),
    "s1": (3, 1, 4, torch.float32),
    "b1-s1": (1, 1, 1, torch.float32),
    "float64": (2, 3, 5, torch.float64),
}


def luong_reference(encoder_outputs, decoder_output, W):
    """Luong's general score as the seed's nn.Linear LuAttention computes it (lesson 2)."""
    projected = F.linear(encoder_outputs, W)  # W h̄_s: nn.Linear(H, H, bias=False) holding W
    scores = torch.bmm(projected, decoder_output.unsqueeze(2)).squeeze(2)
    weights = F.softmax(scores, dim=1)
    context = torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1)
    return {"scores": scores, "weights": weights, "context": context}


def luong_cases():
    generator = torch.Generator().manual_seed(2025)
    for case, (b, s, h, dtype) in SEQ2SEQ_SHAPES.items():
        randn = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64)
        inputs = {
            "encoder_outputs": randn(b, s, h).to(dtype),
            "decoder_output": randn(b, h).to(dtype),
            "W": (randn(h, h) / h ** 0.5).to(dtype),
        }
        save_case(f"luong-{case}", inputs, luong_reference(**inputs))


def bahdanau_reference(encoder_outputs, decoder_output, W1, b1, w2, b2):
    """Additive attention as the seed's nn.Linear BaAttention computes it (lesson 3)."""
    seq_len = encoder_outputs.shape[1]
    h = torch.cat((encoder_outputs, decoder_output.unsqueeze(1).expand(-1, seq_len, -1)), dim=2)
    scores = F.linear(torch.tanh(F.linear(h, W1, b1)), w2, b2).squeeze(2)
    weights = F.softmax(scores, dim=1)
    context = torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1)
    return {"scores": scores, "weights": weights, "context": context}


def bahdanau_cases():
    generator = torch.Generator().manual_seed(2026)
    for case, (b, s, h, dtype) in SEQ2SEQ_SHAPES.items():
        randn = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64)
        scale = 1 / (2 * h) ** 0.5  # the size of nn.Linear(2H, ...)'s initial weights
        inputs = {
            "encoder_outputs": randn(b, s, h).to(dtype),
            "decoder_output": randn(b, h).to(dtype),
            "W1": (randn(2 * h, 2 * h) * scale).to(dtype),
            "b1": (randn(2 * h) * scale).to(dtype),
            "w2": (randn(1, 2 * h) * scale).to(dtype),
            "b2": (randn(1) * scale).to(dtype),
        }
        save_case(f"bahdanau-{case}", inputs, bahdanau_reference(**inputs))


def save_options(name, out=OUT, **options):
    """MODULE-CASE/options.txt: one `name=value` per line (heads=2, causal=1,
    causal_alignment=bottom-right), read by the tests. Flags are written 0/1, names as they are."""
    text = "".join(f"{key}={value if isinstance(value, str) else int(value)}\n" for key, value in options.items())
    (out / name / "options.txt").write_text(text)


def future_keys(T, S, alignment):
    """The keys a causal mask hides, (T, S) booleans. top-left: torch.triu(ones(T, S), 1), query t
    sees keys 0 … t (PyTorch's is_causal). bottom-right: torch.triu(ones(T, S), S − T + 1), query t
    sees keys 0 … t + S − T, the last query every key (KV-cache decoding)."""
    diagonal = 1 if alignment == "top-left" else S - T + 1
    return torch.triu(torch.ones(T, S, dtype=torch.bool), diagonal=diagonal)


def self_attention_reference(Q, K, V, causal, alignment="top-left"):
    """softmax(Q Kᵀ / √d_k + mask) V in plain torch (lesson 4). A query whose keys are all hidden
    (bottom-right with T > S) is NaN in torch; the library's policy gives it weights of 0."""
    scores = torch.bmm(Q, K.transpose(1, 2)) / Q.shape[-1] ** 0.5
    if causal:
        T, S = scores.shape[1:]
        scores = scores.masked_fill(future_keys(T, S, alignment), float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return {"weights": weights, "output": torch.bmm(weights, V)}


def self_attention_cases():
    generator = torch.Generator().manual_seed(2027)
    # case: (B, T, S, d_k, d_v, causal, dtype)
    shapes = {
        "batch3": (3, 5, 5, 8, 6, False, torch.float32),
        "causal": (2, 6, 6, 4, 4, True, torch.float32),
        "cross": (2, 3, 7, 5, 2, False, torch.float32),
        "cross-causal-t-lt-s": (2, 3, 6, 4, 3, True, torch.float32),
        "cross-causal-t-gt-s": (2, 5, 3, 4, 3, True, torch.float32),
        "b1-t1": (1, 1, 1, 3, 2, True, torch.float32),
        "t1-cross": (2, 1, 4, 3, 3, True, torch.float32),
        "float64": (2, 4, 4, 6, 5, True, torch.float64),
        # bottom-right alignment: two new queries over four cached keys and themselves (KV cache);
        # more queries than keys (the first ones see nothing); T = S, where it is the usual triangle.
        "kv-cache-bottom-right": (2, 2, 6, 4, 3, "bottom-right", torch.float32),
        "bottom-right-t-gt-s": (2, 5, 3, 4, 3, "bottom-right", torch.float32),
        "bottom-right-t-eq-s": (1, 4, 4, 3, 2, "bottom-right", torch.float32),
    }
    for case, (b, t, s, dk, dv, causal, dtype) in shapes.items():
        randn = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)
        inputs = {"Q": randn(b, t, dk), "K": randn(b, s, dk), "V": randn(b, s, dv)}
        name = f"self-attention-{case}"
        alignment = causal if isinstance(causal, str) else "top-left"
        save_case(name, inputs, self_attention_reference(causal=bool(causal), alignment=alignment, **inputs))
        if isinstance(causal, str):
            save_options(name, causal=True, causal_alignment=alignment)
        else:
            save_options(name, causal=causal)


def mha_reference(inputs, heads, causal, alignment="top-left"):
    """torch.nn.MultiheadAttention(batch_first=True) with the same weights, per-head weights.
    Without w_o its out_proj is the identity with zero bias, so output = the concatenated heads.
    A query whose keys are all masked is NaN in PyTorch; the library's policy puts weights of 0
    there, so its output is b_o (0 without w_o): the expected files hold that policy."""
    query, key = inputs["query"], inputs["key"]
    D, T, S = query.shape[-1], query.shape[1], key.shape[1]
    mha = torch.nn.MultiheadAttention(D, heads, batch_first=True, dtype=query.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([inputs["w_q"], inputs["w_k"], inputs["w_v"]]))
        mha.in_proj_bias.copy_(torch.cat([inputs["b_q"], inputs["b_k"], inputs["b_v"]]))
        mha.out_proj.weight.copy_(inputs.get("w_o", torch.eye(D, dtype=query.dtype)))
        mha.out_proj.bias.copy_(inputs.get("b_o", torch.zeros(D, dtype=query.dtype)))
    mha.eval()
    kwargs = {"need_weights": True, "average_attn_weights": False}
    visible = torch.ones(query.shape[0], T, S, dtype=torch.bool)
    if "attention_mask" in inputs:
        kwargs["key_padding_mask"] = inputs["attention_mask"] == 0   # PyTorch: True = ignore
        visible &= (inputs["attention_mask"] == 1)[:, None, :]
    if causal:
        future = future_keys(T, S, alignment)
        kwargs["attn_mask"] = future
        visible &= ~future
    with torch.no_grad():
        output, weights = mha(query, key, inputs["value"], **kwargs)
    no_key = ~visible.any(dim=-1)                                       # (B, T)
    assert not torch.isnan(output[~no_key]).any() and torch.isnan(output[no_key]).all()
    output[no_key] = inputs.get("b_o", torch.zeros(D, dtype=query.dtype))
    return {"output": output, "weights": torch.nan_to_num(weights, nan=0.0)}


def mha_cases():
    generator = torch.Generator().manual_seed(2028)
    # case: (B, T, S, D, heads, with_w_o, mask lengths or None, left padding, causal, dtype)
    shapes = {
        "self": (2, 5, 5, 8, 2, True, None, False, False, torch.float32),
        "self-no-wo": (2, 5, 5, 8, 4, False, None, False, False, torch.float32),
        "cross": (3, 4, 6, 6, 3, True, None, False, False, torch.float32),
        "cross-no-wo": (2, 2, 5, 4, 1, False, None, False, False, torch.float32),
        "padding": (3, 5, 5, 8, 2, True, [5, 3, 1], False, False, torch.float32),
        "padding-cross-no-wo": (2, 3, 4, 6, 2, False, [4, 2], False, False, torch.float32),
        "causal": (2, 6, 6, 8, 2, True, None, False, True, torch.float32),
        "causal-cross": (2, 4, 6, 8, 4, True, None, False, True, torch.float32),
        "causal-left-padding": (2, 4, 4, 4, 2, True, [4, 2], True, True, torch.float32),
        "empty-sentence-no-wo": (2, 3, 3, 4, 2, False, [3, 0], False, False, torch.float32),
        "b1-t1": (1, 1, 1, 4, 2, True, None, False, False, torch.float32),
        "b1-t1-cross-padding": (1, 1, 3, 4, 4, True, [2], False, False, torch.float32),
        "float64": (2, 3, 3, 6, 3, True, [3, 2], False, True, torch.float64),
        # bottom-right: three new tokens over five cached ones (KV-cache decoding), with padding.
        "kv-cache-bottom-right": (2, 3, 8, 8, 2, True, [8, 6], False, "bottom-right", torch.float32),
    }
    for case, (b, t, s, d, heads, with_w_o, lengths, left, causal, dtype) in shapes.items():
        randn = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)
        inputs = {"query": randn(b, t, d), "key": randn(b, s, d), "value": randn(b, s, d)}
        for name in ("q", "k", "v"):
            inputs[f"w_{name}"] = randn(d, d) / d ** 0.5
            inputs[f"b_{name}"] = randn(d) * 0.1
        if with_w_o:
            inputs["w_o"] = randn(d, d) / d ** 0.5
            inputs["b_o"] = randn(d) * 0.1
        if lengths is not None:
            positions = torch.arange(s)[None, :]
            length = torch.tensor(lengths)[:, None]
            keep = positions >= s - length if left else positions < length
            inputs["attention_mask"] = keep.to(dtype)
        name = f"mha-{case}"
        alignment = causal if isinstance(causal, str) else "top-left"
        save_case(name, inputs, mha_reference(inputs, heads, bool(causal), alignment))
        # Without w_o the block has no output projection, and says so (seed 000).
        explicit = {} if with_w_o else {"no_output_projection": True}
        if isinstance(causal, str):
            save_options(name, heads=heads, causal=True, causal_alignment=alignment, **explicit)
        else:
            save_options(name, heads=heads, causal=causal, **explicit)


ENCODER_WEIGHT_NAMES = ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o",
                        "norm1_weight", "norm1_bias", "norm2_weight", "norm2_bias",
                        "linear1_weight", "linear1_bias", "linear2_weight", "linear2_bias")


def load_encoder_layer(layer, weights):
    """Copies the attn names (docs/bring-your-own-weights.md) into an nn.TransformerEncoderLayer."""
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(torch.cat([weights["w_q"], weights["w_k"], weights["w_v"]]))
        layer.self_attn.in_proj_bias.copy_(torch.cat([weights["b_q"], weights["b_k"], weights["b_v"]]))
        layer.self_attn.out_proj.weight.copy_(weights["w_o"])
        layer.self_attn.out_proj.bias.copy_(weights["b_o"])
        for name in ENCODER_WEIGHT_NAMES[8:]:
            module, parameter = name.rsplit("_", 1)
            getattr(getattr(layer, module), parameter).copy_(weights[name])


def encoder_layer_reference(inputs, heads, norm_first, activation, eps):
    """torch.nn.TransformerEncoderLayer(dropout=0.0, batch_first=True). It runs in training mode
    (with dropout 0 that changes nothing) so that PyTorch takes its reference path rather than the
    fused inference kernel."""
    x = inputs["x"]
    layer = torch.nn.TransformerEncoderLayer(x.shape[-1], heads, inputs["linear1_weight"].shape[0], dropout=0.0,
                                             activation=activation, layer_norm_eps=eps, batch_first=True,
                                             norm_first=norm_first, dtype=x.dtype)
    load_encoder_layer(layer, inputs)
    kwargs = {}
    if "attention_mask" in inputs:
        kwargs["src_key_padding_mask"] = inputs["attention_mask"] == 0   # PyTorch: True = ignore
    with torch.no_grad():
        return {"output": layer(x, **kwargs)}


def encoder_layer_cases():
    generator = torch.Generator().manual_seed(2029)
    # case: (B, T, D, heads, F, norm_first, activation, eps, mask lengths or None, dtype)
    shapes = {
        "post-relu": (2, 5, 8, 2, 16, False, "relu", 1e-5, None, torch.float32),
        "pre-relu": (2, 5, 8, 2, 16, True, "relu", 1e-5, None, torch.float32),
        "post-gelu": (3, 4, 6, 3, 12, False, "gelu", 1e-5, None, torch.float32),
        "pre-gelu": (3, 4, 6, 3, 12, True, "gelu", 1e-5, None, torch.float32),
        "b1": (1, 6, 8, 4, 8, False, "relu", 1e-5, None, torch.float32),
        "b1-t1": (1, 1, 4, 2, 8, True, "gelu", 1e-5, None, torch.float32),
        "padding": (2, 5, 8, 2, 16, False, "relu", 1e-5, [5, 2], torch.float32),
        "eps": (2, 3, 4, 1, 4, False, "relu", 1e-2, None, torch.float32),
        "float64": (2, 4, 6, 2, 10, True, "gelu", 1e-6, [4, 3], torch.float64),
    }
    for case, (b, t, d, heads, f, norm_first, activation, eps, lengths, dtype) in shapes.items():
        randn = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)
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
            inputs["attention_mask"] = (torch.arange(t)[None, :] < torch.tensor(lengths)[:, None]).to(dtype)
        name = f"encoder-layer-{case}"
        save_case(name, inputs, encoder_layer_reference(inputs, heads, norm_first, activation, eps))
        (OUT / name / "options.txt").write_text(
            f"heads={heads}\nnorm_first={int(norm_first)}\nactivation={activation}\neps={eps!r}\n")


if __name__ == "__main__":
    dot_cases()
    luong_cases()
    bahdanau_cases()
    self_attention_cases()
    mha_cases()
    encoder_layer_cases()
    print(f"wrote {sorted(p.name for p in OUT.iterdir())}")
