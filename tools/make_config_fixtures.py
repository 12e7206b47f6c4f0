#!/usr/bin/python3
"""Regenerate tests/data/config/: models whose settings travel with their weights (attn_config).

`attn compute` reads a model's settings (heads, norm_first, activation, eps, norm_eps) from the
member attn_config of its --weights archive: UTF-8 JSON bytes in a uint8 array, written by the
export of docs/bring-your-own-weights.md. This script writes, with PyTorch 1.13 in eval mode:

  encoder/            nn.TransformerEncoder (2 layers, pre-norm, tanh GELU, eps 1e-6, final norm
                      eps 1e-3): model.npz with its config, in/x.npy, expected/output.npy
  encoder-layer/      nn.TransformerEncoderLayer (post-norm, exact GELU), its config and weights
                      saved inside a bigger model: keys "module." + the layer's
  nested/model.npz    the encoder under "model.encoder." next to other parts ("model.embedding.",
                      "lm_head.") and a second encoder under "model.other." (two prefixes fit)
  bad/NAME.npz        the encoder's weights with a malformed or contradicting config

Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_config_fixtures.py
"""
import functools
import json
import pathlib
import shutil

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "config"


def config_member(config):
    """The two-line export's config: json text as a uint8 array."""
    return np.frombuffer(json.dumps(config).encode(), np.uint8)


def raw_member(text):
    return np.frombuffer(text if isinstance(text, bytes) else text.encode(), np.uint8)


def state_of(model, prefix=""):
    return {prefix + k: v.detach().numpy() for k, v in model.state_dict().items()}


def seeded(model):
    with torch.no_grad():  # away from PyTorch's initial values, so that every weight matters
        for parameter in model.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return model.eval()


def encoder_model(norm_first, activation, eps, norm_eps):
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=norm_first,
                                             activation=activation, layer_norm_eps=eps)
    return seeded(torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(8, eps=norm_eps),
                                              enable_nested_tensor=False))


def save_case(name, x, expected):
    folder = OUT / name
    (folder / "in").mkdir(parents=True)
    (folder / "expected").mkdir()
    np.save(folder / "in" / "x.npy", x.numpy())
    np.save(folder / "expected" / "output.npy", expected.detach().numpy())
    return folder


ENCODER_CONFIG = {"heads": 2, "norm_first": True, "activation": "gelu-tanh", "eps": 1e-6, "norm_eps": 1e-3}

# The malformed configs: each refused, naming what is wrong (tests/test_cli_compute_config.cpp).
BAD_CONFIGS = {
    "deep-nesting": '{"heads": ' + "[" * 30000 + "]" * 30000 + "}",
    "too-long": " " * 70000 + "{}",
    "huge-number": '{"heads": 2, "norm_first": true, "activation": "relu", "eps": 1e999}',
    "huge-heads": '{"heads": 99999999999999999999, "norm_first": true, "activation": "relu", "eps": 1e-5}',
    "fractional-heads": '{"heads": 2.5, "norm_first": true, "activation": "relu", "eps": 1e-5}',
    "bad-utf8": b'{"heads": 2, "activation": "gel\xff"}',
    "lone-surrogate": '{"activation": "\\ud800"}',
    "unknown-key": '{"num_heads": 2, "norm_first": true, "activation": "relu", "eps": 1e-5}',
    "escape-in-key": '{"\\u001b[31mred": 1}',
    "control-in-string": '{"activation": "re\x1b[31mlu"}',
    "wrong-type": '{"heads": 2, "norm_first": "true", "activation": "relu", "eps": 1e-5}',
    "unknown-activation": '{"heads": 2, "norm_first": true, "activation": "swish", "eps": 1e-5}',
    "negative-eps": '{"heads": 2, "norm_first": true, "activation": "relu", "eps": -1e-5}',
    "duplicate-key": '{"heads": 2, "heads": 4, "norm_first": true, "activation": "relu", "eps": 1e-5}',
    "trailing-text": '{"heads": 2} x',
    "not-an-object": "[2]",
    "empty": "",
    "missing-eps": '{"heads": 2, "norm_first": true, "activation": "gelu-tanh", "norm_eps": 1e-3}',
    "missing-norm-eps": '{"heads": 2, "norm_first": true, "activation": "gelu-tanh", "eps": 1e-6}',
}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    torch.manual_seed(9)
    tanh_gelu = functools.partial(torch.nn.functional.gelu, approximate="tanh")
    encoder = encoder_model(True, tanh_gelu, 1e-6, 1e-3)
    x = torch.randn(2, 3, 8)
    with torch.no_grad():
        expected = encoder(x)
    folder = save_case("encoder", x, expected)
    np.savez(folder / "model.npz", attn_config=config_member(ENCODER_CONFIG), **state_of(encoder))

    layer = seeded(torch.nn.TransformerEncoderLayer(8, 4, 16, dropout=0.0, batch_first=True, activation="gelu"))
    x_layer = torch.randn(2, 3, 8)
    with torch.no_grad():
        expected_layer = layer(x_layer)
    folder = save_case("encoder-layer", x_layer, expected_layer)
    layer_config = {"heads": 4, "norm_first": False, "activation": "gelu", "eps": 1e-5}
    np.savez(folder / "model.npz", attn_config=config_member(layer_config), **state_of(layer, "module."))

    other = encoder_model(True, tanh_gelu, 1e-6, 1e-3)
    (OUT / "nested").mkdir()
    np.savez(OUT / "nested" / "model.npz", attn_config=config_member(ENCODER_CONFIG),
             **state_of(encoder, "model.encoder."), **{"model.embedding.weight": np.ones((5, 8), np.float32)},
             **{"lm_head.weight": np.ones((5, 8), np.float32)})
    np.savez(OUT / "nested" / "two-encoders.npz", attn_config=config_member(ENCODER_CONFIG),
             **state_of(encoder, "model.encoder."), **state_of(other, "model.other."))

    (OUT / "bad").mkdir()
    weights = state_of(encoder)
    for name, text in BAD_CONFIGS.items():
        np.savez(OUT / "bad" / f"{name}.npz", attn_config=raw_member(text), **weights)
    np.savez(OUT / "bad" / "float-array.npz", attn_config=np.array([1.0, 2.0], np.float32), **weights)


if __name__ == "__main__":
    main()
