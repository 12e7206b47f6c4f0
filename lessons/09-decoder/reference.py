"""PyTorch reference for lesson 9 (the Transformer decoder).

The worked decoder layer step by step with torch.nn.TransformerDecoderLayer's own sub-modules
(self_attn, multihead_attn, linear1/2, norm1/2/3), checked against the module's forward with a
causal tgt_mask and, for the padded memory, a memory_key_padding_mask; the same layer pre-norm;
two copies of it in a torch.nn.TransformerDecoder with a final norm, as torch.nn.Transformer
builds its decoder; and lesson 1's decoder state attending over its encoder outputs written as a
cross-attention of one query (torch.nn.functional.scaled_dot_product_attention does not exist in
PyTorch 1.13, so the softmax is written out).

Everything runs in float64 and is printed as float32."""
import numpy as np
import torch
import torch.nn.functional as F
from seeded import seeded_uniform

SELF_ATTENTION = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")


def load_attention(module, inputs, prefix):
    """nn.MultiheadAttention's packed in_proj from the document's w_q, w_k, w_v (out, in) and biases."""
    get = lambda name: inputs[prefix + name]
    module.in_proj_weight.copy_(torch.cat([get("w_q"), get("w_k"), get("w_v")]))
    module.in_proj_bias.copy_(torch.cat([get("b_q"), get("b_k"), get("b_v")]))
    module.out_proj.weight.copy_(get("w_o"))
    module.out_proj.bias.copy_(get("b_o"))


def make_layer(inputs, heads, norm_first=False):
    D = inputs["tgt"].shape[-1]
    F_ = inputs["linear1_weight"].shape[0]
    layer = torch.nn.TransformerDecoderLayer(D, heads, F_, dropout=0.0, batch_first=True,
                                             norm_first=norm_first).double()
    with torch.no_grad():
        load_attention(layer.self_attn, inputs, "")
        load_attention(layer.multihead_attn, inputs, "cross_")
        for name in ("norm1_weight", "norm1_bias", "norm2_weight", "norm2_bias", "norm3_weight",
                     "norm3_bias", "linear1_weight", "linear1_bias", "linear2_weight", "linear2_bias"):
            module, parameter = name.rsplit("_", 1)
            getattr(getattr(layer, module), parameter).copy_(inputs[name])
    return layer.eval()


def causal_mask(T):
    """nn.Transformer.generate_square_subsequent_mask(T): −∞ above the diagonal, 0 elsewhere."""
    return torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), diagonal=1)


def decoder_steps(layer, tgt, memory, padding=None, norm_first=False):
    """Every intermediate, from the layer's own sub-modules. padding: memory_key_padding_mask
    (True = ignore), the negation of the document's memory_attention_mask (1 = attend)."""
    T = tgt.shape[1]
    mask = causal_mask(T)
    with torch.no_grad():
        sa_input = layer.norm1(tgt) if norm_first else tgt
        sa_output, sa_weights = layer.self_attn(sa_input, sa_input, sa_input, attn_mask=mask,
                                                need_weights=True, average_attn_weights=False)
        after_sa = tgt + sa_output if norm_first else layer.norm1(tgt + sa_output)
        ca_input = layer.norm2(after_sa) if norm_first else after_sa
        ca_output, ca_weights = layer.multihead_attn(ca_input, memory, memory, key_padding_mask=padding,
                                                     need_weights=True, average_attn_weights=False)
        after_ca = after_sa + ca_output if norm_first else layer.norm2(after_sa + ca_output)
        ffn_input = layer.norm3(after_ca) if norm_first else after_ca
        ffn_output = layer.linear2(F.relu(layer.linear1(ffn_input)))
        output = after_ca + ffn_output if norm_first else layer.norm3(after_ca + ffn_output)
        forward = layer(tgt, memory, tgt_mask=mask, memory_key_padding_mask=padding)
        assert torch.allclose(output, forward, atol=1e-10), "step-by-step and module forward disagree"
    return {"self_attention_weights": sa_weights, "self_attention_output": sa_output,
            "after_self_attention": after_sa, "cross_attention_weights": ca_weights,
            "cross_attention_output": ca_output, "after_cross_attention": after_ca,
            "ffn_output": ffn_output, "output": output}


def worked_layer(inputs):
    tgt, memory = inputs["tgt"], inputs["memory"]
    layer = make_layer(inputs, 2)
    out = decoder_steps(layer, tgt, memory)
    padding = inputs["memory_attention_mask"] == 0
    padded = decoder_steps(layer, tgt, memory, padding)
    out["padded_cross_attention_weights"] = padded["cross_attention_weights"]
    out["padded_output"] = padded["output"]
    prenorm = make_layer(inputs, 2, norm_first=True)
    out["prenorm_output"] = decoder_steps(prenorm, tgt, memory, norm_first=True)["output"]
    # nn.Transformer's decoder: N = 2 copies of the (post-norm) layer, then decoder.norm, a fresh
    # nn.LayerNorm(D) (weight 1, bias 0).
    with torch.no_grad():
        final_norm = torch.nn.LayerNorm(tgt.shape[-1], eps=1e-5).double()
        mask = causal_mask(tgt.shape[1])
        stacked = final_norm(layer(layer(tgt, memory, tgt_mask=mask), memory, tgt_mask=mask))
        decoder = torch.nn.TransformerDecoder(layer, 2, norm=final_norm).double().eval()
        assert torch.allclose(decoder(tgt, memory, tgt_mask=mask), stacked, atol=1e-10)
        out["decoder_output"] = stacked
    return out


def one_query(inputs):
    """Lesson 1 as cross-attention: the decoder state is the one query (T = 1), the encoder outputs
    are the keys and the values, no projection and no scaling (lesson 1's dot product)."""
    query = inputs["decoder_state"]                  # (B, 1, H)
    memory = inputs["encoder_outputs"]               # (B, S, H)
    scores = query @ memory.transpose(1, 2)          # (B, 1, S)
    weights = torch.softmax(scores, dim=-1)
    return {"one_query_scores": scores, "one_query_weights": weights, "one_query_context": weights @ memory}


def heads(x, h):
    """(B, T, D) → (B, h, T, d_k)."""
    B, T, D = x.shape
    return x.view(B, T, h, D // h).transpose(1, 2)


def attend(q, k, v, causal_offset=None):
    """softmax(q kᵀ / √d_k) v per head; causal_offset c hides key s from query t when s > t + c
    (c = S − T: bottom-right, c = 0: top-left)."""
    scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
    if causal_offset is not None:
        T, S = scores.shape[-2:]
        hidden = torch.ones(T, S, dtype=torch.bool).triu(1 + causal_offset)
        scores = scores.masked_fill(hidden, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights, weights @ v


def kv_cache(inputs, h=2):
    """Step 10: the self-attention sub-layer fed one token at a time, each step projecting only the
    new token, appending its key and value to the cache and attending over the whole cache;
    against torch.nn.MultiheadAttention on the whole sequence with the causal mask."""
    x = inputs["sequence"]
    B, T, D = x.shape
    project = lambda name: x @ inputs["w_" + name].T + inputs["b_" + name]
    q, k, v = (heads(project(n), h) for n in "qkv")
    contexts, step_weights = [], []
    for t in range(T):                       # the cache holds keys and values 0 … t
        weights, context = attend(q[:, :, t:t + 1], k[:, :, :t + 1], v[:, :, :t + 1])
        contexts.append(context)
        step_weights.append(weights)
    merged = torch.cat(contexts, dim=2).transpose(1, 2).reshape(B, T, D)
    cached = merged @ inputs["w_o"].T + inputs["b_o"]
    layer = make_layer({**inputs, "tgt": x}, h)
    with torch.no_grad():
        full, full_weights = layer.self_attn(x, x, x, attn_mask=causal_mask(T), need_weights=True,
                                             average_attn_weights=False)
    assert torch.allclose(cached, full, atol=1e-12)
    # Two new tokens at once over a cache of four: the last two queries, bottom-right aligned.
    two, _ = attend(q[:, :, T - 2:], k, v, causal_offset=2)
    top_left, _ = attend(q[:, :, T - 2:], k, v, causal_offset=0)
    assert torch.allclose(two, full_weights[:, :, T - 2:])
    return {"cache_step2_weights": step_weights[2], "cache_keys": k, "cached_output": cached,
            "causal_output": full, "two_new_weights": two, "top_left_weights": top_left}


def cache_sizes(sizes):
    """Step 12: 2 (keys and values) · layers · K/V heads · d_k · bytes per value, per token."""
    return {"cache_bytes_per_token": sizes.prod(dim=1) * 2}


def grouped_query(inputs):
    """Step 13: 4 query heads over 2 K/V heads. Query heads 2j and 2j + 1 share K/V head j
    (repeat_interleave, Hugging Face's repeat_kv); repeat (tiling) pairs heads 1 and 2 wrongly."""
    q, k, v = inputs["q"], inputs["k"], inputs["v"]
    n_rep = q.shape[1] // k.shape[1]
    shared_weights, shared = attend(q, k.repeat_interleave(n_rep, dim=1), v.repeat_interleave(n_rep, dim=1))
    tiled_weights, tiled = attend(q, k.repeat(1, n_rep, 1, 1), v.repeat(1, n_rep, 1, 1))
    return {"gqa_weights": shared_weights, "gqa_context": shared,
            "tiled_weights": tiled_weights, "tiled_context": tiled}


# The full-size layer's tensors in the order they are drawn: (name, shape in letters, bound,
# center). As lesson 6's: inputs uniform in (−1, 1), linear weights and biases in ±1/√(input
# width), norm weights in 1 ± 0.2 and norm biases in ±0.2; cross-attention after self-attention.
ATTENTION = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")
FULL_SIZE_TENSORS = (
    (("tgt", "BTD", "1", 0.0), ("memory", "BSD", "1", 0.0))
    + tuple((name, "DD" if name.startswith("w") else "D", "1/sqrt(D)", 0.0) for name in ATTENTION)
    + tuple(("cross_" + name, "DD" if name.startswith("w") else "D", "1/sqrt(D)", 0.0) for name in ATTENTION)
    + tuple((f"norm{i}_{p}", "D", "0.2", 1.0 if p == "weight" else 0.0)
            for i in (1, 2, 3) for p in ("weight", "bias"))
    + (("linear1_weight", "FD", "1/sqrt(D)", 0.0), ("linear1_bias", "F", "1/sqrt(D)", 0.0),
       ("linear2_weight", "DF", "1/sqrt(F)", 0.0), ("linear2_bias", "D", "1/sqrt(F)", 0.0))
)


def full_size_layer(sizes, seed):
    """nn.TransformerDecoderLayer(D, h, F) at the paper's size with seeded weights, causal tgt_mask."""
    B, T, S, D, h, F_ = (int(v) for v in sizes.tolist())
    letters = {"B": B, "T": T, "S": S, "D": D, "F": F_}
    bounds = {"1": 1.0, "0.2": 0.2, "1/sqrt(D)": 1.0 / np.sqrt(D), "1/sqrt(F)": 1.0 / np.sqrt(F_)}
    generator = np.random.RandomState(int(seed.item()))
    inputs = {name: seeded_uniform(generator, tuple(letters[c] for c in shape), bounds[bound], center)
              for name, shape, bound, center in FULL_SIZE_TENSORS}
    steps = decoder_steps(make_layer(inputs, h), inputs["tgt"], inputs["memory"])
    output = steps["output"]
    return {"full_cross_head0_weights": steps["cross_attention_weights"][:, 0],  # (B, T, S): head 0
            "full_output_head": output[:, :, :6],                              # (B, T, 6)
            "full_output_norm": output.norm(dim=-1)}                           # (B, T)


def sinusoidal_positions(T, D):
    """The Transformer's table: PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = the cosine."""
    position = torch.arange(T, dtype=torch.float64)[:, None]
    frequency = 10000.0 ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)
    table = torch.zeros(T, D, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


def greedy_decoding(inputs):
    """Step 13: the worked layer as a one-layer nn.TransformerDecoder with a final norm (weight 1,
    bias 0), token ids embedded (× √D) plus the sinusoidal table, a generator nn.Linear(D, V); the
    whole prefix re-run at every step, the last position's argmax appended until the stop id."""
    embedding, memory = inputs["embedding"], inputs["memory"]
    D = embedding.shape[1]
    start, stop, max_tokens = (int(inputs[name].item()) for name in ("start_id", "stop_id", "max_tokens"))
    decoder = torch.nn.TransformerDecoder(make_layer(inputs, 2), 1,
                                          norm=torch.nn.LayerNorm(D, eps=1e-5).double()).eval()
    ids, logits = [start], []
    with torch.no_grad():
        while len(ids) - 1 < max_tokens:
            x = embedding[ids] * D ** 0.5 + sinusoidal_positions(len(ids), D)
            hidden = decoder(x[None], memory, tgt_mask=causal_mask(len(ids)))[0, -1]
            logits.append(hidden @ inputs["generator_weight"].T + inputs["generator_bias"])
            ids.append(int(logits[-1].argmax()))
            if ids[-1] == stop:
                break
    # The ids as float64, as the lesson program returns every tensor: printed "2.", not "2".
    return {"generated_ids": torch.tensor(ids[1:], dtype=torch.float64), "step_logits": torch.stack(logits)}


def compute(example, inputs):
    inputs = {name: tensor.double() for name, tensor in inputs.items()}
    if "decoder_state" in inputs:
        return one_query(inputs)
    if "sizes" in inputs:
        return full_size_layer(inputs["sizes"], inputs["seed"])
    if "cache_sizes" in inputs:
        return cache_sizes(inputs["cache_sizes"])
    if "k" in inputs:
        return grouped_query(inputs)
    out = worked_layer(inputs)
    if "sequence" in inputs:
        out.update(kv_cache(inputs))
    if "embedding" in inputs:
        out.update(greedy_decoding(inputs))
    return out
