"""The Annotated Transformer's copy task in PyTorch: its model, its seeded weights and batches, its
loss, its learning rate and its greedy decoding. Plain torch (float64 by the caller's choice),
never the attn library; tools/make_copy_training_fixtures.py and lesson 11's reference.py share it.

The model is nn.Transformer(norm_first=True, dropout=0, batch_first=True) — pre-norm layers and the
two final norms — plus two nn.Embedding tables scaled by √D and added to the sinusoidal positions,
and nn.Linear(D, V) as the generator. Everything random comes from one std::mt19937 stream
(numpy's RandomState gives the same raw 32-bit draws; seeded.py), so that the tutor's C++ draws the
same model and the same batches from the same seed (src/tutor/train/copy_task.hpp): first the
initial weights, parameter by parameter in named_parameters order —
  * every matrix Xavier-uniform, bound √(6 / (fan_in + fan_out)) (in_proj_weight as (3D, D));
  * the nn.Linear biases (linear1, linear2, generator) uniform in ±1/√fan_in, PyTorch's default;
  * nothing drawn for nn.MultiheadAttention's biases (zeros) or the norms (ones and zeros) —
then the batches, each (B, L) row-major: symbol 1 + ⌊u · (V − 1)⌋ for each draw u, and column 0
overwritten with 1 afterwards (the Annotated Transformer's data_gen: the draw is still made).

A config is a dict with vocabulary, d_model, heads, layers, d_ff (and, for the batches, batch,
length, steps)."""
import math

import numpy as np
import torch
from torch import nn

from seeded import seeded_uniform


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


def initialise(model, generator, c):
    """The recipe of the module docstring, in named_parameters order."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() > 1:
                fan_out, fan_in = parameter.shape
                bound = math.sqrt(6.0 / (fan_in + fan_out))
            elif name.endswith(("linear1.bias", "linear2.bias")) or name == "generator.bias":
                fan_in = {"linear1": c["d_model"], "linear2": c["d_ff"], "generator": c["d_model"]}[name.split(".")[-2]]
                bound = 1.0 / math.sqrt(fan_in)
            else:
                continue  # PyTorch's own values: attention biases 0, norms 1 and 0
            parameter.copy_(seeded_uniform(generator, tuple(parameter.shape), bound))


def seeded_model(c, generator):
    """A CopyModel of config c with the recipe's weights, drawn from generator (RandomState)."""
    torch.manual_seed(0)  # nn.Transformer's own initialisation, overwritten entirely
    model = CopyModel(c)
    initialise(model, generator, c)
    return model


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


def adam_with_schedule(model, c):
    """torch.optim.Adam(β (0.9, 0.98), ε 1e-9, lr 1) under LambdaLR(rate)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: rate(step, c["d_model"], c["lr_factor"], c["warmup"]))
    return optimizer, scheduler


def train_step(model, optimizer, scheduler, data, smoothing, c, padding=0):
    """run_epoch's step on one batch (teacher forcing: read tgt[:, :-1], scored on tgt[:, 1:]):
    loss.backward(), optimizer.step(), zero_grad, scheduler.step(). Returns (loss, lr used)."""
    logits = model.logits(data, data[:, :-1])
    loss = label_smoothing_loss(logits, data[:, 1:], smoothing, padding, c["vocabulary"])
    loss.backward()
    learning_rate = optimizer.param_groups[0]["lr"]
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    scheduler.step()
    return loss.item(), learning_rate


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
    return torch.stack(decodes)
