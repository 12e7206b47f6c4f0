#!/usr/bin/python3
"""`attn train copy --save` round-trips through PyTorch: the checkpoint loads into nn.Transformer plus
two nn.Embedding tables and an nn.Linear, and gives attn's numbers.

It trains a small copy-task model with the real program (a few seconds), then:
  1. loads model.npz with load_copy_model below — the loader a student can copy: the sizes come
     from the shapes and the heads from the attn_config member;
  2. greedy-decodes in PyTorch the five sources attn printed, and requires attn's decodes;
  3. runs nn.Transformer on embedded sequences and `attn compute transformer --weights model.npz` on
     the same embedded inputs (tgt_mask causal), and requires the same output, and so the same
     logits through the generator, to 1e-9 (both in float64 from the same float32 weights);
  4. draws the checkpoint with `attn view --checkpoint model.npz --sequence "1 2 … 10"` and requires
     the page's cross-attention weights, every decoder layer's heads, to be nn.MultiheadAttention's
     (need_weights, per head) on PyTorch's own greedy decode, to 1e-6 (the page writes 7 digits).

    /usr/bin/python3 tools/check_copy_checkpoint.py --attn build/attn

Exit 0 when all hold, 1 otherwise. Needs Debian's python3-torch and python3-numpy.
"""
import argparse
import json
import math
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
from torch import nn


def load_copy_model(path):
    """model.npz from `attn train copy --save` as (transformer, src_embed, tgt_embed, generator)."""
    archive = np.load(path)
    config = json.loads(bytes(archive["attn_config"]).decode())
    V, D = archive["src_embed.weight"].shape
    F = archive["encoder.layers.0.linear1.weight"].shape[0]
    layers = len({k.split(".")[2] for k in archive.files if k.startswith("encoder.layers.")})
    transformer = nn.Transformer(D, config["heads"], layers, layers, F, dropout=0.0, batch_first=True,
                                 norm_first=config["norm_first"], layer_norm_eps=config["eps"])
    transformer.load_state_dict({k: torch.from_numpy(archive[k]) for k in transformer.state_dict()})
    src_embed, tgt_embed, generator = nn.Embedding(V, D), nn.Embedding(V, D), nn.Linear(D, V)
    src_embed.weight.data = torch.from_numpy(archive["src_embed.weight"])
    tgt_embed.weight.data = torch.from_numpy(archive["tgt_embed.weight"])
    generator.weight.data = torch.from_numpy(archive["generator.weight"])
    generator.bias.data = torch.from_numpy(archive["generator.bias"])
    return transformer, src_embed, tgt_embed, generator


def embed(table, ids):
    """The Annotated Transformer's embedding: table[ids] · √D plus the sinusoidal positions."""
    L, D = ids.shape[1], table.weight.shape[1]
    position = torch.arange(L, dtype=torch.float64).unsqueeze(1)
    frequency = torch.exp(torch.arange(0, D, 2, dtype=torch.float64) * (-math.log(10000.0) / D))
    pe = torch.zeros(L, D, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * frequency)
    pe[:, 1::2] = torch.cos(position * frequency)
    return table(ids) * math.sqrt(D) + pe


def causal_mask(T):
    return torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), 1)


def greedy_decode(model, src):
    """The Annotated Transformer's greedy_decode: start at symbol 1, append the argmax, len(src) symbols."""
    transformer, src_embed, tgt_embed, generator = model
    memory = transformer.encoder(embed(src_embed, src))
    ys = torch.ones(1, 1, dtype=torch.int64)
    while ys.shape[1] < src.shape[1]:
        output = transformer.decoder(embed(tgt_embed, ys), memory, tgt_mask=causal_mask(ys.shape[1]))
        ys = torch.cat([ys, generator(output[:, -1]).argmax(-1, keepdim=True)], dim=1)
    return ys[0].tolist()


def cross_attention(model, src, ys):
    """Every decoder layer's cross-attention weights (1, h, T, S) with decoder input ys."""
    transformer, src_embed, tgt_embed, _ = model
    captured = []
    for layer in transformer.decoder.layers:
        def forward(*args, _original=layer.multihead_attn.forward, **kwargs):
            kwargs.update(need_weights=True, average_attn_weights=False)
            output, weights = _original(*args, **kwargs)
            captured.append(weights)
            return output, weights
        layer.multihead_attn.forward = forward
    memory = transformer.encoder(embed(src_embed, src))
    transformer.decoder(embed(tgt_embed, ys), memory, tgt_mask=causal_mask(ys.shape[1]))
    for layer in transformer.decoder.layers:
        del layer.multihead_attn.forward
    return captured


def check_view_page(attn, model, folder):
    """attn view's weights for a checkpoint against PyTorch's; 0 when they agree."""
    sequence = list(range(1, 11))
    page = folder / "page.html"
    subprocess.run([attn, "view", "--checkpoint", str(folder / "model.npz"), "--sequence",
                    " ".join(map(str, sequence)), "--html", str(page), "--lang", "en"],
                   capture_output=True, text=True, check=True)
    data = json.loads(re.search(r'<script id="attention-data" type="application/json">(.*?)</script>',
                                page.read_text(), re.S).group(1))
    src = torch.tensor([sequence])
    decoded = greedy_decode(model, src)
    expected = torch.cat(cross_attention(model, src, torch.tensor([decoded[:-1]])), dim=1)[0]
    got = torch.tensor(data["weights"], dtype=torch.float64)
    labels = ["%d→%d" % (decoded[t], decoded[t + 1]) for t in range(len(decoded) - 1)]
    difference = (expected - got).abs().max().item() if got.shape == expected.shape else math.inf
    print("attn view --checkpoint: %d heads %s, decode %s, max |Δ| %.3e vs nn.MultiheadAttention (tolerance 1e-6)"
          % (got.shape[0], tuple(got.shape), " ".join(map(str, decoded)), difference))
    return int(not (difference <= 1e-6 and data["queryTokens"] == labels
                    and data["keyTokens"] == [str(x) for x in sequence]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attn", default="build/attn", help="the attn program")
    args = parser.parse_args()
    torch.set_grad_enabled(False)
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        run = subprocess.run([args.attn, "train", "copy", "--d-model", "16", "--heads", "2", "--layers", "2",
                              "--d-ff", "32", "--batch", "16", "--steps", "20", "--epochs", "6", "--seed", "3",
                              "--lang", "en", "--save", str(folder / "model.npz")],
                             capture_output=True, text=True, check=True)
        printed = re.findall(r"^  ([0-9 ]+?)  →  ([0-9 ]+?)  [✓✗]$", run.stdout, re.M)
        if len(printed) != 5:
            sys.exit("attn train copy printed %d decodes, expected 5:\n%s" % (len(printed), run.stdout))
        model = tuple(m.double() for m in load_copy_model(folder / "model.npz"))
        failures = 0
        for source, decoded in printed:
            src = torch.tensor([[int(x) for x in source.split()]])
            mine = greedy_decode(model, src)
            theirs = [int(x) for x in decoded.split()]
            print("decode %-22s attn %-22s PyTorch %-22s %s" % (source, decoded, " ".join(map(str, mine)),
                                                                 "ok" if mine == theirs else "DIFFERENT"))
            failures += mine != theirs

        transformer, src_embed, tgt_embed, generator = model
        generator_ids = np.random.RandomState(5)
        src = torch.from_numpy(generator_ids.randint(1, 11, size=(3, 10)))
        tgt = torch.from_numpy(generator_ids.randint(1, 11, size=(3, 9)))
        (folder / "in").mkdir()
        np.save(folder / "in" / "src.npy", embed(src_embed, src).numpy())
        np.save(folder / "in" / "tgt.npy", embed(tgt_embed, tgt).numpy())
        np.save(folder / "in" / "tgt_mask.npy", np.triu(np.ones((9, 9), dtype=bool), 1))
        subprocess.run([args.attn, "compute", "transformer", "--weights", str(folder / "model.npz"),
                        "--in", str(folder / "in"), "--out", str(folder / "out")],
                       capture_output=True, text=True, check=True)
        expected = transformer(embed(src_embed, src), embed(tgt_embed, tgt), tgt_mask=causal_mask(9))
        got = torch.from_numpy(np.load(folder / "out" / "output.npy"))
        output_difference = (expected - got).abs().max().item()
        logits_difference = (generator(expected) - generator(got)).abs().max().item()
        print("nn.Transformer output vs attn compute transformer: max |Δ| %.3e; logits %.3e (tolerance 1e-9)"
              % (output_difference, logits_difference))
        failures += not (output_difference <= 1e-9 and logits_difference <= 1e-9)
        failures += check_view_page(args.attn, model, folder)
    print("checkpoint round trip:", "ok" if failures == 0 else "FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
