#!/usr/bin/python3
"""Check `attn compute decoder-layer|decoder|transformer` against PyTorch: bring your own decoder.

Builds a seeded nn.TransformerDecoderLayer, nn.TransformerDecoder (N layers and a final LayerNorm)
or nn.Transformer (N encoder and N decoder layers, both final norms), batch_first, dropout 0, eval
mode; exports its state_dict the two-line way (numpy.savez, keys with dots), with --config also
its settings as the archive's attn_config member; saves tgt, memory (or src) and PyTorch's masks
under PyTorch's names: the causal tgt_mask (generate_square_subsequent_mask: float 0 / -inf, or
with --bool-mask True = ignore) and every key padding mask (bool, True = ignore; padding at the
end of each sequence, every query keeps a key). Runs attn and prints the largest difference from
PyTorch's output. With --config, attn gets no settings as flags, and a contradicting flag must
be refused (exit 2): the forgotten-flag check. Exit 0 within the tolerance, 1 otherwise.

    /usr/bin/python3 tools/compare_decoder.py --module decoder-layer
    /usr/bin/python3 tools/compare_decoder.py --module decoder --norm-first --activation gelu --config
    /usr/bin/python3 tools/compare_decoder.py --module transformer --activation gelu-tanh --eps 1e-6 --config
"""
import argparse
import functools
import json
import pathlib
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
# nn.Transformer's encoder takes torch 1.13's nested-tensor path with a src_key_padding_mask and says so.
warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors")


def build_model(arguments):
    D, h, F, N = arguments.d_model, arguments.heads, arguments.d_ff, arguments.layers
    activation = (functools.partial(torch.nn.functional.gelu, approximate="tanh")
                  if arguments.activation == "gelu-tanh" else arguments.activation)
    settings = dict(dropout=0.0, batch_first=True, norm_first=arguments.norm_first, activation=activation,
                    layer_norm_eps=arguments.eps)
    if arguments.module == "transformer":
        model = torch.nn.Transformer(D, h, N, N, F, **settings)
    else:
        model = torch.nn.TransformerDecoderLayer(D, h, F, **settings)
        if arguments.module == "decoder":
            model = torch.nn.TransformerDecoder(model, N, norm=torch.nn.LayerNorm(D, eps=arguments.eps))
    with torch.no_grad():  # every layer its own weights, and final norms that are not the identity
        for parameter in model.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return model.eval()


def padding(batch, length):
    mask = torch.zeros(batch, length, dtype=torch.bool)  # True = ignore this key
    for b in range(batch):
        mask[b, length - min(b, length - 1):] = True     # sequence b has b padded keys, at least one kept
    return mask


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attn", default=str(ROOT / "build" / "attn"), help="the attn program (default: build/attn)")
    parser.add_argument("--module", choices=("decoder-layer", "decoder", "transformer"), default="decoder")
    parser.add_argument("--layers", type=int, default=2, help="decoder (and transformer's encoder) layers")
    parser.add_argument("--batch", type=int, default=3)
    parser.add_argument("--tgt-len", type=int, default=5)
    parser.add_argument("--src-len", type=int, default=6)
    parser.add_argument("--d-model", type=int, default=16)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--d-ff", type=int, default=32)
    parser.add_argument("--norm-first", action="store_true")
    parser.add_argument("--activation", choices=("relu", "gelu", "gelu-tanh"), default="relu")
    parser.add_argument("--eps", type=float, default=1e-5, help="layer_norm_eps (the final norms' too)")
    parser.add_argument("--bool-mask", action="store_true", help="the causal tgt_mask as bool, True = ignore")
    parser.add_argument("--config", action="store_true",
                        help="export the settings as attn_config and give attn none of them as flags")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=1e-5, help="largest acceptable |attn − PyTorch|")
    arguments = parser.parse_args()

    torch.manual_seed(arguments.seed)
    B, T, S, D = arguments.batch, arguments.tgt_len, arguments.src_len, arguments.d_model
    model = build_model(arguments)
    tgt, memory = torch.randn(B, T, D), torch.randn(B, S, D)
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    masks = {"tgt_mask": causal if arguments.bool_mask else torch.zeros(T, T).masked_fill(causal, float("-inf")),
             "tgt_key_padding_mask": padding(B, T), "memory_key_padding_mask": padding(B, S)}
    if arguments.module == "transformer":
        # The same source positions hidden in the encoder and from the decoder, as in a padded batch
        # (PyTorch's nested-tensor path then changes only the memory's padded rows, which no one reads).
        masks["src_key_padding_mask"] = masks["memory_key_padding_mask"]
    with torch.no_grad():
        expected = model(memory, tgt, **masks) if arguments.module == "transformer" else model(tgt, memory, **masks)

    settings = {"heads": arguments.heads, "norm_first": arguments.norm_first, "activation": arguments.activation,
                "eps": arguments.eps, "norm_eps": arguments.eps}
    with tempfile.TemporaryDirectory() as scratch:
        folder, results, archive = (pathlib.Path(scratch) / name for name in ("in", "out", "model.npz"))
        folder.mkdir()
        state = {name: tensor.detach().numpy() for name, tensor in model.state_dict().items()}
        if arguments.config:  # the export of docs/bring-your-own-weights.md
            state["attn_config"] = np.frombuffer(json.dumps(settings).encode(), np.uint8)
        np.savez(archive, **state)
        np.save(folder / "tgt.npy", tgt.numpy())
        np.save(folder / ("src.npy" if arguments.module == "transformer" else "memory.npy"), memory.numpy())
        for name, mask in masks.items():
            np.save(folder / f"{name}.npy", mask.numpy())
        command = [arguments.attn, "compute", arguments.module, "--in", str(folder), "--out", str(results),
                   "--weights", str(archive)]
        if not arguments.config:
            command += ["--heads", str(arguments.heads), "--activation", arguments.activation, "--eps", repr(arguments.eps)]
            command += ["--norm-first"] if arguments.norm_first else []
        finished = subprocess.run(command, capture_output=True, text=True)
        if finished.returncode != 0:
            print(finished.stdout + finished.stderr, file=sys.stderr)
            print(f"attn exited with {finished.returncode}", file=sys.stderr)
            return 2
        got = torch.from_numpy(np.load(results / "output.npy"))
        forgotten_flag_refused = True
        if arguments.config:  # a flag that contradicts the config must not run
            contradicted = [arguments.attn, "compute", arguments.module, "--in", str(folder), "--out",
                            str(results) + "-contradicted", "--weights", str(archive), "--heads", str(2 * arguments.heads)]
            contradiction = subprocess.run(contradicted, capture_output=True, text=True)
            forgotten_flag_refused = contradiction.returncode == 2 and "says heads" in contradiction.stderr
            print(f"--heads {2 * arguments.heads} against the config's {arguments.heads}: exit {contradiction.returncode}, "
                  f"{contradiction.stderr.strip()}")

    difference = (got - expected).abs().max().item()
    print(f"{type(model).__name__}(d_model={D}, nhead={arguments.heads}, dim_feedforward={arguments.d_ff}, "
          f"norm_first={arguments.norm_first}, activation={arguments.activation!r}, layer_norm_eps={arguments.eps:g}"
          f"{'' if arguments.module == 'decoder-layer' else f', {arguments.layers} layers'}) on tgt {tuple(tgt.shape)} and "
          f"{'src' if arguments.module == 'transformer' else 'memory'} {tuple(memory.shape)}, causal "
          f"{'bool' if arguments.bool_mask else 'float'} tgt_mask and every key padding mask"
          f"{', settings from attn_config alone' if arguments.config else ''}")
    print(f"largest |attn − PyTorch| = {difference:.3e} (tolerance {arguments.tolerance:g})")
    return 0 if difference <= arguments.tolerance and forgotten_flag_refused else 1


if __name__ == "__main__":
    sys.exit(main())
