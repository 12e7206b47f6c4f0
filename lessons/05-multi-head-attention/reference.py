"""PyTorch reference for lesson 5 (multi-head attention), written from seed 000's
MultiHeadedAttention (separate query/key/value nn.Linear with bias, heads split by view and
permute, padding mask), seed 003's output projection and seed 004's per-head loop and vectorised
forms.

Plain torch only. Each result is computed step by step, and checked against
torch.nn.MultiheadAttention (batch_first=True, need_weights=True, average_attn_weights=False) with
the same weights, and against the seeds' own code where the lesson quotes them."""
import math

import torch
import torch.nn as nn

from torch_layers import linear_layer


class SeedMultiHeadedAttention(nn.Module):
    """Seed 000's block, as the seed wrote it (no output projection; dropout left out: it is the
    identity in evaluation)."""

    def __init__(self, num_heads, d_model):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"The hidden size ({d_model}) is not a multiple of the number of attention "
                             f"heads ({num_heads})")
        self.d_k = d_model // num_heads
        self.d_model = d_model
        self.num_heads = num_heads
        self.query = nn.Linear(d_model, d_model)
        self.key = nn.Linear(d_model, d_model)
        self.value = nn.Linear(d_model, d_model)

    def transpose_for_scores(self, x):
        x = x.view(*(x.size()[:-1] + (self.num_heads, self.d_k)))
        return x.permute(0, 2, 1, 3)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)
        query_layer = self.transpose_for_scores(self.query(query))
        key_layer = self.transpose_for_scores(self.key(key))
        value_layer = self.transpose_for_scores(self.value(value))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2)) / math.sqrt(self.d_k)
        if mask is not None:
            attention_scores = attention_scores.masked_fill(mask == 0, float('-inf'))
        attention_probs = nn.Softmax(dim=-1)(attention_scores)
        context_layer = torch.matmul(attention_probs, value_layer).permute(0, 2, 1, 3).contiguous()
        context_layer = context_layer.view(*(context_layer.size()[:-2] + (self.d_model,)))
        return context_layer, attention_probs


def multi_head(x, inputs, heads, attention_mask=None, causal=False, scale=True):
    """Every intermediate of multi-head self-attention on x, step by step. A query whose keys are
    all hidden gets weights of 0 (the library's policy; torch.softmax would give NaN there)."""
    B, T, D = x.shape
    d_k = D // heads
    q = linear_layer(inputs["w_q"], inputs["b_q"])(x)
    k = linear_layer(inputs["w_k"], inputs["b_k"])(x)
    v = linear_layer(inputs["w_v"], inputs["b_v"])(x)
    split = lambda t: t.view(B, T, heads, d_k).transpose(1, 2)          # (B, h, T, d_k)
    q_heads, k_heads, v_heads = split(q), split(k), split(v)
    scores = torch.matmul(q_heads, k_heads.transpose(-1, -2))
    if scale:
        scores = scores / math.sqrt(d_k)
    visible = torch.ones(B, 1, T, T, dtype=torch.bool)
    if attention_mask is not None:
        visible = visible & (attention_mask[:, None, None, :] == 1)      # (B, 1, 1, S): every head, every query
    if causal:
        visible = visible & torch.tril(torch.ones(T, T, dtype=torch.bool))
    weights = torch.softmax(scores.masked_fill(~visible, float('-inf')), dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)                         # rows with no visible key
    context_heads = torch.matmul(weights, v_heads)
    context = context_heads.transpose(1, 2).contiguous().view(B, T, D)
    output = linear_layer(inputs["w_o"], inputs["b_o"])(context)
    return {"q": q, "k": k, "v": v, "q_heads": q_heads, "k_heads": k_heads, "v_heads": v_heads,
            "scores": scores, "weights": weights, "context_heads": context_heads, "context": context,
            "output": output}


def torch_mha(x, inputs, heads, attention_mask=None, causal=False):
    """torch.nn.MultiheadAttention with the lesson's weights: in_proj_weight stacks w_q, w_k, w_v."""
    D = x.shape[-1]
    mha = nn.MultiheadAttention(D, heads, batch_first=True, dtype=x.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([inputs["w_q"], inputs["w_k"], inputs["w_v"]]))
        mha.in_proj_bias.copy_(torch.cat([inputs["b_q"], inputs["b_k"], inputs["b_v"]]))
        mha.out_proj.weight.copy_(inputs["w_o"])
        mha.out_proj.bias.copy_(inputs["b_o"])
    mha.eval()
    kwargs = {"need_weights": True, "average_attn_weights": False}
    if attention_mask is not None:
        kwargs["key_padding_mask"] = attention_mask == 0                 # PyTorch: True = ignore
    if causal:
        T = x.shape[1]
        kwargs["attn_mask"] = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    with torch.no_grad():
        return mha(x, x, x, **kwargs)


def seed004_vectorised(x, inputs, heads):
    """Seed 004's vectorised form (batch of one), which never divides by √d_k."""
    batch_size, D = 1, x.shape[-1]
    views = []
    for name in ("q", "k", "v"):
        vectors = linear_layer(inputs[f"w_{name}"], inputs[f"b_{name}"])(x[0])
        views.append(vectors.view(batch_size, -1, heads, D // heads).transpose(1, 2))
    query_view, key_view, value_view = views
    score = torch.softmax(torch.matmul(query_view, key_view.permute(0, 1, 3, 2)), dim=-1)
    return score


def seed004_per_head_loop(x, inputs, heads):
    """Seed 004's loop over heads (batch of one), with the scale; returns the concatenated heads."""
    D = x.shape[-1]
    d_k = D // heads
    views = [linear_layer(inputs[f"w_{n}"], inputs[f"b_{n}"])(x[0]).view(1, -1, heads, d_k).transpose(1, 2)
             for n in ("q", "k", "v")]
    outputs = []
    for head in range(heads):
        q, k, v = (view[0, head, ...] for view in views)
        weights = torch.softmax(torch.matmul(q, k.permute(1, 0)) / math.sqrt(d_k), dim=-1)
        outputs.append(torch.matmul(weights, v))
    return torch.stack([torch.cat([out[i] for out in outputs]) for i in range(x.shape[1])]).unsqueeze(0)


def close(a, b):
    return torch.allclose(a, b, atol=1e-5, rtol=1e-5)


def compute(example, inputs):
    heads = int(inputs["heads"].item())
    out = {}
    with torch.no_grad():
        x = inputs["x"]
        steps = multi_head(x, inputs, heads)
        out.update(steps)
        torch_output, torch_weights = torch_mha(x, inputs, heads)
        assert close(torch_output, steps["output"]) and close(torch_weights, steps["weights"])
        seed = SeedMultiHeadedAttention(heads, x.shape[-1]).to(x.dtype)
        for name in ("query", "key", "value"):
            getattr(seed, name).load_state_dict(linear_layer(inputs[f"w_{name[0]}"], inputs[f"b_{name[0]}"]).state_dict())
        seed_context, seed_weights = seed(x, x, x)
        assert close(seed_context, steps["context"]) and close(seed_weights, steps["weights"])

        loop_context = seed004_per_head_loop(x, inputs, heads)
        assert close(loop_context, steps["context"])
        out["weights_per_head"] = steps["weights"]
        out["output_per_head"] = linear_layer(inputs["w_o"], inputs["b_o"])(loop_context)

        unscaled = multi_head(x, inputs, heads, scale=False)
        assert close(seed004_vectorised(x, inputs, heads), unscaled["weights"])
        out["weights_unscaled"] = unscaled["weights"]
        out["output_unscaled"] = unscaled["output"]

        batch, mask = inputs["batch"], inputs["attention_mask"]
        padded = multi_head(batch, inputs, heads, attention_mask=mask)
        torch_output, torch_weights = torch_mha(batch, inputs, heads, attention_mask=mask)
        assert close(torch_output, padded["output"]) and close(torch_weights, padded["weights"])
        out["batch_weights"] = padded["weights"]
        out["batch_output"] = padded["output"]
        out["seed000_batch_weights"] = seed(batch, batch, batch, mask=mask)[1]   # the unsqueeze(1) trap

        left, left_mask = inputs["batch_left"], inputs["attention_mask_left"]
        causal = multi_head(left, inputs, heads, attention_mask=left_mask, causal=True)
        torch_output, torch_weights = torch_mha(left, inputs, heads, attention_mask=left_mask, causal=True)
        # Where every key of a query is hidden, torch.nn.MultiheadAttention returns NaN; elsewhere it agrees.
        no_key = torch.stack([torch.stack([~((left_mask[b] == 1) & (torch.arange(left.shape[1]) <= t)).any()
                                           for t in range(left.shape[1])]) for b in range(left.shape[0])])
        assert torch.isnan(torch_output[no_key]).all() and close(torch_output[~no_key], causal["output"][~no_key])
        out["left_weights"] = causal["weights"]
        out["left_output"] = causal["output"]
    return out
