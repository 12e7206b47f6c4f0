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


def compute(example, inputs):
    if example == "softmax":
        return softmax_example(inputs)
    if example == "linear":
        return linear_example(inputs)
    if example == "layer_norm":
        return layer_norm_example(inputs)
    return attention_example(inputs)
