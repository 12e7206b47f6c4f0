"""PyTorch reference for lesson 7 (attention at scale: the online softmax).

Two independent computations of the same attention:
  · the standard one, lesson 4's formula in PyTorch: softmax(Q Kᵀ / √d_k + causal mask) V, which
    holds every (T, S) score and weight at once;
  · the online recurrence of Milakov & Gimelshein (2018), in plain Python floats and math.exp —
    no tensor operations, so that nothing of PyTorch's softmax leaks into it: keys walked in tiles,
    for each query a running maximum m, a running sum l and an unnormalised accumulator, rescaled
    by e^(m_old − m_new) when m grows, divided by l once at the end.
The two must agree to 1e-12 (asserted); the lesson prints the recurrence's trace (m, l, the rescale
factors and the accumulator after each tile).

Plain torch and Python only, never the attn library."""
import math

import torch


def standard_attention(Q, K, V, causal):
    """Lesson 4's formula with the whole (B, T, S) grid: scores, masked scores, weights, output."""
    T, S = Q.shape[1], K.shape[1]
    scores = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(Q.shape[-1])
    masked_scores = scores
    if causal:  # top-left: torch.triu(ones(T, S), 1) hidden
        masked_scores = scores + torch.triu(torch.full((T, S), float("-inf"), dtype=Q.dtype), diagonal=1)
    weights = torch.softmax(masked_scores, dim=-1)
    return scores, masked_scores, weights, torch.bmm(weights, V)


def online_attention(Q, K, V, query_tile, key_tile, causal):
    """The online softmax on nested Python lists. Returns the output (B, T, d_v) as lists and the
    trace: one dict per (batch item, query tile, key tile) with the tile's queries and keys,
    whether it was skipped, and after the tile: rescale, exponentials, m, l, accumulator."""
    B, T, d_k = len(Q), len(Q[0]), len(Q[0][0])
    S, d_v = len(K[0]), len(V[0][0])
    scale = 1.0 / math.sqrt(d_k)
    output = [[[0.0] * d_v for _ in range(T)] for _ in range(B)]
    trace = []
    for b in range(B):
        for first_query in range(0, T, query_tile):
            queries = list(range(first_query, min(first_query + query_tile, T)))
            m = [float("-inf")] * len(queries)
            l = [0.0] * len(queries)
            acc = [[0.0] * d_v for _ in queries]
            for first_key in range(0, S, key_tile):
                keys = list(range(first_key, min(first_key + key_tile, S)))
                # The tile's first key in the future of its last query: nothing in it is visible.
                skipped = causal and keys[0] > queries[-1]
                rescale = [1.0] * len(queries)
                exponentials = [[0.0] * len(keys) for _ in queries]
                if not skipped:
                    for i, t in enumerate(queries):
                        visible = [s for s in keys if not (causal and s > t)]
                        score = {s: scale * sum(Q[b][t][x] * K[b][s][x] for x in range(d_k)) for s in visible}
                        m_new = max([m[i]] + list(score.values()))
                        rescale[i] = 0.0 if m[i] == float("-inf") else math.exp(m[i] - m_new)
                        l[i] *= rescale[i]
                        acc[i] = [a * rescale[i] for a in acc[i]]
                        for j, s in enumerate(keys):
                            if s in score:
                                p = math.exp(score[s] - m_new)
                                exponentials[i][j] = p
                                l[i] += p
                                acc[i] = [a + p * v for a, v in zip(acc[i], V[b][s])]
                        m[i] = m_new
                trace.append({"batch": b, "queries": queries, "keys": keys, "skipped": skipped,
                              "rescale": list(rescale), "exponentials": exponentials,
                              "m": list(m), "l": list(l), "acc": [list(row) for row in acc]})
            for i, t in enumerate(queries):
                output[b][t] = [a / l[i] if l[i] != 0.0 else 0.0 for a in acc[i]]
    return output, trace


def count(inputs, name):
    return int(inputs[name].reshape(-1)[0])


def compute(example, inputs):
    Q, K, V = inputs["Q"], inputs["K"], inputs["V"]
    causal = example == "causal"
    query_tile, key_tile = count(inputs, "query_tile"), count(inputs, "key_tile")
    scores, masked_scores, weights, output = standard_attention(Q, K, V, causal)
    online, trace = online_attention(Q.tolist(), K.tolist(), V.tolist(), query_tile, key_tile, causal)
    online = torch.tensor(online, dtype=torch.float64)
    assert torch.allclose(online, output, rtol=0, atol=1e-12), (online, output)
    out = {"scores": scores, "masked_scores": masked_scores, "weights": weights, "output": output, "online_output": online}

    if example == "main":
        # One query: the state after each key tile, and the tile's own exponentials.
        for tile_index, tile in enumerate(trace):
            name = f"tile{tile_index}"
            out[f"exp_{name}"] = torch.tensor([tile["exponentials"]], dtype=torch.float64)   # (B, T, S_tile)
            out[f"rescale_{name}"] = torch.tensor([tile["rescale"]], dtype=torch.float64)    # (B, T)
            out[f"m_{name}"] = torch.tensor([tile["m"]], dtype=torch.float64)
            out[f"l_{name}"] = torch.tensor([tile["l"]], dtype=torch.float64)
            out[f"acc_{name}"] = torch.tensor([tile["acc"]], dtype=torch.float64)            # (B, T, d_v)
        # The second pass that gives the weights back: e^(score − m) / l with the final m and l.
        last = trace[-1]
        out["recomputed_weights"] = torch.exp(masked_scores - last["m"][0]) / last["l"][0]
    else:
        # Many queries: which tiles were computed, how many were skipped, and for each query (a row)
        # the rescale factor, m and l after each key tile (a column); the accumulator after each key
        # tile, one (T, d_v) block per tile.
        B, T, d_v = Q.shape[0], Q.shape[1], V.shape[2]
        query_tiles, key_tiles = -(-T // query_tile), -(-K.shape[1] // key_tile)
        computed = torch.zeros(query_tiles, key_tiles, dtype=torch.float64)
        skipped = torch.zeros(B, dtype=torch.float64)
        per_tile = {name: torch.zeros(B, T, key_tiles, dtype=torch.float64) for name in ("rescale", "m", "l")}
        acc_after_tile = torch.zeros(B, key_tiles, T, d_v, dtype=torch.float64)  # one (T, d_v) block per key tile
        for tile in trace:
            row, column = tile["queries"][0] // query_tile, tile["keys"][0] // key_tile
            computed[row, column] = 0.0 if tile["skipped"] else 1.0
            skipped[tile["batch"]] += 1.0 if tile["skipped"] else 0.0
            for i, t in enumerate(tile["queries"]):
                for name, tensor in per_tile.items():
                    tensor[tile["batch"], t, column] = tile[name][i]
                acc_after_tile[tile["batch"], column, t] = torch.tensor(tile["acc"][i], dtype=torch.float64)
        out.update({"tile_computed": computed, "tiles_skipped": skipped, "rescale_at_tile": per_tile["rescale"],
                    "m_after_tile": per_tile["m"], "l_after_tile": per_tile["l"],
                    "acc_after_tile": acc_after_tile})
    return out
