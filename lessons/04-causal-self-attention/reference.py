"""PyTorch reference for lesson 4 (causal scaled dot-product self-attention), written from seed 002's
SelfAttention: nn.Linear projections without bias, scores Q Kᵀ / √d_k, an additive mask of −∞
above the diagonal, a softmax over the keys, and the weighted sum of the values.

Plain torch only. For seed 002's own Q, K, V the seed's class is also run as the seed wrote it,
and its printed result must agree with the step-by-step version below."""
import math

import torch
import torch.nn as nn

from torch_layers import linear_layer


class SeedSelfAttention(nn.Module):
    """Seed 002's second SelfAttention, kept as the seed wrote it (it squeezes the batch away)."""

    def __init__(self, input_dim, hidden_dim):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.Q = nn.Linear(input_dim, hidden_dim, bias=False)
        self.K = nn.Linear(input_dim, hidden_dim, bias=False)
        self.V = nn.Linear(input_dim, hidden_dim, bias=False)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, Q=None, K=None, V=None, x=None):
        if x is not None:
            Q, K, V = self.Q(x), self.K(x), self.V(x)
        if Q.dim() == 2:
            Q, K, V = Q.unsqueeze(0), K.unsqueeze(0), V.unsqueeze(0)
        scores = torch.matmul(Q, K.transpose(1, 2))
        scores = scores / (self.hidden_dim ** 0.5)
        scores = scores + self._mask(scores).to(Q.device)
        scores = self.softmax(scores)
        attention = torch.matmul(scores, V)
        return scores.squeeze(0), attention.squeeze(0)

    def _mask(self, x):
        mask = torch.tril(torch.ones(x.size(1), x.size(1)), diagonal=0)
        mask[mask == 0] = float('-inf')
        mask[mask == 1] = 0
        return mask.repeat(x.size(0), 1, 1)


def causal_attention(Q, K, V, diagonal=1):
    """Every intermediate of softmax(Q Kᵀ / √d_k + causal mask) V, batch axis kept. The mask hides
    torch.triu(ones(T, S), diagonal): 1 aligns it top-left (query t sees keys 0 … t, PyTorch's
    default), S − T + 1 bottom-right (query t sees keys 0 … t + S − T: a KV cache)."""
    T, S = Q.shape[1], K.shape[1]
    scores = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(Q.shape[-1])          # (B, T, S)
    mask = torch.triu(torch.full((T, S), float('-inf'), dtype=Q.dtype), diagonal=diagonal)
    masked_scores = scores + mask
    weights = torch.softmax(masked_scores, dim=-1)
    output = torch.bmm(weights, V)                                               # (B, T, d_v)
    visible = torch.tril(torch.ones(T, S), diagonal=diagonal - 1) == 1
    out = {
        "scores": scores,
        "masked_scores": masked_scores,
        "weights": weights,
        "output": output,
        # The same mask written with masked_fill, and the wrong "mask" multiplied into the scores.
        "masked_fill_weights": torch.softmax(scores.masked_fill(~visible, float('-inf')), dim=-1),
        "multiplied_weights": torch.softmax(scores * visible.to(scores.dtype), dim=-1),
    }
    return out


def spread(widths):
    """The spread of q·k for random unit-variance vectors is √d; divided by √d it is 1.
    The expected values are that arithmetic; the seeded torch experiment below confirms it."""
    generator = torch.Generator().manual_seed(4)
    for d in widths.tolist():
        q = torch.randn(5000, int(d), generator=generator, dtype=torch.float64)
        k = torch.randn(5000, int(d), generator=generator, dtype=torch.float64)
        measured = (q * k).sum(dim=1).std()
        assert abs(measured / math.sqrt(d) - 1) < 0.04, (d, measured)
    return {"dot_std": widths.sqrt(), "scaled_dot_std": torch.ones_like(widths)}


def saturation(q, k):
    """One query against four keys, ±1 entries, d_k = 16: the softmax with and without 1/√d_k,
    and its slope ∂w_i/∂z_i (the diagonal of the softmax's Jacobian)."""
    raw = torch.bmm(q, k.transpose(1, 2))                      # (1, 1, 4)
    scaled = raw / math.sqrt(q.shape[-1])

    def slope(z):
        jacobian = torch.autograd.functional.jacobian(lambda row: torch.softmax(row, dim=-1), z.reshape(-1))
        return jacobian.diagonal().reshape(z.shape)

    return {
        "raw_scores": raw,
        "weights_unscaled": torch.softmax(raw, dim=-1),
        "weights": torch.softmax(scaled, dim=-1),
        "slope_unscaled": slope(raw),
        "slope": slope(scaled),
    }


def compute(example, inputs):
    if "widths" in inputs:
        return spread(inputs["widths"])
    if "q" in inputs:
        return saturation(inputs["q"], inputs["k"])
    out = {}
    if "x" in inputs:
        x = inputs["x"]
        projections = {}
        for name in ("q", "k", "v"):
            weight = inputs[f"w_{name}"]
            projections[name] = linear_layer(weight)(x).detach()
        Q, K, V = projections["q"], projections["k"], projections["v"]
        out.update({"Q": Q, "K": K, "V": V})
    else:
        Q, K, V = inputs["Q"], inputs["K"], inputs["V"]
    if example == "kv_cache":
        # Step 11: the T new queries of a KV cache are the last T of the S positions. The same inputs
        # under both alignments of the triangle, told apart by the names: top-left (PyTorch's
        # default, wrong here) and bottom-right (right for a cache).
        alignments = {"top_left": 1, "bottom_right": K.shape[1] - Q.shape[1] + 1}
        for alignment, diagonal in alignments.items():
            out.update({f"{name}_{alignment}": t for name, t in causal_attention(Q, K, V, diagonal).items()})
        return out
    out.update(causal_attention(Q, K, V))
    if Q.shape[1] == K.shape[1] and Q.shape[0] == 1 and Q.shape[1] > 1:
        # Seed 002's own class on the same Q, K, V (its projections are not used on this path).
        seed_scores, seed_attention = SeedSelfAttention(Q.shape[-1], Q.shape[-1])(Q=Q[0], K=K[0], V=V[0])
        assert torch.allclose(seed_scores, out["weights"][0]) and torch.allclose(seed_attention, out["output"][0])
    return out
