"""PyTorch reference for lesson 3 (Bahdanau attention), written from the seed notebook's two
BaAttention classes: the second (nn.Linear layers over the concatenation [h̄_s ; h_t]) for the
lesson's values, the first (a reshape where a transpose was meant) for the pitfall.
Plain torch, never the attn library."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_layers import linear_layer


class SeedReshapeBaAttention(nn.Module):
    """The seed's first BaAttention, its _get_scores as written (the reshape included), with one
    change: the biases b1 and b2 of the lesson's layers are added where nn.Linear adds them, so
    that the reshape is the only difference from the lesson's computation."""

    def __init__(self, W1, b1, w2, b2):
        super().__init__()
        self.W1 = nn.Parameter(W1.clone())
        self.w2 = nn.Parameter(w2.clone())
        self.b1, self.b2 = b1, b2
        self.hidden_dim = W1.shape[0] // 2

    def _get_scores(self, encoded_outputs, decoder_output):
        decoder_resized_output = decoder_output.unsqueeze(1).repeat(1, encoded_outputs.shape[1], 1)
        h = torch.cat((encoded_outputs, decoder_resized_output), dim=2)

        batch_size = encoded_outputs.shape[0]
        h = h.reshape((batch_size, self.hidden_dim*2, -1))
        self.reshaped = h
        w1_batch = self.W1.unsqueeze(0).repeat(batch_size, 1, 1)

        wh = torch.bmm(w1_batch, h) + self.b1.view(1, -1, 1)  # + b1: added for the lesson
        wh = torch.tanh(wh)

        w2_batch = self.w2.unsqueeze(0).repeat(batch_size, 1, 1)
        score = torch.bmm(w2_batch, wh).squeeze().reshape(batch_size, -1) + self.b2  # + b2: added for the lesson

        return torch.softmax(score, dim=1)


@torch.no_grad()
def compute(example, inputs):
    encoder_outputs = inputs["encoder_outputs"]  # (B, S, H)
    decoder_output = inputs["decoder_output"]    # (B, H)
    W1, b1, w2, b2 = inputs["W1"], inputs["b1"], inputs["w2"], inputs["b2"]
    B, S, H = encoder_outputs.shape

    # The seed's second BaAttention._get_scores, step by step.
    decoder_expanded = decoder_output.unsqueeze(1).expand(-1, S, -1)
    h = torch.cat((encoder_outputs, decoder_expanded), dim=2)  # (B, S, 2H)
    preactivation = linear_layer(W1, b1)(h)
    hidden = torch.tanh(preactivation)
    scores = linear_layer(w2, b2)(hidden).squeeze(2)
    weights = F.softmax(scores, dim=1)
    context = torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1)

    # The textbook form: W1's first H columns meet h̄_s, its last H columns meet h_t.
    W_enc, W_dec = W1[:, :H], W1[:, H:]
    encoder_projection = encoder_outputs @ W_enc.t()       # (B, S, 2H)
    decoder_projection = decoder_output @ W_dec.t()        # (B, 2H)
    split_preactivation = encoder_projection + decoder_projection.unsqueeze(1) + b1
    split_scores = torch.tanh(split_preactivation) @ w2.squeeze(0) + b2

    seed = SeedReshapeBaAttention(W1, b1, w2, b2)
    reshape_weights = seed._get_scores(encoder_outputs, decoder_output)

    out = {
        "concatenated": h,
        "preactivation": preactivation,
        "hidden": hidden,
        "scores": scores,
        "weights": weights,
        "context": context,
        "encoder_projection": encoder_projection,
        "decoder_projection": decoder_projection,
        "split_preactivation": split_preactivation,
        "split_scores": split_scores,
        "reshape_weights": reshape_weights,
    }
    # Step 8 compares the two one sentence at a time, the transpose above the reshape in one tensor,
    # so that a screen shows both.
    for b in range(B):
        out[f"transposed_vs_reshaped_sentence_{b}"] = torch.stack((h.transpose(1, 2)[b], seed.reshaped[b]))
    if "W" in inputs:
        # Lesson 2's dot and general weights for the same inputs.
        dot_weights = F.softmax(torch.bmm(encoder_outputs, decoder_output.unsqueeze(2)).squeeze(2), dim=1)
        general = torch.bmm(linear_layer(inputs["W"])(encoder_outputs), decoder_output.unsqueeze(2)).squeeze(2)
        out["compared_weights"] = torch.stack((dot_weights, F.softmax(general, dim=1), weights), dim=1)
    return out
