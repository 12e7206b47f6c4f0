"""Building blocks the PyTorch references share: plain torch, never the attn library."""
import torch
import torch.nn as nn


def linear_layer(weight, bias=None):
    """An nn.Linear holding the given weight (out, in) and, if given, bias."""
    out_features, in_features = weight.shape
    layer = nn.Linear(in_features, out_features, bias=bias is not None).to(weight.dtype)
    with torch.no_grad():
        layer.weight.copy_(weight)
        if bias is not None:
            layer.bias.copy_(bias)
    return layer
