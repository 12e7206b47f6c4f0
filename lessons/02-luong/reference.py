"""PyTorch reference for lesson 2 (Luong attention), written from the seed notebook's two
LuAttention classes: the first multiplies the encoder outputs by a raw parameter W
(torch.matmul), the second applies nn.Linear(H, H, bias=False). Plain torch, never the attn library."""
import torch

from torch_layers import linear_layer


def general_scores(encoder_outputs, decoder_output, W, bias=None):
    """The seed's second LuAttention._get_scores, before its softmax: bmm(W(encoder_outputs), h_t)."""
    ew = linear_layer(W, bias)(encoder_outputs)
    return torch.bmm(ew, decoder_output.unsqueeze(2)).squeeze(2)


def seed_parameter_scores(encoder_outputs, decoder_output, W):
    """The seed's first LuAttention._get_scores, before its softmax: W as a raw parameter, matmul."""
    ew = torch.matmul(encoder_outputs, W)
    return torch.bmm(ew, decoder_output.unsqueeze(2)).squeeze(2)


def attend(scores, encoder_outputs):
    weights = torch.softmax(scores, dim=1)
    return weights, torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1)


@torch.no_grad()
def compute(example, inputs):
    encoder_outputs = inputs["encoder_outputs"]  # (B, S, H)
    decoder_output = inputs["decoder_output"]    # (B, H)
    W = inputs["W"]                              # (H, H), nn.Linear's (out, in)
    scores = general_scores(encoder_outputs, decoder_output, W)
    weights, context = attend(scores, encoder_outputs)
    out = {
        "projected": linear_layer(W)(encoder_outputs),
        "scores": scores,
        "weights": weights,
        "context": context,
        "seed_parameter_scores": seed_parameter_scores(encoder_outputs, decoder_output, W),
        "scores_with_W_transposed": general_scores(encoder_outputs, decoder_output, W.t()),
    }
    if "bias" in inputs:
        bias = inputs["bias"]
        out["bias_term"] = decoder_output @ bias
        out["scores_with_bias"] = general_scores(encoder_outputs, decoder_output, W, bias)
        out["weights_with_bias"] = torch.softmax(out["scores_with_bias"], dim=1)
    if "concat_W" in inputs:
        # Luong's concat score, v_a · tanh(W_a [h_t ; h̄_s]): the decoder state first, as in the paper.
        B, S, H = encoder_outputs.shape
        concatenated = torch.cat((decoder_output.unsqueeze(1).expand(-1, S, -1), encoder_outputs), dim=2)
        hidden = torch.tanh(linear_layer(inputs["concat_W"])(concatenated))
        concat_scores = linear_layer(inputs["concat_v"])(hidden).squeeze(2)
        concat_weights, _ = attend(concat_scores, encoder_outputs)
        dot_scores = torch.bmm(encoder_outputs, decoder_output.unsqueeze(2)).squeeze(2)
        dot_weights, _ = attend(dot_scores, encoder_outputs)
        out.update({
            "concatenated": concatenated,
            "concat_hidden": hidden,
            "concat_scores": concat_scores,
            "concat_weights": concat_weights,
            "compared_weights": torch.stack((dot_weights, weights, concat_weights), dim=1),
        })
    return out
