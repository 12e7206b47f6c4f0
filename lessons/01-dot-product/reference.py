"""PyTorch reference for lesson 1 (dot-product attention), written from the seed notebook's
DotAttention: batched matrix products with torch.bmm and a softmax over the source positions."""
import torch
import torch.nn.functional as F


def seed_dot_attention(encoded_outputs, decoder_output):
    """The seed notebook's DotAttention.forward, kept as it is, `.squeeze()` trap included."""
    score = torch.bmm(encoded_outputs, decoder_output.unsqueeze(2)).squeeze()
    try:
        score = torch.softmax(score.float(), dim=1)
    except IndexError:
        score = score.unsqueeze(0)
        score = F.softmax(score.float(), dim=0)
    return score, torch.bmm(score.unsqueeze(1).float(), encoded_outputs.float()).squeeze()


def compute(example, inputs):
    encoder_outputs = inputs["encoder_outputs"]  # (B, S, H)
    decoder_output = inputs["decoder_output"]    # (B, H)
    scores = torch.bmm(encoder_outputs, decoder_output.unsqueeze(2)).squeeze(2)  # (B, S)
    weights = torch.softmax(scores, dim=1)                                        # (B, S)
    context = torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1)         # (B, H)
    out = {"scores": scores, "weights": weights, "context": context}
    if encoder_outputs.shape[0] == 1:
        out["seed_weights"], out["seed_context"] = seed_dot_attention(encoder_outputs, decoder_output)
    return out
