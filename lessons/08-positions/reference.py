"""PyTorch reference for lesson 8 (embeddings and positions: sinusoidal, learned, rotary).

Each example of the document is recomputed here from its input blocks, in plain PyTorch:
  · main       nn.Embedding's lookup (F.embedding) and the √d_model scale;
  · order      lesson 4's attention, softmax(x xᵀ / √D) x, on a sentence and on the same tokens in
               another order, without and with the sinusoidal table added;
  · sinusoid, table, distance
               the sinusoidal table as the Annotated Transformer builds it (div_term, sin on the
               even columns, cos on the odd ones), its rotation by a shift and its dot products;
  · rope, rope_map
               rotary embeddings in both layouts, each written as its own code base writes it:
               Hugging Face's `rotate_half` (halves) and GPT-J's `rotate_every_two` (pairs).
Plain torch only, never the attn library."""
import math

import torch


def count(inputs, name):
    return int(inputs[name].reshape(-1)[0])


# ── Embeddings ─────────────────────────────────────────────────────────────────────────────────

def embeddings(inputs):
    weight, ids = inputs["weight"], inputs["ids"].long()
    embedded = torch.nn.functional.embedding(ids, weight)        # (B, T, D): row ids[b, t] of weight
    return {"embedded": embedded, "scaled_embedded": embedded * math.sqrt(weight.shape[1])}


# ── Sinusoidal positions ───────────────────────────────────────────────────────────────────────

def sinusoidal_table(length, d_model):
    """The Annotated Transformer's PositionalEncoding, without its dropout and batch axis."""
    position = torch.arange(0, length, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log(10000.0) / d_model))
    pe = torch.zeros(length, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe, div_term


def rotate_each_pair(rows, angles):
    """Each pair (sin a, cos a) of `rows` (T, D) turned by the angle of its pair (D/2):
    [sin(a + φ), cos(a + φ)] = [[cos φ, sin φ], [−sin φ, cos φ]] · [sin a, cos a]."""
    rotation = torch.stack([torch.stack([torch.cos(angles), torch.sin(angles)], -1),
                            torch.stack([-torch.sin(angles), torch.cos(angles)], -1)], -2)  # (D/2, 2, 2)
    pairs = rows.reshape(rows.shape[0], -1, 2)                                             # (T, D/2, 2)
    turned = torch.einsum("irc,tic->tir", rotation, pairs)
    return rotation, turned.reshape(rows.shape)


def sinusoid(inputs):
    length, d_model = count(inputs, "length"), count(inputs, "d_model")
    pe, frequencies = sinusoidal_table(length, d_model)
    out = {"frequencies": frequencies, "angles": torch.arange(length, dtype=torch.float64).unsqueeze(1) * frequencies,
           "pe": pe, "pe_dot": pe @ pe.T}
    if "shift" in inputs:
        shift = count(inputs, "shift")
        longer, _ = sinusoidal_table(length + shift, d_model)
        rotation, rotated = rotate_each_pair(pe, shift * frequencies)
        out.update({"rotation": rotation, "pe_rotated": rotated, "pe_shifted": longer[shift:]})
    return out


# ── Why positions: attention does not see the order ────────────────────────────────────────────

def self_attention(x):
    """Lesson 4's attention with Q = K = V = x and no mask."""
    weights = torch.softmax(x @ x.transpose(1, 2) / math.sqrt(x.shape[-1]), dim=-1)
    return weights @ x


def order(inputs):
    x, permutation = inputs["x"], inputs["order"].long()
    pe, _ = sinusoidal_table(x.shape[1], x.shape[2])
    output, output_swapped = self_attention(x), self_attention(x[:, permutation])
    positioned, positioned_swapped = self_attention(x + pe), self_attention(x[:, permutation] + pe)
    # Back in the first sentence's order: the swapped sentence's output rows at the inverse permutation.
    inverse = torch.argsort(permutation)
    return {"output": output, "output_swapped": output_swapped,
            "output_reordered": output[:, permutation],
            "largest_difference": (output_swapped[:, inverse] - output).abs().amax().reshape(1),
            "x_positioned": x + pe, "positioned_output": positioned,
            "positioned_output_swapped": positioned_swapped,
            "positioned_difference": (positioned_swapped[:, inverse] - positioned).abs().amax().reshape(1)}


# ── Rotary embeddings, as two code bases write them ────────────────────────────────────────────

def inverse_frequencies(d_k, base=10000.0):
    return 1.0 / (base ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k))   # θ_i = base^(−2i/d_k)


def rope_halves(x, positions):
    """Hugging Face's LLaMA: cos and sin repeated over the two halves, x·cos + rotate_half(x)·sin."""
    angles = positions.double().unsqueeze(1) * inverse_frequencies(x.shape[-1])   # (T, d_k/2)
    emb = torch.cat((angles, angles), dim=-1)                                         # (T, d_k)

    def rotate_half(t):
        first, second = t[..., : t.shape[-1] // 2], t[..., t.shape[-1] // 2:]
        return torch.cat((-second, first), dim=-1)

    return x * emb.cos() + rotate_half(x) * emb.sin()


def rope_pairs(x, positions):
    """GPT-J: sin and cos repeated for each adjacent pair, x·cos + rotate_every_two(x)·sin."""
    angles = positions.double().unsqueeze(1) * inverse_frequencies(x.shape[-1])   # (T, d_k/2)
    sin, cos = angles.sin().repeat_interleave(2, dim=-1), angles.cos().repeat_interleave(2, dim=-1)

    def rotate_every_two(t):
        return torch.stack((-t[..., 1::2], t[..., ::2]), dim=-1).flatten(-2)

    return x * cos + rotate_every_two(x) * sin


def rope(inputs):
    q, k = inputs["q"], inputs["k"]
    positions_q, positions_k = inputs["positions_q"].long(), inputs["positions_k"].long()
    out = {"dots_unrotated": q @ k.transpose(-1, -2)}
    for name, rotate in (("pairs", rope_pairs), ("halves", rope_halves)):
        q_rotated, k_rotated = rotate(q, positions_q), rotate(k, positions_k)
        out.update({f"q_{name}": q_rotated, f"k_{name}": k_rotated,
                    f"dots_{name}": q_rotated @ k_rotated.transpose(-1, -2)})
        # Attention's scores: the rotated dot products divided by √d_k, as in lesson 4.
        out[f"scores_{name}"] = out[f"dots_{name}"] / math.sqrt(q.shape[-1])
    # Weights converted from the pairs layout to the halves layout: the features of q and k
    # reordered so that each pair (2i, 2i + 1) lands on (i, i + d_k/2).
    d_k = q.shape[-1]
    to_halves = torch.cat((torch.arange(0, d_k, 2), torch.arange(1, d_k, 2)))
    out["q_converted"], out["k_converted"] = q[..., to_halves], k[..., to_halves]
    out["dots_converted"] = rope_halves(q[..., to_halves], positions_q) @ \
        rope_halves(k[..., to_halves], positions_k).transpose(-1, -2)
    return out


def compute(example, inputs):
    if "weight" in inputs:
        return embeddings(inputs)
    if "order" in inputs:
        return order(inputs)
    if "q" in inputs:
        return rope(inputs)
    return sinusoid(inputs)
