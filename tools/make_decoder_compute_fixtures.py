#!/usr/bin/python3
"""Regenerate tests/data/compute_decoder/: PyTorch decoders for `attn compute decoder-layer|decoder|transformer`.

Each case is a folder as tools/make_interop_fixtures.py writes them: in/<name>.npy (tgt, memory and
PyTorch's masks under their forward arguments' names), model.npz (the state_dict, written by
numpy.savez, keys with dots; some with the settings as attn_config, some inside a bigger model),
options.txt (the module, then its options, one per line) and expected/output.npy (PyTorch 1.13,
eval mode). tests/test_cli_compute_decoder.cpp runs them. Seeded: running it twice writes the
same files.

    /usr/bin/python3 tools/make_decoder_compute_fixtures.py
"""
import functools
import json
import pathlib
import shutil

import numpy as np
import torch

import make_interop_fixtures as interop  # the one writer of a case folder

interop.OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "compute_decoder"
B, T, S, D, H, F = 2, 3, 4, 8, 2, 16


def seeded(model):
    with torch.no_grad():  # away from PyTorch's initial values, so that every weight matters
        for parameter in model.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return model.eval()


def config_member(config):
    """attn_config as the export writes it (a uint8 array of JSON bytes), as a tensor for save_case."""
    return torch.from_numpy(np.frombuffer(json.dumps(config).encode(), np.uint8).copy())


def padding(length, padded):
    """(B, length) bool, True = ignore: sequence b has padded[b] positions masked at its end."""
    mask = torch.zeros(B, length, dtype=torch.bool)
    for b, count in enumerate(padded):
        if count:
            mask[b, length - count:] = True
    return mask


def layer_cases():
    # Post-norm, relu, PyTorch's causal float tgt_mask and both padding masks (every query keeps a key).
    layer = seeded(torch.nn.TransformerDecoderLayer(D, H, F, dropout=0.0, batch_first=True))
    tgt, memory = torch.randn(B, T, D), torch.randn(B, S, D)
    masks = {"tgt_mask": torch.nn.Transformer.generate_square_subsequent_mask(T),
             "tgt_key_padding_mask": padding(T, [0, 1]), "memory_key_padding_mask": padding(S, [1, 2])}
    with torch.no_grad():
        expected = layer(tgt, memory, **masks)
    interop.save_case("decoder-layer-post-relu-causal-padding", "decoder-layer", ["--heads", str(H)],
                      {"tgt": tgt, "memory": memory, **masks}, expected, layer.state_dict())

    # Pre-norm, exact GELU, a bool memory_mask; the settings come from the archive's config alone.
    layer = seeded(torch.nn.TransformerDecoderLayer(D, H, F, dropout=0.0, batch_first=True, norm_first=True,
                                                    activation="gelu", layer_norm_eps=1e-6))
    tgt, memory = torch.randn(B, T, D), torch.randn(B, S, D)
    memory_mask = torch.tensor([[False, True, False, True], [True, False, False, False], [False, False, True, True]])
    with torch.no_grad():
        expected = layer(tgt, memory, memory_mask=memory_mask)
    state = {**layer.state_dict(),
             "attn_config": config_member({"heads": H, "norm_first": True, "activation": "gelu", "eps": 1e-6})}
    interop.save_case("decoder-layer-pre-gelu-memory-mask-config", "decoder-layer", [],
                      {"tgt": tgt, "memory": memory, "memory_mask": memory_mask}, expected, state)


def stack_cases():
    # nn.TransformerDecoder, 2 post-norm layers and a final norm, a bool causal tgt_mask; saved
    # inside a bigger model under "decoder." (the one prefix that fits).
    layer = torch.nn.TransformerDecoderLayer(D, H, F, dropout=0.0, batch_first=True)
    decoder = seeded(torch.nn.TransformerDecoder(layer, 2, norm=torch.nn.LayerNorm(D)))
    tgt, memory = torch.randn(B, T, D), torch.randn(B, S, D)
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    with torch.no_grad():
        expected = decoder(tgt, memory, tgt_mask=causal)
    state = {"decoder." + k: v for k, v in decoder.state_dict().items()}
    state["embedding.weight"] = torch.ones(5, D)
    interop.save_case("decoder-post-final-norm-prefixed", "decoder", ["--heads", str(H)],
                      {"tgt": tgt, "memory": memory, "tgt_mask": causal}, expected, state)

    # Pre-norm, tanh GELU, eps 1e-6, a final norm of eps 1e-3, every mask: a (B·h, T, T) float
    # tgt_mask, a float memory_mask, both padding masks (integer and bool). Settings from the config.
    tanh_gelu = functools.partial(torch.nn.functional.gelu, approximate="tanh")
    layer = torch.nn.TransformerDecoderLayer(D, H, F, dropout=0.0, batch_first=True, norm_first=True,
                                             activation=tanh_gelu, layer_norm_eps=1e-6)
    decoder = seeded(torch.nn.TransformerDecoder(layer, 2, norm=torch.nn.LayerNorm(D, eps=1e-3)))
    tgt, memory = torch.randn(B, T, D), torch.randn(B, S, D)
    masks = {"tgt_mask": 0.5 * torch.randn(B * H, T, T), "memory_mask": 0.5 * torch.randn(T, S),
             "tgt_key_padding_mask": padding(T, [1, 0]), "memory_key_padding_mask": padding(S, [0, 3])}
    with torch.no_grad():
        expected = decoder(tgt, memory, **masks)
    masks["tgt_key_padding_mask"] = masks["tgt_key_padding_mask"].long()  # integer 0/1, as Hugging Face saves masks
    state = dict(decoder.state_dict())
    state["attn_config"] = config_member({"heads": H, "norm_first": True, "activation": "gelu-tanh", "eps": 1e-6,
                                          "norm_eps": 1e-3})
    interop.save_case("decoder-pre-gelu-tanh-every-mask-config", "decoder", [],
                      {"tgt": tgt, "memory": memory, **masks}, expected, state)


def transformer_cases():
    # nn.Transformer, 2 encoder and 2 decoder layers, post-norm relu: causal tgt_mask and the three
    # padding masks (memory_key_padding_mask hides the same source positions as src_key_padding_mask,
    # as a padded batch does).
    model = seeded(torch.nn.Transformer(D, H, 2, 2, F, dropout=0.0, batch_first=True))
    src, tgt = torch.randn(B, S, D), torch.randn(B, T, D)
    masks = {"tgt_mask": model.generate_square_subsequent_mask(T), "src_key_padding_mask": padding(S, [1, 0]),
             "tgt_key_padding_mask": padding(T, [0, 1]), "memory_key_padding_mask": padding(S, [1, 0])}
    with torch.no_grad():
        expected = model(src, tgt, **masks)
    interop.save_case("transformer-post-relu-causal-padding", "transformer", ["--heads", str(H)],
                      {"src": src, "tgt": tgt, **masks}, expected, model.state_dict())

    # Pre-norm GELU, eps 1e-6 everywhere, a float src_mask and a bool memory_mask; the settings
    # from the config, the state_dict inside a bigger model ("model.").
    model = seeded(torch.nn.Transformer(D, H, 1, 2, F, dropout=0.0, batch_first=True, norm_first=True,
                                        activation="gelu", layer_norm_eps=1e-6))
    src, tgt = torch.randn(B, S, D), torch.randn(B, T, D)
    masks = {"src_mask": 0.5 * torch.randn(S, S),
             "memory_mask": torch.tensor([[False, True, False, False], [True, False, True, False], [False] * 4])}
    with torch.no_grad():
        expected = model(src, tgt, **masks)
    state = {"model." + k: v for k, v in model.state_dict().items()}
    state["attn_config"] = config_member({"heads": H, "norm_first": True, "activation": "gelu", "eps": 1e-6,
                                          "norm_eps": 1e-6})
    interop.save_case("transformer-pre-gelu-config-prefixed", "transformer", [],
                      {"src": src, "tgt": tgt, **masks}, expected, state)


if __name__ == "__main__":
    shutil.rmtree(interop.OUT, ignore_errors=True)
    torch.manual_seed(28)
    layer_cases()
    stack_cases()
    transformer_cases()
