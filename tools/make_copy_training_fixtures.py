#!/usr/bin/python3
"""Regenerate tests/data/copy_training/: the Annotated Transformer's copy task, trained by PyTorch.

The model is the Annotated Transformer's encoder-decoder with PyTorch's own modules:
nn.Transformer(norm_first=True, dropout=0, batch_first=True) — pre-norm layers and the two final
norms, nn.LayerNorm — plus two nn.Embedding tables scaled by √D and added to the sinusoidal
positions, and nn.Linear(D, V) as the generator. It is trained the way the Annotated Transformer's
run_epoch trains it: the decoder reads tgt[:, :-1] and is scored on tgt[:, 1:] (teacher forcing),
the loss is its LabelSmoothing (KLDivLoss(reduction="sum") against the smoothed target
distribution, padding 0) divided by the number of target tokens, then loss.backward(),
optimizer.step(), optimizer.zero_grad(), scheduler.step(), with torch.optim.Adam(betas=(0.9, 0.98),
eps=1e-9) and LambdaLR(rate): the k-th update uses rate(max(k − 1, 1)).

Everything random comes from one std::mt19937 stream (numpy's RandomState gives the same raw
32-bit draws; tools/reference/seeded.py), so that the tutor's C++ draws the same model and the same
batches from the same seed (src/tutor/train/copy_task.hpp): first the initial weights, parameter
by parameter in nn.Transformer's named_parameters order followed by src_embed, tgt_embed and
generator —
  * every matrix Xavier-uniform as the Annotated Transformer's make_model does,
    bound √(6 / (fan_in + fan_out)) (in_proj_weight as the (3D, D) matrix it is);
  * the nn.Linear biases (linear1, linear2, generator) uniform in ±1/√fan_in, PyTorch's default;
  * nothing drawn for nn.MultiheadAttention's biases (zeros) or the norms (ones and zeros), as
    PyTorch initialises them —
then the batches, each (B, L) row-major: symbol 1 + ⌊u · (V − 1)⌋ for each draw u, and column 0
overwritten with 1 afterwards (the Annotated Transformer's data_gen: the draw is still made).

Files, all float64 or int64:
  config.txt        the sizes and settings, key=value
  initial.npz       the initial weights under the state_dict names (encoder.layers.0.self_attn.
                    in_proj_weight, …, src_embed.weight, tgt_embed.weight, generator.weight,
                    generator.bias)
  batches.npz       src and tgt (steps, B, L); the copy task's src equals its tgt
  expected.npz      logits (B, L − 1, V) of the first batch from the initial weights;
                    grad.<name>: every parameter's gradient of the first step's loss with label
                    smoothing; for each case (smoothing, plain): <case>.losses (steps),
                    <case>.learning_rates (steps, the rate each update used), <case>.greedy (B, L):
                    the trained model's greedy decodes of the first batch's sources
  hostile/*.npz     batches that --data must refuse: an id out of range, a fraction, L = 1,
                    src and tgt of different shapes, no tgt

    /usr/bin/python3 tools/make_copy_training_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy. Seeded: twice, the same files.
"""
import math
import pathlib
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reference.seeded import seeded_uniform  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "copy_training"

CONFIG = {"vocabulary": 11, "d_model": 16, "heads": 2, "layers": 2, "d_ff": 32, "batch": 8,
          "length": 10, "steps": 20, "warmup": 8, "lr_factor": 1.0, "seed": 30, "padding": 0}
CASES = {"smoothing": 0.1, "plain": 0.0}

torch.set_default_dtype(torch.float64)


class CopyModel(nn.Transformer):
    """nn.Transformer with the embeddings and the generator beside it, so that the state_dict
    keeps nn.Transformer's own names and adds src_embed.weight, tgt_embed.weight, generator.*."""

    def __init__(self, c):
        super().__init__(c["d_model"], c["heads"], c["layers"], c["layers"], c["d_ff"], dropout=0.0,
                         batch_first=True, norm_first=True)
        self.src_embed = nn.Embedding(c["vocabulary"], c["d_model"])
        self.tgt_embed = nn.Embedding(c["vocabulary"], c["d_model"])
        self.generator = nn.Linear(c["d_model"], c["vocabulary"])

    def embed(self, table, ids):
        """The Annotated Transformer's Embeddings then PositionalEncoding: lut(x) · √D + pe."""
        L = ids.shape[1]
        position = torch.arange(L, dtype=torch.float64).unsqueeze(1)
        frequency = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float64)
                              * (-math.log(10000.0) / self.d_model))
        pe = torch.zeros(L, self.d_model)
        pe[:, 0::2] = torch.sin(position * frequency)
        pe[:, 1::2] = torch.cos(position * frequency)
        return table(ids) * math.sqrt(self.d_model) + pe

    def logits(self, src, tgt_in):
        T = tgt_in.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf")), 1)
        output = super().forward(self.embed(self.src_embed, src), self.embed(self.tgt_embed, tgt_in),
                                 tgt_mask=causal)
        return self.generator(output)


def initialise(model, generator):
    """The recipe of the module docstring, in named_parameters order."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() > 1:
                fan_out, fan_in = parameter.shape
                bound = math.sqrt(6.0 / (fan_in + fan_out))
            elif name.endswith(("linear1.bias", "linear2.bias")) or name == "generator.bias":
                fan_in = {"linear1": CONFIG["d_model"], "linear2": CONFIG["d_ff"],
                          "generator": CONFIG["d_model"]}[name.split(".")[-2]]
                bound = 1.0 / math.sqrt(fan_in)
            else:
                continue  # PyTorch's own values: attention biases 0, norms 1 and 0
            parameter.copy_(seeded_uniform(generator, tuple(parameter.shape), bound))


def copy_batches(generator, c):
    """(steps, B, L) int64: data_gen's symbols 1 … V − 1, the first one always 1."""
    shape = (c["steps"], c["batch"], c["length"])
    raw = generator.randint(0, 2 ** 32, size=int(np.prod(shape)), dtype=np.uint32).astype(np.float64)
    unit = (raw + 0.5) / 2.0 ** 32
    data = (1 + np.floor(unit * (c["vocabulary"] - 1))).astype(np.int64).reshape(shape)
    data[:, :, 0] = 1
    return torch.from_numpy(data)


def label_smoothing_loss(logits, target, smoothing, padding, V):
    """The Annotated Transformer's LabelSmoothing on log_softmax, divided by the token count."""
    x = torch.log_softmax(logits.reshape(-1, V), dim=-1)
    y = target.reshape(-1)
    true_dist = torch.full_like(x, smoothing / (V - 2))
    true_dist.scatter_(1, y.unsqueeze(1), 1.0 - smoothing)
    true_dist[:, padding] = 0
    true_dist[y == padding] = 0
    ntokens = (y != padding).sum()
    return nn.KLDivLoss(reduction="sum")(x, true_dist.detach()) / ntokens


def rate(step, d_model, factor, warmup):
    """The Annotated Transformer's rate(): LambdaLR calls it with 0 first, read as 1."""
    step = max(step, 1)
    return factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


def greedy_decode(model, src, length):
    """The Annotated Transformer's greedy_decode, one sequence at a time: the encoder once, then
    the decoder on the symbols so far from the start symbol 1, the argmax of the last position."""
    decodes = []
    with torch.no_grad():
        for row in src:
            memory = model.encoder(model.embed(model.src_embed, row.unsqueeze(0)))
            ys = torch.ones(1, 1, dtype=torch.int64)
            for _ in range(length - 1):
                T = ys.shape[1]
                causal = torch.triu(torch.full((T, T), float("-inf")), 1)
                output = model.decoder(model.embed(model.tgt_embed, ys), memory, tgt_mask=causal)
                next_id = model.generator(output[:, -1]).argmax(dim=-1, keepdim=True)
                ys = torch.cat([ys, next_id], dim=1)
            decodes.append(ys[0])
    return torch.stack(decodes).numpy()


def train(initial, batches, smoothing, c):
    """run_epoch's loop over the batches: the loss before each update and the rate it used, and
    the trained model's greedy decodes of the first batch's sources."""
    model = CopyModel(c)
    model.load_state_dict(initial)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: rate(step, c["d_model"], c["lr_factor"], c["warmup"]))
    losses, rates = [], []
    for data in batches:
        logits = model.logits(data, data[:, :-1])
        loss = label_smoothing_loss(logits, data[:, 1:], smoothing, c["padding"], c["vocabulary"])
        loss.backward()
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        scheduler.step()
        losses.append(loss.item())
    return np.array(losses), np.array(rates), greedy_decode(model, batches[0], c["length"])


def first_step(initial, batch, c):
    """The first batch's logits and every parameter's gradient of its loss with label smoothing."""
    model = CopyModel(c)
    model.load_state_dict(initial)
    model.train()
    logits = model.logits(batch, batch[:, :-1])
    loss = label_smoothing_loss(logits, batch[:, 1:], CASES["smoothing"], c["padding"], c["vocabulary"])
    loss.backward()
    gradients = {f"grad.{name}": p.grad.numpy().copy() for name, p in model.named_parameters()}
    return logits.detach().numpy(), gradients


def main():
    torch.manual_seed(0)  # nn.Transformer's own initialisation, overwritten entirely below
    generator = np.random.RandomState(CONFIG["seed"])
    model = CopyModel(CONFIG)
    initialise(model, generator)
    initial = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    batches = copy_batches(generator, CONFIG)

    expected = {}
    expected["logits"], gradients = first_step(initial, batches[0], CONFIG)
    expected.update(gradients)
    for case, smoothing in CASES.items():
        losses, rates, decodes = train(initial, batches, smoothing, CONFIG)
        expected[f"{case}.losses"], expected[f"{case}.learning_rates"], expected[f"{case}.greedy"] = losses, rates, decodes
        print(case, " ".join(f"{loss:.6f}" for loss in expected[f"{case}.losses"]))

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "config.txt").write_text("".join(f"{key}={value}\n" for key, value in CONFIG.items()))
    np.savez(OUT / "initial.npz", **{name: tensor.numpy() for name, tensor in initial.items()})
    np.savez(OUT / "batches.npz", src=batches.numpy(), tgt=batches.numpy())
    np.savez(OUT / "expected.npz", **expected)
    write_bad_batches()


def write_bad_batches():
    """hostile/*.npz: batches archives `attn train copy --data` must refuse, naming what is wrong."""
    folder = OUT / "hostile"
    folder.mkdir(exist_ok=True)
    good = np.ones((2, 2, 4), dtype=np.int64)
    out_of_range = good.copy()
    out_of_range[1, 0, 3] = 11
    cases = {"id-out-of-range": {"src": out_of_range, "tgt": good},
             "fraction": {"src": good, "tgt": good + 0.5},
             "one-symbol": {"src": good[:, :, :1], "tgt": good[:, :, :1]},
             "shapes-differ": {"src": good, "tgt": np.ones((2, 2, 5), dtype=np.int64)},
             "no-tgt": {"src": good}}
    for name, members in cases.items():
        np.savez(folder / f"{name}.npz", **members)


if __name__ == "__main__":
    main()
