"""The PyTorch side of the decoding cases of bench/compare_pytorch.py: generating N tokens with a
decoder of L layers over a memory of S positions, in two ways PyTorch 1.13 offers.

  module: nn.TransformerDecoder (dropout 0, batch_first, eval, no_grad) run again on the whole
          prefix at every step, with tgt_mask = generate_square_subsequent_mask(t): the module has
          no cache, so this is how it generates. Step t recomputes every position 0 … t − 1 and the
          memory's keys and values.
  loop:   a hand-written loop keeping its own K/V cache, as a careful PyTorch user would write it:
          torch.no_grad, the module's own weights through F.linear, the memory's keys and values
          projected once per layer, caches preallocated (L, B, h, N, d_k) and filled by index,
          attention as two matmuls per step, F.layer_norm and the activation as the module does.
          Checked against the module: its outputs equal the module's on the prefix to 1e-4.

Both feed each step's output back as the next token, as `attn bench decode` does, and return the
generation's time (min and median over `repeat` generations after one warm-up).
"""
import statistics
import time

import torch
import torch.nn.functional as F


def build(layers, d_model, heads, d_ff, memory_len, batch=1):
    torch.manual_seed(0)
    layer = torch.nn.TransformerDecoderLayer(d_model, heads, d_ff, dropout=0.0, batch_first=True)
    decoder = torch.nn.TransformerDecoder(layer, layers).eval()
    memory = torch.rand(batch, memory_len, d_model)
    first = torch.rand(batch, 1, d_model)
    return decoder, memory, first


def module_generation(decoder, memory, first, tokens):
    """N steps of nn.TransformerDecoder on the whole prefix; returns the outputs (B, N, D)."""
    with torch.no_grad():
        prefix, outputs = first, []
        for t in range(1, tokens + 1):
            mask = torch.nn.Transformer.generate_square_subsequent_mask(t)
            out = decoder(prefix, memory, tgt_mask=mask)[:, -1:]
            outputs.append(out)
            prefix = torch.cat([prefix, out], dim=1)
        return torch.cat(outputs, dim=1)


class CachedLoop:
    """The hand-written loop over the decoder's own weights (post-norm, relu: the bench's shape)."""

    def __init__(self, decoder, memory, tokens):
        layers = decoder.layers
        self.heads = layers[0].self_attn.num_heads
        b, s, d = memory.shape
        self.d_k = d // self.heads
        self.params = []
        with torch.no_grad():
            for layer in layers:
                sa, ca = layer.self_attn, layer.multihead_attn
                w_q, w_k, w_v = ca.in_proj_weight.chunk(3)
                b_q, b_k, b_v = ca.in_proj_bias.chunk(3)
                memory_k = F.linear(memory, w_k, b_k).view(b, s, self.heads, self.d_k).transpose(1, 2).contiguous()
                memory_v = F.linear(memory, w_v, b_v).view(b, s, self.heads, self.d_k).transpose(1, 2).contiguous()
                self.params.append(dict(
                    sa_in=(sa.in_proj_weight, sa.in_proj_bias), sa_out=(sa.out_proj.weight, sa.out_proj.bias),
                    ca_q=(w_q, b_q), ca_out=(ca.out_proj.weight, ca.out_proj.bias), memory_k=memory_k, memory_v=memory_v,
                    linear1=(layer.linear1.weight, layer.linear1.bias), linear2=(layer.linear2.weight, layer.linear2.bias),
                    norms=[(n.weight, n.bias, n.eps) for n in (layer.norm1, layer.norm2, layer.norm3)]))
        self.k_cache = torch.zeros(len(layers), b, self.heads, tokens, self.d_k)
        self.v_cache = torch.zeros(len(layers), b, self.heads, tokens, self.d_k)
        self.scale = self.d_k ** -0.5

    def attend(self, q, keys, values):
        """q (B, h, 1, d_k) over keys, values (B, h, t, d_k)."""
        weights = torch.softmax(torch.matmul(q, keys.transpose(-2, -1)) * self.scale, dim=-1)
        return torch.matmul(weights, values)

    def step(self, x, t):
        """x (B, 1, D) at position t → the stack's output (B, 1, D)."""
        b, _, d = x.shape
        split = lambda y: y.view(b, 1, self.heads, self.d_k).transpose(1, 2)
        merge = lambda y: y.transpose(1, 2).reshape(b, 1, d)
        for i, p in enumerate(self.params):
            (n1w, n1b, eps), (n2w, n2b, _), (n3w, n3b, _) = p["norms"]
            q, k, v = F.linear(x, *p["sa_in"]).chunk(3, dim=-1)
            self.k_cache[i, :, :, t] = split(k)[:, :, 0]
            self.v_cache[i, :, :, t] = split(v)[:, :, 0]
            context = self.attend(split(q), self.k_cache[i, :, :, : t + 1], self.v_cache[i, :, :, : t + 1])
            x = F.layer_norm(x + F.linear(merge(context), *p["sa_out"]), (d,), n1w, n1b, eps)
            context = self.attend(split(F.linear(x, *p["ca_q"])), p["memory_k"], p["memory_v"])
            x = F.layer_norm(x + F.linear(merge(context), *p["ca_out"]), (d,), n2w, n2b, eps)
            x = F.layer_norm(x + F.linear(F.relu(F.linear(x, *p["linear1"])), *p["linear2"]), (d,), n3w, n3b, eps)
        return x

    def generation(self, first, tokens):
        with torch.no_grad():
            x, outputs = first, []
            for t in range(tokens):
                x = self.step(x, t)
                outputs.append(x)
            return torch.cat(outputs, dim=1)


def check_loop(decoder, memory, first, tokens=6):
    """The hand-written loop's outputs equal the module's re-run on the prefix (post-norm, relu)."""
    expected = module_generation(decoder, memory, first, tokens)
    got = CachedLoop(decoder, memory, tokens).generation(first, tokens)
    difference = (expected - got).abs().max().item()
    assert difference < 1e-4, f"the hand-written cached loop differs from nn.TransformerDecoder by {difference}"
    return difference


def timed_generations(generate, repeat, warmup=1):
    for _ in range(warmup):
        generate()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        generate()
        times.append((time.perf_counter() - start) * 1e3)
    return {"min_ms": min(times), "median_ms": statistics.median(times)}


def measure(way, shape, repeat):
    """way 'module' or 'loop'; shape: layers, d_model, heads, d_ff, memory, tokens. The result dict
    of one PyTorch child process."""
    decoder, memory, first = build(shape["layers"], shape["d_model"], shape["heads"], shape["d_ff"], shape["memory"])
    n = shape["tokens"]
    if way == "module":
        # Quadratic in N: one warm-up of a few steps only (it sizes the allocator), then the generations.
        module_generation(decoder, memory, first, 4)
        return timed_generations(lambda: module_generation(decoder, memory, first, n), repeat, warmup=0)
    difference = check_loop(decoder, memory, first)
    loop = CachedLoop(decoder, memory, n)
    result = timed_generations(lambda: loop.generation(first, n), repeat)
    result["check_max_difference"] = difference
    return result
