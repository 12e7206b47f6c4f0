#!/usr/bin/python3
"""Regenerate tests/data/interop/: PyTorch models brought as PyTorch saves them, for `attn compute`.

Each case is a folder tests/data/interop/CASE/ with in/<name>.npy (inputs under PyTorch's names:
key_padding_mask, attn_mask, src_key_padding_mask, src_mask, packed in_proj_weight …), optionally
model.npz (a state_dict written by numpy.savez or numpy.savez_compressed, keys with dots),
options.txt (the command-line options, one per line) and expected/output.npy (what PyTorch 1.13
computes in eval mode). The C++ suite runs `attn compute` on them without needing PyTorch.
Also writes hostile archives under tests/data/interop/npz/. Seeded: running it twice writes the
same files.

    /usr/bin/python3 tools/make_interop_fixtures.py
"""
import functools
import io
import pathlib
import shutil
import struct
import zipfile

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "interop"


def save_case(name, module, options, inputs, expected, state=None, compressed=False):
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in").mkdir(parents=True)
    (folder / "expected").mkdir()
    for key, value in inputs.items():
        np.save(folder / "in" / f"{key}.npy", value.numpy() if torch.is_tensor(value) else value)
    np.save(folder / "expected" / "output.npy", expected.detach().numpy())
    if state is not None:
        arrays = {k: v.detach().numpy() for k, v in state.items()}
        (np.savez_compressed if compressed else np.savez)(folder / "model.npz", **arrays)
    (folder / "options.txt").write_text("\n".join([module] + options) + "\n")


def seeded_mha(D, h, batch_first=True):
    mha = torch.nn.MultiheadAttention(D, h, batch_first=batch_first).eval()
    with torch.no_grad():
        for p in mha.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return mha


def mha_cases():
    B, T, S, D, h = 2, 3, 4, 8, 2
    # Packed weights as files, a bool key_padding_mask (True = ignore).
    mha = seeded_mha(D, h)
    q, kv = torch.randn(B, T, D), torch.randn(B, S, D)
    kpm = torch.tensor([[False, False, True, True], [False, False, False, True]])
    with torch.no_grad():
        out, _ = mha(q, kv, kv, key_padding_mask=kpm)
    sd = mha.state_dict()
    save_case("mha-packed-key-padding-mask", "mha", ["--heads", "2"],
              {"query": q, "key": kv, "value": kv, "in_proj_weight": sd["in_proj_weight"],
               "in_proj_bias": sd["in_proj_bias"], "w_o": sd["out_proj.weight"], "b_o": sd["out_proj.bias"],
               "key_padding_mask": kpm}, out)
    # A (B·h, T, S) bool attn_mask, weights from model.npz.
    mha = seeded_mha(D, h)
    mask = torch.rand(B * h, T, S) > 0.6
    mask[:, :, 0] = False  # every query keeps a key: torch 1.13 gives NaN otherwise
    with torch.no_grad():
        out, _ = mha(q, kv, kv, attn_mask=mask)
    save_case("mha-attn-mask-bool-3d", "mha", ["--heads", "2"], {"query": q, "key": kv, "value": kv, "attn_mask": mask},
              out, state=mha.state_dict())
    # An additive float (T, S) attn_mask (0, -inf and a finite bias) with a key_padding_mask saved as int64.
    mha = seeded_mha(D, h)
    float_mask = torch.tensor([[0.0, -0.5, float("-inf"), 0.25], [0.0, 0.0, -1.0, float("-inf")], [0.5, 0.0, 0.0, 0.0]])
    kpm = torch.tensor([[False, False, False, True], [False, True, False, False]])
    with torch.no_grad():
        out, _ = mha(q, kv, kv, attn_mask=float_mask, key_padding_mask=kpm)
    save_case("mha-attn-mask-float-int-padding", "mha", ["--heads", "2"],
              {"query": q, "key": kv, "value": kv, "attn_mask": float_mask, "key_padding_mask": kpm.to(torch.int64)},
              out, state=mha.state_dict())
    # batch_first=False: (T, B, D) in and out.
    mha = seeded_mha(D, h, batch_first=False)
    q_sf, kv_sf = torch.randn(T, B, D), torch.randn(S, B, D)
    with torch.no_grad():
        out, _ = mha(q_sf, kv_sf, kv_sf)
    save_case("mha-seq-first", "mha", ["--heads", "2", "--seq-first"], {"query": q_sf, "key": kv_sf, "value": kv_sf},
              out, state=mha.state_dict(), compressed=True)


def seeded_encoder(D, h, F, layers, norm_first, batch_first=True):
    layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, batch_first=batch_first, norm_first=norm_first)
    encoder = torch.nn.TransformerEncoder(layer, layers, norm=torch.nn.LayerNorm(D), enable_nested_tensor=False).eval()
    with torch.no_grad():
        for p in encoder.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return encoder


def encoder_cases():
    B, T, D, h, F = 2, 4, 8, 2, 16
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    padding = torch.tensor([[False, False, False, False], [False, False, True, True]])
    for norm_first, name in ((False, "encoder-post-norm"), (True, "encoder-pre-norm")):
        encoder = seeded_encoder(D, h, F, 2, norm_first)
        x = torch.randn(B, T, D)
        with torch.no_grad():
            out = encoder(x, mask=causal, src_key_padding_mask=padding)
        save_case(name, "encoder", ["--heads", "2"] + (["--norm-first"] if norm_first else []),
                  {"x": x, "src_mask": causal, "src_key_padding_mask": padding}, out, state=encoder.state_dict(),
                  compressed=norm_first)
    # Sequence-first with an additive float causal mask.
    encoder = seeded_encoder(D, h, F, 2, False, batch_first=False)
    x = torch.randn(T, B, D)
    float_causal = torch.zeros(T, T).masked_fill(causal, float("-inf"))
    with torch.no_grad():
        out = encoder(x, mask=float_causal)
    save_case("encoder-seq-first-float-mask", "encoder", ["--heads", "2", "--seq-first"], {"x": x, "src_mask": float_causal},
              out, state=encoder.state_dict())
    # One layer, its state_dict's names as files (self_attn.in_proj_weight …), a causal src_mask.
    layer = seeded_encoder(D, h, F, 1, False).layers[0]
    x = torch.randn(B, T, D)
    with torch.no_grad():
        out = layer(x, src_mask=causal)
    inputs = {"x": x, "src_mask": causal}
    inputs.update({k: v for k, v in layer.state_dict().items()})
    save_case("encoder-layer-state-dict-names", "encoder-layer", ["--heads", "2"], inputs, out)


def largest_difference(a, b):
    return (a - b).abs().max().item()


def setting_cases():
    """The PyTorch settings a state_dict does not show, each given to attn explicitly; the script
    checks that leaving the setting out would change the output by far more than the tests'
    tolerance, so each test can fail."""
    B, T, S, D, h, F = 2, 4, 5, 8, 2, 16
    # nn.MultiheadAttention(bias=False): no in_proj_bias, no out_proj.bias.
    mha = torch.nn.MultiheadAttention(D, h, bias=False, batch_first=True).eval()
    q, kv = torch.randn(B, T, D), torch.randn(B, S, D)
    with torch.no_grad():
        out, _ = mha(q, kv, kv)
    assert set(mha.state_dict()) == {"in_proj_weight", "out_proj.weight"}
    save_case("mha-bias-false", "mha", ["--heads", "2"], {"query": q, "key": kv, "value": kv}, out, state=mha.state_dict())
    # A final nn.LayerNorm whose eps is not the layers' layer_norm_eps: --norm-eps.
    layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, batch_first=True, layer_norm_eps=1e-6)
    encoder = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(D, eps=0.01), enable_nested_tensor=False).eval()
    x = torch.randn(B, T, D)
    with torch.no_grad():
        out = encoder(x)
        same_eps = torch.nn.functional.layer_norm(encoder.layers[1](encoder.layers[0](x)), (D,), encoder.norm.weight,
                                                  encoder.norm.bias, 1e-6)
    assert largest_difference(out, same_eps) > 1e-3
    save_case("encoder-norm-eps", "encoder", ["--heads", "2", "--eps", "1e-06", "--norm-eps", "0.01"], {"x": x}, out,
              state=encoder.state_dict())
    # tanh-approximate GELU, as a callable activation (torch 1.13 names only relu and gelu).
    tanh_gelu = functools.partial(torch.nn.functional.gelu, approximate="tanh")
    layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, batch_first=True, activation=tanh_gelu).eval()
    with torch.no_grad():
        for p in layer.parameters():
            p.mul_(3.0)  # wide pre-activations, where the two GELUs differ most
        out = layer(x)
        erf_layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, batch_first=True, activation="gelu").eval()
        erf_layer.load_state_dict(layer.state_dict())
        assert largest_difference(out, erf_layer(x)) > 1e-4
    save_case("encoder-layer-gelu-tanh", "encoder-layer", ["--heads", "2", "--activation", "gelu-tanh"], {"x": x}, out,
              state=layer.state_dict())


def nested_tensor_case():
    """nn.TransformerEncoder's default enable_nested_tensor=True, in eval mode under no_grad with a
    src_key_padding_mask and no mask (post-norm layers): tests/data/interop/nested/ holds the
    inputs, the state_dict, PyTorch's output with nested tensors (expected/output.npy) and without
    (expected/output_not_nested.npy). No options.txt: the test compares row by row."""
    B, T, D, h, F = 2, 4, 8, 2, 16
    layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, batch_first=True)
    nested = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(D)).eval()
    with torch.no_grad():
        for p in nested.parameters():
            p.add_(0.1 * torch.randn_like(p))
    plain = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(D), enable_nested_tensor=False).eval()
    plain.load_state_dict(nested.state_dict())
    x = torch.randn(B, T, D)
    padding = torch.tensor([[False, False, False, False], [False, False, True, True]])
    with torch.no_grad():
        out_nested = nested(x, src_key_padding_mask=padding)
        out_plain = plain(x, src_key_padding_mask=padding)
    # The padded rows left the layers as zeros; the final norm made them norm.bias.
    assert torch.equal(out_nested[1, 2:], nested.norm.bias.detach().expand(2, D))
    assert largest_difference(out_nested[~padding], out_plain[~padding]) < 1e-6
    folder = OUT / "nested"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in").mkdir(parents=True)
    (folder / "expected").mkdir()
    np.save(folder / "in" / "x.npy", x.numpy())
    np.save(folder / "in" / "src_key_padding_mask.npy", padding.numpy())
    np.savez(folder / "model.npz", **{k: v.detach().numpy() for k, v in nested.state_dict().items()})
    np.save(folder / "expected" / "output.npy", out_nested.numpy())
    np.save(folder / "expected" / "output_not_nested.npy", out_plain.numpy())


def hostile_archives():
    folder = OUT / "npz"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    good = io.BytesIO()
    np.savez(good, x=np.arange(6, dtype=np.float32).reshape(2, 3))
    (folder / "good.npz").write_bytes(good.getvalue())
    compressed = io.BytesIO()
    np.savez_compressed(compressed, x=np.arange(6, dtype=np.float32).reshape(2, 3))
    (folder / "good-compressed.npz").write_bytes(compressed.getvalue())
    data = bytearray(good.getvalue())
    data[-200] ^= 0xFF  # a byte of the member's values: the CRC-32 no longer matches
    (folder / "corrupt-crc.npz").write_bytes(bytes(data))
    (folder / "truncated.npz").write_bytes(good.getvalue()[: len(good.getvalue()) // 2])
    # A bomb: a header for 4 floats followed by 32 MiB of zeros, deflated to a few KiB.
    header = io.BytesIO()
    np.save(header, np.zeros(4, dtype=np.float32))
    member = header.getvalue() + bytes(32 << 20)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("x.npy", member)
    (folder / "bomb.npz").write_bytes(bomb.getvalue())
    # The same bomb with its directory lying: it claims the 144 bytes the header declares.
    lying = bytearray(bomb.getvalue())
    declared = len(header.getvalue())
    central = lying.rfind(b"PK\x01\x02")
    lying[central + 24:central + 28] = struct.pack("<I", declared)
    lying[22:26] = struct.pack("<I", declared)
    (folder / "bomb-lying-size.npz").write_bytes(bytes(lying))
    (folder / "not-a-zip.npz").write_bytes(b"this is not an archive" * 4)


if __name__ == "__main__":
    torch.manual_seed(15)
    mha_cases()
    encoder_cases()
    setting_cases()
    nested_tensor_case()
    hostile_archives()
    print(f"wrote {OUT.relative_to(ROOT)}")
