#!/usr/bin/python3
"""Regenerate tests/data/generation/: grouped-query attention, the KV cache and greedy decoding (lesson 9).

Each case is a folder tests/data/generation/KIND-CASE/ with in/<name>.npy, expected/<name>.npy and
options.txt (key=value lines), the layout of tests/data/compute. The expected values are computed
here as PyTorch users write them, independently of attn:

- gqa: multi-head attention with g < h K/V heads written out by hand, the K/V heads shared with
  torch.repeat_interleave on the head axis (Hugging Face's repeat_kv); g = 1 is multi-query;
- cache: causal attention over the whole sequence at once (the mask torch.triu(ones(T, T), 1)),
  which the cache, filled token by token or a few tokens at a time, must reproduce row by row;
- greedy: a seeded tiny decoder — nn.Embedding scaled by √D plus the sinusoidal table,
  nn.TransformerDecoder with its final norm, nn.Linear(D, V) as the generator — decoded greedily
  by re-running the whole prefix at every step, as nn.TransformerDecoder offers (no cache).

Seeded, in float64: running it twice writes the same files.

    /usr/bin/python3 tools/make_generation_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import math
import pathlib
import sys

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_compute_fixtures as compute  # noqa: E402  (the one writer of a case folder)
from make_positions_fixtures import annotated_positional_encoding  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "generation"


def save_case(name, inputs, outputs, options):
    compute.save_case(name, inputs, outputs, out=OUT)
    compute.save_options(name, out=OUT, **options)


def causal_mask(T, S):
    """-inf above the diagonal, aligned bottom-right: query t sees keys 0 … t + S − T."""
    return torch.triu(torch.full((T, S), float("-inf"), dtype=torch.float64), S - T + 1)


def grouped_query_attention(query, key, value, w, heads, kv_heads, causal):
    """Multi-head attention with kv_heads K/V heads, by hand: (B, T, D) in, every intermediate out."""
    B, T, D = query.shape
    S, d_k, n_rep = key.shape[1], D // heads, heads // kv_heads
    q = query @ w["w_q"].T + w["b_q"]
    k = key @ w["w_k"].T + w["b_k"]
    v = value @ w["w_v"].T + w["b_v"]
    q_heads = q.view(B, T, heads, d_k).transpose(1, 2)
    k_heads = k.view(B, S, kv_heads, d_k).transpose(1, 2)
    v_heads = v.view(B, S, kv_heads, d_k).transpose(1, 2)
    k_shared = torch.repeat_interleave(k_heads, n_rep, dim=1)  # Hugging Face's repeat_kv
    v_shared = torch.repeat_interleave(v_heads, n_rep, dim=1)
    scores = q_heads @ k_shared.transpose(-2, -1) / math.sqrt(d_k)
    if causal:
        scores = scores + causal_mask(T, S)
    weights = torch.softmax(scores, dim=-1)
    context = (weights @ v_shared).transpose(1, 2).reshape(B, T, D)
    output = context @ w["w_o"].T + w["b_o"]
    return {"k_heads": k_heads, "v_heads": v_heads, "weights": weights, "context": context, "output": output}


def gqa_cases(generator):
    def randn(*shape):
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    cases = {"h4-g2-cross": (4, 2, 3, 5, False), "h4-g2-causal": (4, 2, 5, 5, True),
             "h4-g1-multi-query": (4, 1, 3, 4, False), "h4-g4-ordinary": (4, 4, 3, 4, True)}
    D, B = 8, 2
    for case, (heads, kv_heads, T, S, causal) in cases.items():
        kv_width = kv_heads * D // heads
        w = {"w_q": randn(D, D), "b_q": randn(D), "w_k": randn(kv_width, D), "b_k": randn(kv_width),
             "w_v": randn(kv_width, D), "b_v": randn(kv_width), "w_o": randn(D, D), "b_o": randn(D)}
        query = randn(B, T, D)
        key = query if causal else randn(B, S, D)
        value = query if causal else randn(B, S, D)
        expected = grouped_query_attention(query, key, value, w, heads, kv_heads, causal)
        save_case(f"gqa-{case}", {"query": query, "key": key, "value": value, **w}, expected,
                  {"heads": heads, "kv_heads": kv_heads, "causal": int(causal)})


def cache_cases(generator):
    """q (B, h, T, d_k), k and v (B, g, T, d_k): causal attention over all T positions at once."""
    for heads, kv_heads in ((4, 2), (4, 1), (2, 2)):
        B, T, d_k = 2, 6, 3
        q = torch.randn(B, heads, T, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(B, kv_heads, T, d_k, generator=generator, dtype=torch.float64)
        v = torch.randn(B, kv_heads, T, d_k, generator=generator, dtype=torch.float64)
        n_rep = heads // kv_heads
        scores = q @ torch.repeat_interleave(k, n_rep, dim=1).transpose(-2, -1) / math.sqrt(d_k)
        weights = torch.softmax(scores + causal_mask(T, T), dim=-1)
        context = weights @ torch.repeat_interleave(v, n_rep, dim=1)
        save_case(f"cache-h{heads}-g{kv_heads}", {"q": q, "k": k, "v": v},
                  {"scores": scores, "weights": weights, "context": context}, {"heads": heads, "kv_heads": kv_heads})


def greedy_without_cache(embedding, decoder, generator_layer, memory, start_id, stop_id, max_tokens):
    """The whole prefix re-run at every step; the last position's logits pick the next id."""
    D = embedding.weight.shape[1]
    ids, logits = [start_id], []
    for _ in range(max_tokens):
        prefix = torch.tensor([ids], dtype=torch.int64)
        T = prefix.shape[1]
        x = embedding(prefix) * math.sqrt(D) + annotated_positional_encoding(T, D)
        out = decoder(x, memory, tgt_mask=nn.Transformer.generate_square_subsequent_mask(T).double())
        step_logits = generator_layer(out[:, -1])[0]
        top2 = torch.topk(step_logits, 2).values
        assert top2[0] - top2[1] > 1e-6, "a near tie would make the greedy choice fragile"
        logits.append(step_logits)
        ids.append(int(torch.argmax(step_logits)))
        if ids[-1] == stop_id:
            break
    return torch.tensor(ids[1:], dtype=torch.int64), torch.stack(logits)


def greedy_cases():
    cases = {"post-norm": (False, "relu", 11), "norm-first-gelu": (True, "gelu", 12)}
    V, D, heads, F, layers, S = 10, 8, 2, 16, 2, 5
    for case, (norm_first, activation, seed) in cases.items():
        torch.manual_seed(seed)
        embedding = nn.Embedding(V, D).double()
        layer = nn.TransformerDecoderLayer(D, heads, F, dropout=0.0, activation=activation, batch_first=True,
                                           norm_first=norm_first)
        decoder = nn.TransformerDecoder(layer, layers, norm=nn.LayerNorm(D)).double().eval()
        generator_layer = nn.Linear(D, V).double()
        memory = torch.randn(1, S, D, dtype=torch.float64)
        start_id, max_tokens = 1, 8
        with torch.no_grad():
            ids, _ = greedy_without_cache(embedding, decoder, generator_layer, memory, start_id, -1, max_tokens)
            # The stop id: the first token that first appears third or later (so decoding stops
            # early, after a few steps), and one never generated (so it runs to max_tokens).
            generated = ids.tolist()
            stops = {"stop": next(i for i in generated if generated.index(i) >= 2),
                     "max": next(i for i in range(V) if i not in generated)}
            state = {f"decoder.{k}": t for k, t in decoder.state_dict().items()}
            weights = {"embedding.weight": embedding.weight, "generator.weight": generator_layer.weight,
                       "generator.bias": generator_layer.bias, **state, "memory": memory}
            for ending, stop_id in stops.items():
                ids, logits = greedy_without_cache(embedding, decoder, generator_layer, memory, start_id, stop_id,
                                                   max_tokens)
                save_case(f"greedy-{case}-{ending}", weights, {"ids": ids, "logits": logits},
                          {"heads": heads, "layers": layers, "norm_first": int(norm_first),
                           "activation": activation, "start_id": start_id, "stop_id": stop_id,
                           "max_tokens": max_tokens})


if __name__ == "__main__":
    generator = torch.Generator().manual_seed(28)
    gqa_cases(generator)
    cache_cases(generator)
    greedy_cases()
