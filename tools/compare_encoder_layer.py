#!/usr/bin/python3
"""Check attn's encoder layer against a real torch.nn.TransformerEncoderLayer: bring your own weights.

Builds (or loads) a TransformerEncoderLayer, exports its weights and an input to .npy files under
the names `attn compute encoder-layer` reads (docs/bring-your-own-weights.md), runs attn on them,
and prints the largest difference from PyTorch's own output. Exit 0 when it is within the
tolerance, 1 otherwise.

    /usr/bin/python3 tools/compare_encoder_layer.py                       # a random layer
    /usr/bin/python3 tools/compare_encoder_layer.py --d-model 64 --heads 4 --d-ff 256 --norm-first --activation gelu
    /usr/bin/python3 tools/compare_encoder_layer.py --state-dict my_layer.pt --heads 8 --input x.npy

A state dict is what `torch.save(layer.state_dict(), "my_layer.pt")` writes for a
TransformerEncoderLayer; --input is a (B, T, D) float32 .npy file.
"""
import argparse
import functools
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent


def export(layer, folder):
    """The layer's parameters as attn's .npy inputs: in_proj split row-wise into q, k, v."""
    state = {name: tensor.detach().cpu().float().numpy() for name, tensor in layer.state_dict().items()}
    d_model = state["self_attn.out_proj.weight"].shape[0]
    for i, part in enumerate("qkv"):
        np.save(folder / f"w_{part}.npy", state["self_attn.in_proj_weight"][i * d_model:(i + 1) * d_model])
        np.save(folder / f"b_{part}.npy", state["self_attn.in_proj_bias"][i * d_model:(i + 1) * d_model])
    np.save(folder / "w_o.npy", state["self_attn.out_proj.weight"])
    np.save(folder / "b_o.npy", state["self_attn.out_proj.bias"])
    for name in ("norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
                 "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"):
        np.save(folder / (name.replace(".", "_") + ".npy"), state[name])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attn", default=str(ROOT / "build" / "attn"), help="the attn program (default: build/attn)")
    parser.add_argument("--state-dict", type=pathlib.Path, help="a TransformerEncoderLayer state dict saved with torch.save")
    parser.add_argument("--input", type=pathlib.Path, help="the input x, (B, T, D) .npy (default: seeded random)")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=7)
    parser.add_argument("--d-model", type=int, default=16)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--d-ff", type=int, default=32)
    parser.add_argument("--norm-first", action="store_true")
    parser.add_argument("--activation", choices=("relu", "gelu", "gelu-tanh"), default="relu",
                        help="gelu-tanh: F.gelu(x, approximate='tanh') as a callable activation")
    parser.add_argument("--eps", type=float, default=1e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=1e-4, help="largest acceptable |attn − PyTorch|")
    arguments = parser.parse_args()

    torch.manual_seed(arguments.seed)
    d_model, d_ff = arguments.d_model, arguments.d_ff
    state = None
    if arguments.state_dict:
        state = torch.load(arguments.state_dict, map_location="cpu")
        d_model, d_ff = state["linear1.weight"].shape[1], state["linear1.weight"].shape[0]
    activation = (functools.partial(torch.nn.functional.gelu, approximate="tanh")
                  if arguments.activation == "gelu-tanh" else arguments.activation)
    layer = torch.nn.TransformerEncoderLayer(d_model, arguments.heads, d_ff, dropout=0.0, batch_first=True,
                                             norm_first=arguments.norm_first, activation=activation,
                                             layer_norm_eps=arguments.eps)
    if state is not None:
        layer.load_state_dict(state)
    x = (torch.from_numpy(np.load(arguments.input)).float() if arguments.input
         else torch.randn(arguments.batch, arguments.seq, d_model))

    with tempfile.TemporaryDirectory() as scratch:
        folder, results = pathlib.Path(scratch) / "in", pathlib.Path(scratch) / "out"
        folder.mkdir()
        export(layer, folder)
        np.save(folder / "x.npy", x.numpy())
        command = [arguments.attn, "compute", "encoder-layer", "--in", str(folder), "--out", str(results),
                   "--heads", str(arguments.heads), "--activation", arguments.activation, "--eps", repr(arguments.eps)]
        if arguments.norm_first:
            command.append("--norm-first")
        finished = subprocess.run(command, capture_output=True, text=True)
        if finished.returncode != 0:
            print(finished.stdout + finished.stderr, file=sys.stderr)
            print(f"attn exited with {finished.returncode}", file=sys.stderr)
            return 2
        got = torch.from_numpy(np.load(results / "output.npy"))

    with torch.no_grad():
        expected = layer.eval()(x)
    difference = (got - expected).abs().max().item()
    print(f"TransformerEncoderLayer(d_model={d_model}, nhead={arguments.heads}, dim_feedforward={d_ff}, "
          f"norm_first={arguments.norm_first}, activation={arguments.activation!r}) on x {tuple(x.shape)}")
    print(f"largest |attn − PyTorch| = {difference:.3e} (tolerance {arguments.tolerance:g})")
    return 0 if difference <= arguments.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
