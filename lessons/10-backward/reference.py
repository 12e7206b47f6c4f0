"""PyTorch reference for lesson 10 (the backward pass).

Every gradient here comes from torch.autograd in float64, never from a formula of the lesson:
  · "softmax": the softmax's Jacobian (torch.autograd.functional.jacobian) at p = softmax(log p),
    and the gradient of the scores for an upstream gradient dp (torch.autograd.grad);
  · "main" and "masked": softmax(Q Kᵀ / √d_k + mask) V written out in PyTorch, and the gradients
    of Q, K, V and of the intermediates P (weights) and S (scores) for an upstream gradient dO.
A query whose keys are all hidden gets zero weights (the library's policy): the softmax is written
as visible · e^(s − max) / Σ, with the sum of an all-hidden row replaced by 1, so that autograd
differentiates the policy itself rather than a NaN.

Plain torch only, never the attn library."""
import math

import torch


def softmax_example(inputs):
    p, dp = inputs["p"], inputs["dp"]  # (1, S) each
    s = torch.log(p).requires_grad_(True)
    weights = torch.softmax(s, dim=-1)
    jacobian = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, dim=-1), s[0].detach())
    (ds,) = torch.autograd.grad(weights, s, dp)
    return {"weights": weights.detach(), "jacobian": jacobian, "ds_from_jacobian": dp @ jacobian, "ds": ds}


def masked_softmax(scores, visible):
    """Softmax over the last axis of the visible keys only; an all-hidden row is all zeros."""
    shifted = scores - scores.max(dim=-1, keepdim=True).values.detach()
    exps = torch.exp(shifted) * visible
    total = exps.sum(dim=-1, keepdim=True)
    return exps / torch.where(total > 0, total, torch.ones_like(total))


def attention_example(inputs):
    Q, K, V, dO = (inputs[name].clone().requires_grad_(True) for name in ("Q", "K", "V", "dO"))
    B, T, S = Q.shape[0], Q.shape[1], K.shape[1]
    visible = torch.ones(B, 1, S, dtype=Q.dtype)
    if "attention_mask" in inputs:
        visible = inputs["attention_mask"].reshape(B, 1, S)
    scores = torch.bmm(Q, K.transpose(1, 2)) / math.sqrt(Q.shape[-1])
    weights = masked_softmax(scores, visible)
    output = torch.bmm(weights, V)
    dQ, dK, dV, dP, dS = torch.autograd.grad(output, (Q, K, V, weights, scores), dO.detach(), retain_graph=True)
    out = {"weights": weights, "output": output, "dV": dV, "dP": dP, "dS": dS, "dQ": dQ, "dK": dK}
    # The property: the gradient of sum(output) with respect to V, and the column sums of P.
    (dV_of_sum,) = torch.autograd.grad(output.sum(), V)
    out.update({"dV_of_sum": dV_of_sum, "column_sums": weights.sum(dim=1)})
    # Way 1 is the program's finite differences; what they must approach is autograd's gradient.
    out.update({"fd_dQ": dQ, "fd_dK": dK, "fd_dV": dV})
    # FlashAttention's D: the output's side of rowsum(dP ∘ P).
    out.update({"rowsum_dP_P": (dP * weights).sum(dim=-1), "D": (dO * output).sum(dim=-1)})
    if "query_tile" in inputs:
        # FlashAttention's backward recomputes P from L; whatever its tiles, it is the same gradient.
        out.update({"logsumexp": torch.logsumexp(scores, dim=-1), "tiled_D": (dO * output).sum(dim=-1),
                    "tiled_dQ": dQ, "tiled_dK": dK, "tiled_dV": dV})
    return {name: tensor.detach() for name, tensor in out.items()}


def linear_example(inputs):
    x, weight = (inputs[name].clone().requires_grad_(True) for name in ("x", "weight"))
    bias = torch.zeros(weight.shape[0], dtype=x.dtype, requires_grad=True)
    y = torch.nn.functional.linear(x, weight, bias)
    dX, dW, db = torch.autograd.grad(y, (x, weight, bias), inputs["dY"])
    return {"dX": dX, "dW": dW, "db": db}


def layer_norm_example(inputs):
    x, gamma = (inputs[name].clone().requires_grad_(True) for name in ("x", "gamma"))
    beta = torch.zeros_like(gamma, requires_grad=True)
    y = torch.nn.functional.layer_norm(x, gamma.shape, gamma, beta, eps=1e-5)
    dx, dgamma, dbeta = torch.autograd.grad(y, (x, gamma, beta), inputs["dy"])
    return {"dx": dx, "dgamma": dgamma, "dbeta": dbeta}


LAYER_PARAMETERS = ("w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o")


def layer_example(inputs):
    """Self-attention of x through a multi-head layer written out in PyTorch, with the gradient of
    every intermediate kept (retain_grad) for an upstream gradient doutput; checked against
    nn.MultiheadAttention's own autograd on the same parameters."""
    x = inputs["x"].clone().requires_grad_(True)
    p = {name: inputs[name].clone().requires_grad_(True) for name in LAYER_PARAMETERS}
    heads = int(inputs["heads"][0])
    B, T, D = x.shape
    d_k = D // heads

    def split(t):  # (B, T, D) → (B, h, T, d_k)
        return t.view(B, T, heads, d_k).transpose(1, 2)

    q, k, v = (torch.nn.functional.linear(x, p["w_" + n], p["b_" + n]) for n in "qkv")
    q_heads, k_heads, v_heads = split(q), split(k), split(v)
    weights = torch.softmax(q_heads @ k_heads.transpose(-1, -2) / math.sqrt(d_k), dim=-1)
    context_heads = weights @ v_heads
    context = context_heads.transpose(1, 2).reshape(B, T, D)
    output = torch.nn.functional.linear(context, p["w_o"], p["b_o"])
    kept = {"q": q, "k": k, "v": v, "q_heads": q_heads, "k_heads": k_heads, "v_heads": v_heads,
            "context_heads": context_heads, "context": context}
    for tensor in kept.values():
        tensor.retain_grad()
    output.backward(inputs["doutput"])
    out = {"d" + name: tensor.grad for name, tensor in kept.items()}
    out["dx"] = x.grad
    out.update({"dW" + name[1:] if name[0] == "w" else "db" + name[1:]: p[name].grad for name in LAYER_PARAMETERS})

    # The same layer as nn.MultiheadAttention: its autograd must give the same gradients.
    module = torch.nn.MultiheadAttention(D, heads, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        module.in_proj_weight.copy_(torch.cat([inputs["w_q"], inputs["w_k"], inputs["w_v"]]))
        module.in_proj_bias.copy_(torch.cat([inputs["b_q"], inputs["b_k"], inputs["b_v"]]))
        module.out_proj.weight.copy_(inputs["w_o"])
        module.out_proj.bias.copy_(inputs["b_o"])
    x_module = inputs["x"].clone().requires_grad_(True)
    module(x_module, x_module, x_module, need_weights=False)[0].backward(inputs["doutput"])
    in_proj = torch.cat([out["dW_q"], out["dW_k"], out["dW_v"]])
    for ours, theirs in ((in_proj, module.in_proj_weight.grad), (out["dW_o"], module.out_proj.weight.grad),
                         (out["dx"], x_module.grad)):
        assert torch.allclose(ours, theirs, rtol=0, atol=1e-12), (ours, theirs)

    # The finite differences are the program's own measurement, not PyTorch's: what the reference
    # states is that they agree with the backward, relative error 0 within the block's atol.
    out["fd_relative_error"] = torch.zeros(1 + len(LAYER_PARAMETERS), dtype=torch.float64)
    return {name: tensor.detach() for name, tensor in out.items()}


def compute(example, inputs):
    if example == "layer":
        return layer_example(inputs)
    if example == "softmax":
        return softmax_example(inputs)
    if example == "linear":
        return linear_example(inputs)
    if example == "layer_norm":
        return layer_norm_example(inputs)
    return attention_example(inputs)
