#!/usr/bin/python3
"""PyTorch's own run of `attn train copy --size annotated`, for comparing how training goes.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/annotated_copy_pytorch.py [--dropout P] [--seed S]

The Annotated Transformer's copy task on nn.Transformer(512, 8, 2, 2, 2048, dropout=P (0 by default;
the Annotated Transformer's is 0.1, applied as nn.Transformer applies it, plus after embeddings + positions),
batch_first=True, norm_first=True) with two nn.Embedding × √D plus the sinusoidal positions and
an nn.Linear generator (Xavier-uniform matrices), cross-entropy of the next token (LabelSmoothing
with smoothing 0), Adam(lr 0.5, (0.9, 0.98), 1e-9) under LambdaLR(rate(factor 1, warmup 400)),
20 epochs of 20 batches of 80 sequences of 10, torch.manual_seed(S) (0 by default), one thread;
greedy decoding runs in eval mode (no dropout). After each epoch:
the mean loss and the share of 100 fresh sequences that greedy decoding copies exactly. The
weights and batches are PyTorch's own draws, not attn's: the two runs are compared by how they
go, not number by number (tests/test_copy_training.cpp compares the numbers on a small model).
"""
import argparse, math, torch, torch.nn as nn
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--dropout", type=float, default=0.0, help="nn.Transformer's dropout, also after embeddings + positions")
ap.add_argument("--seed", type=int, default=0, help="torch.manual_seed")
args = ap.parse_args()
torch.manual_seed(args.seed); torch.set_num_threads(1)
V, D, h, F, N, B, L = 11, 512, 8, 2048, 2, 80, 10
tr = nn.Transformer(D, h, N, N, F, dropout=args.dropout, batch_first=True, norm_first=True)
drop = nn.Dropout(args.dropout)
se, te, gen = nn.Embedding(V, D), nn.Embedding(V, D), nn.Linear(D, V)
for m in (se, te, gen):
    for p in m.parameters():
        if p.dim() > 1: nn.init.xavier_uniform_(p)
params = [*tr.parameters(), *se.parameters(), *te.parameters(), *gen.parameters()]
pos = torch.arange(L).unsqueeze(1); ang = pos * torch.exp(torch.arange(0, D, 2) * (-math.log(10000.0) / D))
pe = torch.zeros(L, D); pe[:, 0::2], pe[:, 1::2] = torch.sin(ang), torch.cos(ang)
opt = torch.optim.Adam(params, lr=0.5, betas=(0.9, 0.98), eps=1e-9)
sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: D ** -0.5 * min(max(s, 1) ** -0.5, max(s, 1) * 400 ** -1.5))
def logits(src, tgt):
    m = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
    x, y = drop(se(src) * math.sqrt(D) + pe[:src.shape[1]]), drop(te(tgt) * math.sqrt(D) + pe[:tgt.shape[1]])
    return gen(tr(x, y, tgt_mask=m))
for epoch in range(20):
    total = 0
    tr.train(); drop.train()
    for _ in range(20):
        d = torch.randint(1, V, (B, L)); d[:, 0] = 1
        opt.zero_grad()
        lp = logits(d, d[:, :-1]).log_softmax(-1).reshape(-1, V)
        loss = nn.functional.nll_loss(lp, d[:, 1:].reshape(-1))
        loss.backward(); opt.step(); sch.step(); total += loss.item()
    tr.eval(); drop.eval()
    with torch.no_grad():
        d = torch.randint(1, V, (100, L)); d[:, 0] = 1
        ys = d[:, :1]
        for t in range(1, L):
            ys = torch.cat([ys, logits(d, ys)[:, -1].argmax(-1, keepdim=True)], 1)
        acc = (ys == d).all(1).float().mean().item()
    print(f"epoch {epoch + 1} loss {total / 20:.4f} copied {100 * acc:.0f} %", flush=True)
