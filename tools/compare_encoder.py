#!/usr/bin/python3
"""Check `attn compute encoder` against a real torch.nn.TransformerEncoder: bring your own model.

Builds a seeded nn.TransformerEncoder (N layers, post-norm or --norm-first, a final LayerNorm),
exports its state_dict the two-line way (numpy.savez, keys with dots: docs/bring-your-own-weights.md),
saves the input and PyTorch's masks under PyTorch's names — a causal `src_mask` (bool, True = ignore,
or with --float-mask the additive 0 / -inf form) and a `src_key_padding_mask` (bool, True = ignore) —
runs `attn compute encoder --weights model.npz`, and prints the largest difference from PyTorch's
own output at the positions PyTorch computes (torch 1.13 gives NaN where a query sees no key; the
seeded padding here leaves every query at least one key). Exit 0 within the tolerance, 1 otherwise.

    /usr/bin/python3 tools/compare_encoder.py                      # 2 layers, post-norm, causal + padding
    /usr/bin/python3 tools/compare_encoder.py --norm-first --seq-first --float-mask
    /usr/bin/python3 tools/compare_encoder.py --activation gelu-tanh --eps 1e-6 --norm-eps 1e-3
    /usr/bin/python3 tools/compare_encoder.py --config --norm-first --activation gelu-tanh --eps 1e-6

--config exports the settings with the weights (the archive's attn_config member) and runs attn
without --heads, --norm-first, --activation, --eps and --norm-eps.
"""
import json
import argparse
import functools
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attn", default=str(ROOT / "build" / "attn"), help="the attn program (default: build/attn)")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=3)
    parser.add_argument("--seq", type=int, default=6)
    parser.add_argument("--d-model", type=int, default=16)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--d-ff", type=int, default=32)
    parser.add_argument("--norm-first", action="store_true")
    parser.add_argument("--activation", choices=("relu", "gelu", "gelu-tanh"), default="relu",
                        help="gelu-tanh: F.gelu(x, approximate='tanh') as a callable activation")
    parser.add_argument("--eps", type=float, default=1e-5, help="the layers' layer_norm_eps")
    parser.add_argument("--norm-eps", type=float, default=None, help="the final LayerNorm's eps (default: --eps)")
    parser.add_argument("--seq-first", action="store_true", help="batch_first=False: x is (T, B, D)")
    parser.add_argument("--float-mask", action="store_true", help="the causal mask as additive 0 / -inf floats")
    parser.add_argument("--compressed", action="store_true", help="numpy.savez_compressed instead of numpy.savez")
    parser.add_argument("--precision", choices=("float32", "float64"), default=None,
                        help="attn's --precision: float32 (the fast path, attn's default for float32 inputs) or "
                             "float64 (the lesson path)")
    parser.add_argument("--config", action="store_true",
                        help="export the settings as attn_config and give attn none of them as flags")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=1e-5, help="largest acceptable |attn − PyTorch|")
    arguments = parser.parse_args()

    torch.manual_seed(arguments.seed)
    B, T, D = arguments.batch, arguments.seq, arguments.d_model
    batch_first = not arguments.seq_first
    activation = (functools.partial(torch.nn.functional.gelu, approximate="tanh")
                  if arguments.activation == "gelu-tanh" else arguments.activation)
    norm_eps = arguments.eps if arguments.norm_eps is None else arguments.norm_eps
    layer = torch.nn.TransformerEncoderLayer(D, arguments.heads, arguments.d_ff, dropout=0.0, batch_first=batch_first,
                                             norm_first=arguments.norm_first, activation=activation,
                                             layer_norm_eps=arguments.eps)
    encoder = torch.nn.TransformerEncoder(layer, arguments.layers, norm=torch.nn.LayerNorm(D, eps=norm_eps),
                                          enable_nested_tensor=False).eval()
    with torch.no_grad():  # every layer its own weights, and a final norm that is not the identity
        for parameter in encoder.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    x = torch.randn(B, T, D) if batch_first else torch.randn(T, B, D)
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)              # True = ignore the future
    mask = torch.zeros(T, T).masked_fill(causal, float("-inf")) if arguments.float_mask else causal
    padding = torch.zeros(B, T, dtype=torch.bool)                            # True = ignore this key
    for b in range(B):
        padding[b, T - b:] = True                                            # sequence b has b padded keys

    with torch.no_grad():
        expected = encoder(x, mask=mask, src_key_padding_mask=padding)

    with tempfile.TemporaryDirectory() as scratch:
        folder, results = pathlib.Path(scratch) / "in", pathlib.Path(scratch) / "out"
        folder.mkdir()
        state = {name: tensor.detach().numpy() for name, tensor in encoder.state_dict().items()}
        settings = {"heads": arguments.heads, "norm_first": arguments.norm_first, "activation": arguments.activation,
                    "eps": arguments.eps, "norm_eps": norm_eps}
        if arguments.config:  # the export of docs/bring-your-own-weights.md
            state["attn_config"] = np.frombuffer(json.dumps(settings).encode(), np.uint8)
        (np.savez_compressed if arguments.compressed else np.savez)(pathlib.Path(scratch) / "model.npz", **state)
        np.save(folder / "x.npy", x.numpy())
        np.save(folder / "src_mask.npy", mask.numpy())
        np.save(folder / "src_key_padding_mask.npy", padding.numpy())
        command = [arguments.attn, "compute", "encoder", "--in", str(folder), "--out", str(results),
                   "--weights", str(pathlib.Path(scratch) / "model.npz")]
        if not arguments.config:
            command += ["--heads", str(arguments.heads), "--activation", arguments.activation,
                        "--eps", repr(arguments.eps), "--norm-eps", repr(norm_eps)]
            if arguments.norm_first:
                command.append("--norm-first")
        if arguments.seq_first:
            command.append("--seq-first")
        if arguments.precision:
            command += ["--precision", arguments.precision]
        finished = subprocess.run(command, capture_output=True, text=True)
        if finished.returncode != 0:
            print(finished.stdout + finished.stderr, file=sys.stderr)
            print(f"attn exited with {finished.returncode}", file=sys.stderr)
            return 2
        got = torch.from_numpy(np.load(results / "output.npy"))

    difference = (got - expected).abs().max().item()
    print(f"TransformerEncoder({arguments.layers} × TransformerEncoderLayer(d_model={D}, nhead={arguments.heads}, "
          f"dim_feedforward={arguments.d_ff}, norm_first={arguments.norm_first}, activation={arguments.activation!r}, "
          f"layer_norm_eps={arguments.eps:g}, batch_first={batch_first}), norm=LayerNorm(eps={norm_eps:g})) on x {tuple(x.shape)}, causal "
          f"{'float' if arguments.float_mask else 'bool'} mask and src_key_padding_mask, via numpy."
          f"{'savez_compressed' if arguments.compressed else 'savez'}"
          f"{', settings from its attn_config alone' if arguments.config else ''}")
    print(finished.stdout.strip().splitlines()[-1])  # the path attn computed on
    print(f"largest |attn − PyTorch| = {difference:.3e} (tolerance {arguments.tolerance:g})")
    return 0 if difference <= arguments.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
