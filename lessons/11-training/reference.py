"""PyTorch reference for lesson 11 (training the copy task).

The model, its seeded weights and batches, the loss, the rate and the greedy decoding are the
Annotated Transformer's, in PyTorch (tools/reference/copy_model.py, shared with the training
fixtures): nn.Transformer(norm_first=True) with two nn.Embedding tables and an nn.Linear, trained
by torch.optim.Adam(betas=(0.9, 0.98), eps=1e-9) under LambdaLR. Parameter counts are numel over
named_parameters; the loss by hand is F.cross_entropy (ε = 0) or the Annotated Transformer's
LabelSmoothing; gradients come from autograd. Everything in float64.

Plain torch only, never the attn library."""
import numpy as np
import torch
import torch.nn.functional as F

import copy_model


def sizes(inputs):
    c = {name: int(inputs[name][0]) for name in ("vocabulary", "d_model", "d_ff", "heads", "layers")}
    for name in ("warmup", "batch", "length", "steps"):
        if name in inputs:
            c[name] = int(inputs[name][0])
    if "lr_factor" in inputs:
        c["lr_factor"] = float(inputs["lr_factor"][0])
    return c


def parameter_counts(inputs):
    c = sizes(inputs)
    torch.manual_seed(0)
    counts = {name: p.numel() for name, p in copy_model.CopyModel(c).named_parameters()}
    as_tensor = lambda values: torch.tensor(values, dtype=torch.float64)
    out = {"encoder_layer": as_tensor([n for name, n in counts.items() if name.startswith("encoder.layers.0.")]),
            "decoder_layer": as_tensor([n for name, n in counts.items() if name.startswith("decoder.layers.0.")]),
            "outside_layers": as_tensor([n for name, n in counts.items() if ".layers." not in name]),
            "total": as_tensor([sum(counts.values())])}
    groups = (out["encoder_layer"], out["decoder_layer"], out["outside_layers"])
    out["parts"] = torch.stack([group.sum() for group in groups])
    return out


def loss_of_rows(inputs):
    logits = inputs["logits"].clone().requires_grad_(True)
    targets = inputs["targets"].long()
    padding = int(inputs["padding"][0])
    V = logits.shape[1]
    if "label_smoothing" in inputs:
        smoothing = float(inputs["label_smoothing"][0])
        loss = copy_model.label_smoothing_loss(logits, targets, smoothing, padding, V)
        # The smoothed target distribution, as LabelSmoothing builds it.
        q = torch.full((len(targets), V), smoothing / (V - 2), dtype=torch.float64)
        q.scatter_(1, targets.unsqueeze(1), 1.0 - smoothing)
        q[:, padding] = 0
        q[targets == padding] = 0
    else:
        loss = F.cross_entropy(logits, targets, ignore_index=padding)
        q = F.one_hot(targets, V).double()
        q[targets == padding] = 0
    (grad,) = torch.autograd.grad(loss, logits)
    return {"probabilities": torch.softmax(logits.detach(), dim=-1), "target_distribution": q,
            "loss": loss.detach().reshape(1), "grad_logits": grad}


def adam_by_hand(inputs):
    theta = inputs["theta"].clone().requires_grad_(True)
    optimizer = torch.optim.Adam([theta], lr=float(inputs["learning_rate"][0]), betas=(0.9, 0.98), eps=1e-9)
    m, v, after = [], [], []
    for g in inputs["gradients"]:
        theta.grad = g.clone()
        optimizer.step()
        state = optimizer.state[theta]
        m.append(state["exp_avg"].clone())
        v.append(state["exp_avg_sq"].clone())
        after.append(theta.detach().clone())
    return {"first_moment": torch.stack(m), "second_moment": torch.stack(v), "theta": torch.stack(after)}


def schedule(inputs):
    D, factor, warmup = int(inputs["d_model"][0]), float(inputs["factor"][0]), int(inputs["warmup"][0])
    rate = lambda step: copy_model.rate(step, D, factor, warmup)
    # What LambdaLR hands each update: run it on a dummy optimiser and read the rate it used.
    parameter = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([parameter], lr=1.0)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
    used = []
    for _ in range(int(inputs["updates"].max())):
        used.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return {"rates": torch.tensor([rate(int(s)) for s in inputs["steps"]], dtype=torch.float64),
            "update_rates": torch.tensor([used[int(k) - 1] for k in inputs["updates"]], dtype=torch.float64)}


def seeded_run(inputs, steps):
    """The model and `steps` batches of (B, L) from the seed, as `attn train copy` draws them."""
    c = sizes(inputs)
    generator = np.random.RandomState(int(inputs["seed"][0]))
    model = copy_model.seeded_model(c, generator)
    batches = copy_model.copy_batches(generator, dict(c, steps=steps))
    return c, model, batches


def one_training_step(inputs):
    c, model, batches = seeded_run(inputs, 1)
    data = batches[0]
    logits = model.logits(data, data[:, :-1])
    loss = copy_model.label_smoothing_loss(logits, data[:, 1:], 0.0, 0, c["vocabulary"])
    optimizer, scheduler = copy_model.adam_with_schedule(model, c)
    loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    before = model.generator.bias.detach().clone()
    learning_rate = optimizer.param_groups[0]["lr"]
    optimizer.step()
    return {"src": data, "decoder_input": data[:, :-1], "targets": data[:, 1:],
            "logits_first": logits[0, 0].detach(), "loss": loss.detach().reshape(1),
            "grad_generator_bias": grads["generator.bias"], "grad_tgt_embed_norms": grads["tgt_embed.weight"].norm(dim=1),
            "learning_rate": torch.tensor([learning_rate], dtype=torch.float64),
            "generator_bias_before": before, "generator_bias_after": model.generator.bias.detach().clone()}


def last_cross_attention(model, sequence):
    """The last decoder layer's cross-attention weights (h, T, S), per head, on one sequence (1, L)
    read by teacher forcing: the decoder's layers run one by one and the last one's
    multihead_attn is asked for its weights (average_attn_weights=False)."""
    with torch.no_grad():
        memory = model.encoder(model.embed(model.src_embed, sequence))
        x = model.embed(model.tgt_embed, sequence[:, :-1])
        T = x.shape[1]
        causal = torch.triu(torch.full((T, T), float("-inf")), 1)
        for layer in model.decoder.layers[:-1]:
            x = layer(x, memory, tgt_mask=causal)
        last = model.decoder.layers[-1]
        x = x + last._sa_block(last.norm1(x), causal, None)
        _, weights = last.multihead_attn(last.norm2(x), memory, memory, need_weights=True,
                                         average_attn_weights=False)
    return weights[0]


def training_run(inputs):
    steps = int(inputs["steps"][0])
    c, model, batches = seeded_run(inputs, steps)
    sequences = inputs["sequences"].long()
    before = last_cross_attention(model, sequences[:1])
    optimizer, scheduler = copy_model.adam_with_schedule(model, c)
    losses = [copy_model.train_step(model, optimizer, scheduler, data, 0.0, c)[0] for data in batches]
    losses = torch.tensor(losses, dtype=torch.float64)
    return {"first_losses": losses[:20], "losses": losses[49::50],
            "decodes": copy_model.greedy_decode(model, sequences, sequences.shape[1]),
            "attention_before": before, "attention_after": last_cross_attention(model, sequences[:1])}


def compute(example, inputs):
    """Every module in double (the tables, the positions, the layers), then the default restored:
    the expected values are printed as float32 tensors, which must not print their dtype."""
    torch.set_default_dtype(torch.float64)
    try:
        return compute_in_double(example, inputs)
    finally:
        torch.set_default_dtype(torch.float32)


def compute_in_double(example, inputs):
    if example in ("small", "annotated"):
        return parameter_counts(inputs)
    if example in ("loss", "smoothing"):
        return loss_of_rows(inputs)
    if example == "forcing":
        tgt = inputs["tgt"].long()
        return {"decoder_input": tgt[:, :-1], "targets": tgt[:, 1:]}
    if example == "adam":
        return adam_by_hand(inputs)
    if example == "schedule":
        return schedule(inputs)
    if example == "step":
        return one_training_step(inputs)
    return training_run(inputs)
