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

The model, the seeded recipe and the training step are tools/reference/copy_model.py's (shared
with lesson 11's reference.py). Everything random comes from one std::mt19937 stream (numpy's
RandomState gives the same raw 32-bit draws; tools/reference/seeded.py), so that the tutor's C++ draws the same model and the same
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
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "reference"))
from copy_model import (adam_with_schedule, copy_batches, greedy_decode, label_smoothing_loss,  # noqa: E402
                        seeded_model, train_step, CopyModel)

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "copy_training"

CONFIG = {"vocabulary": 11, "d_model": 16, "heads": 2, "layers": 2, "d_ff": 32, "batch": 8,
          "length": 10, "steps": 20, "warmup": 8, "lr_factor": 1.0, "seed": 30, "padding": 0}
CASES = {"smoothing": 0.1, "plain": 0.0}

torch.set_default_dtype(torch.float64)


def train(initial, batches, smoothing, c):
    """run_epoch's loop over the batches: the loss before each update and the rate it used, and
    the trained model's greedy decodes of the first batch's sources."""
    model = CopyModel(c)
    model.load_state_dict(initial)
    model.train()
    optimizer, scheduler = adam_with_schedule(model, c)
    losses, rates = [], []
    for data in batches:
        loss, learning_rate = train_step(model, optimizer, scheduler, data, smoothing, c, c["padding"])
        losses.append(loss)
        rates.append(learning_rate)
    return np.array(losses), np.array(rates), greedy_decode(model, batches[0], c["length"]).numpy()


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
    generator = np.random.RandomState(CONFIG["seed"])
    model = seeded_model(CONFIG, generator)
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
