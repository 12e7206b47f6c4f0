#!/usr/bin/python3
"""Regenerate tests/data/training/: PyTorch's values (float64) for the training pieces of the
library — the loss, the embedding's gradient, Adam and the warm-up learning rate — for
tests/test_cross_entropy.cpp, test_embedding_backward.cpp, test_adam.cpp and test_learning_rate.cpp.

    cross-entropy-CASE/   in/logits.npy (N, V), in/targets.npy (N) int64, options.txt
                          (padding_index=… or none, label_smoothing=…);
                          expected/loss.npy (), expected/target_distribution.npy (N, V),
                          expected/grad_logits.npy (N, V): torch.autograd.grad of the loss
    embedding-CASE/       in/ids.npy (B, T) int64, in/grad_output.npy (B, T, D), options.txt
                          (vocabulary=…, padding_index=… or none); expected/grad_weight.npy (V, D):
                          nn.Embedding(V, D, padding_idx=…)'s weight.grad after backward(grad_output)
    adam-CASE/            in/parameters.npy (P), the initial parameters of two tensors flattened in
                          order; in/gradients.npy (steps, P), the gradient each step used;
                          options.txt (lr, beta1, beta2, eps, weight_decay, sizes of the tensors);
                          expected/parameters.npy (steps, P): the parameters after each step
    learning-rate-CASE/   options.txt (d_model, factor, warmup, base_lr); expected/rates.npy (10):
                          the lr each of the first 10 optimizer.step() calls used under LambdaLR

The loss is the Annotated Transformer's: its LabelSmoothing (the class below, as it writes it)
with nn.KLDivLoss(reduction="sum") applied to log_softmax(logits), divided by the number of
targets that are not padding (its SimpleLossCompute with norm = ntokens). Without a padding class
it has no class to copy, so the same KL is built with ε/(V − 1) on every other class. With
ε = 0 the script checks that the loss equals F.cross_entropy(ignore_index=…) before saving.
Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_training_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import pathlib
import shutil

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import LambdaLR

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "training"
torch.set_default_dtype(torch.float64)


class LabelSmoothing(nn.Module):
    """The Annotated Transformer's label smoothing (its code, with its comments left out)."""

    def __init__(self, size, padding_idx, smoothing=0.0):
        super().__init__()
        self.criterion = nn.KLDivLoss(reduction="sum")
        self.padding_idx = padding_idx
        self.confidence = 1.0 - smoothing
        self.smoothing = smoothing
        self.size = size
        self.true_dist = None

    def forward(self, x, target):
        assert x.size(1) == self.size
        true_dist = x.data.clone()
        true_dist.fill_(self.smoothing / (self.size - 2))
        true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
        true_dist[:, self.padding_idx] = 0
        mask = torch.nonzero(target.data == self.padding_idx)
        if mask.dim() > 0:
            true_dist.index_fill_(0, mask.squeeze(), 0.0)
        self.true_dist = true_dist
        return self.criterion(x, true_dist.clone().detach())


def case_folder(name):
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in").mkdir(parents=True)
    (folder / "expected").mkdir(parents=True)
    return folder


def save(folder, part, name, tensor):
    array = tensor.detach().numpy() if isinstance(tensor, torch.Tensor) else np.asarray(tensor)
    np.save(folder / part / f"{name}.npy", np.ascontiguousarray(array))


def write_options(folder, **options):
    (folder / "options.txt").write_text("".join(f"{key}={value}\n" for key, value in options.items()))


def cross_entropy_case(name, logits, targets, padding_index, smoothing):
    logits = logits.clone().requires_grad_()
    log_probabilities = F.log_softmax(logits, dim=-1)
    V = logits.shape[1]
    if padding_index is not None:
        criterion = LabelSmoothing(V, padding_index, smoothing)
        counted = int((targets != padding_index).sum())
        loss = criterion(log_probabilities, targets) / counted
        true_dist = criterion.true_dist
        if smoothing == 0.0:
            plain = F.cross_entropy(logits, targets, ignore_index=padding_index)
            assert torch.allclose(loss, plain, rtol=1e-14, atol=0), (name, loss, plain)
    else:
        true_dist = torch.full_like(logits, smoothing / (V - 1)).detach()
        true_dist.scatter_(1, targets.unsqueeze(1), 1.0 - smoothing)
        loss = nn.KLDivLoss(reduction="sum")(log_probabilities, true_dist) / logits.shape[0]
        if smoothing == 0.0:
            plain = F.cross_entropy(logits, targets)
            assert torch.allclose(loss, plain, rtol=1e-14, atol=0), (name, loss, plain)
    (grad,) = torch.autograd.grad(loss, [logits])
    folder = case_folder(f"cross-entropy-{name}")
    save(folder, "in", "logits", logits)
    save(folder, "in", "targets", targets)
    save(folder, "expected", "loss", loss)
    save(folder, "expected", "target_distribution", true_dist)
    save(folder, "expected", "grad_logits", grad)
    write_options(folder, padding_index="none" if padding_index is None else padding_index,
                  label_smoothing=repr(smoothing))


def cross_entropy_cases(generator):
    # The copy task's shape: V = 11, padding 0, rows of padding among the targets.
    logits = torch.randn(12, 11, generator=generator) * 2
    targets = torch.tensor([3, 0, 1, 10, 5, 0, 7, 7, 2, 0, 9, 4])
    cross_entropy_case("copy-smoothed", logits, targets, 0, 0.1)
    cross_entropy_case("copy-unsmoothed", logits, targets, 0, 0.0)
    # A padding class that is not 0, a large ε: the padding column must take no share.
    logits = torch.randn(6, 5, generator=generator)
    targets = torch.tensor([0, 2, 4, 1, 2, 3])
    cross_entropy_case("padding-2-smoothed", logits, targets, 2, 0.4)
    # No padding class at all.
    logits = torch.randn(5, 4, generator=generator) * 3
    targets = torch.tensor([0, 3, 1, 1, 2])
    cross_entropy_case("no-padding-smoothed", logits, targets, None, 0.25)
    cross_entropy_case("no-padding-unsmoothed", logits, targets, None, 0.0)


def embedding_case(name, generator, V, ids, D, padding_index):
    embedding = nn.Embedding(V, D, padding_idx=padding_index)
    with torch.no_grad():
        embedding.weight.copy_(torch.randn(V, D, generator=generator))
    output = embedding(ids)
    grad_output = torch.randn(*output.shape, generator=generator)
    output.backward(grad_output)
    folder = case_folder(f"embedding-{name}")
    save(folder, "in", "ids", ids)
    save(folder, "in", "grad_output", grad_output)
    save(folder, "expected", "grad_weight", embedding.weight.grad)
    write_options(folder, vocabulary=V, padding_index="none" if padding_index is None else padding_index)


def embedding_cases(generator):
    # Repeated ids (1 three times, 4 twice), padding 0 present, and ids that never appear (6, 7).
    ids = torch.tensor([[1, 4, 1, 0, 0], [2, 1, 4, 3, 0]])
    embedding_case("padding-repeated", generator, 8, ids, 3, 0)
    embedding_case("no-padding-repeated", generator, 8, ids, 3, None)


def adam_case(name, generator, steps, **options):
    shapes = [(2, 3), (4,)]
    tensors = [nn.Parameter(torch.randn(*shape, generator=generator)) for shape in shapes]
    target = [torch.randn(*shape, generator=generator) for shape in shapes]
    optimizer = torch.optim.Adam(tensors, lr=options["lr"], betas=(options["beta1"], options["beta2"]),
                                 eps=options["eps"], weight_decay=options["weight_decay"], foreach=False)
    flat = lambda values: torch.cat([value.detach().reshape(-1) for value in values])
    initial = flat(tensors)
    gradients, after = [], []
    for step in range(steps):
        optimizer.zero_grad()
        # A smooth loss whose gradient changes with the parameters; the first element of the
        # second tensor is multiplied by 0 in the first step: a gradient of 0 (v = 0, denom = ε).
        loss = sum(((p - t) ** 2 * torch.cos(p)).sum() for p, t in zip(tensors, target))
        if step == 0:
            loss = loss - ((tensors[1][0] - target[1][0]) ** 2 * torch.cos(tensors[1][0]))
        loss.backward()
        gradients.append(flat([p.grad for p in tensors]))
        optimizer.step()
        after.append(flat(tensors))
    assert float(gradients[0][6]) == 0.0
    folder = case_folder(f"adam-{name}")
    save(folder, "in", "parameters", initial)
    save(folder, "in", "gradients", torch.stack(gradients))
    save(folder, "expected", "parameters", torch.stack(after))
    write_options(folder, **{key: repr(value) for key, value in options.items()},
                  sizes=",".join(str(int(np.prod(shape))) for shape in shapes))


def rate(step, model_size, factor, warmup):
    """The Annotated Transformer's rate(), as it writes it."""
    if step == 0:
        step = 1
    return factor * (model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))


def learning_rate_case(name, d_model, factor, warmup, base_lr):
    parameter = nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.Adam([parameter], lr=base_lr, betas=(0.9, 0.98), eps=1e-9)
    scheduler = LambdaLR(optimizer, lr_lambda=lambda step: rate(step, d_model, factor, warmup))
    rates = []
    for _ in range(10):  # the Annotated Transformer's loop: optimizer.step(), then scheduler.step()
        rates.append(optimizer.param_groups[0]["lr"])
        parameter.grad = torch.ones(1)
        optimizer.step()
        scheduler.step()
    folder = case_folder(f"learning-rate-{name}")
    save(folder, "expected", "rates", torch.tensor(rates))
    write_options(folder, d_model=d_model, factor=repr(factor), warmup=warmup, base_lr=repr(base_lr))


def main():
    generator = torch.Generator().manual_seed(30)
    cross_entropy_cases(generator)
    embedding_cases(generator)
    adam_case("copy-task-betas", generator, 5, lr=0.05, beta1=0.9, beta2=0.98, eps=1e-9, weight_decay=0.0)
    adam_case("weight-decay", generator, 5, lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.1)
    learning_rate_case("copy-task", 512, 1.0, 400, 0.5)
    learning_rate_case("short-warmup", 16, 2.0, 4, 1.0)   # the peak (step 4) inside the 10 steps


if __name__ == "__main__":
    main()
