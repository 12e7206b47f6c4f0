#!/usr/bin/python3
"""attn's float32 fast path next to PyTorch on the same CPU, same threads, same shapes.

    /usr/bin/python3 bench/compare_pytorch.py --attn build/attn [--threads 1 2] [--rounds 3]
        [--cases seed000 encoder long4096 long16384 causal32768 decode mha-backward train-step cli]
        [--baseline OLD/attn]
        [--decode-tokens 512] [--decode-module-tokens M]

For each thread count it measures, in one run:
  * the sgemm rate: torch.mm on 1024 x 1024 float32 matrices (OpenBLAS's sgemm), in GFLOP/s, once
    per round, and the best round is the reference of the GFLOP/s targets;
  * seed000: torch.nn.MultiheadAttention(768, 8) with need_weights=True, average_attn_weights=False
    on (8, 300, 768), against `attn bench mha` (weights kept); with --baseline, also an older attn
    binary on the same case, to check that the weights-kept path did not get slower;
  * encoder: torch.nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True) in eval
    mode on (8, 128, 512), against `attn bench encoder-layer`;
  * long4096: torch.nn.MultiheadAttention(768, 12, batch_first=True) in eval mode under
    torch.no_grad(), called as mha(x, x, x, need_weights=False) on (1, 4096, 768) (PyTorch then takes
    its native fused path), against `attn bench mha --no-weights` (the tiled online softmax);
  * long16384: the same at T = 16384: PyTorch is expected to run out of memory (its scores and its
    weights are (12, T, T) float32, 12 GiB each); attn must stay under 1 GiB;
  * causal32768: T = 32768 with the causal mask (PyTorch: attn_mask = triu(ones(T, T), 1)), one
    timed call; attn's attention part must run at >= 60 % of the sgemm rate, counting only the
    tiles it computes;
  * decode: generating --decode-tokens (512) tokens with a 6-layer decoder, d_model 512, 8 heads,
    d_ff 2048, over a 512-position memory (post-norm, relu, batch 1), each output fed back as the
    next token: `attn bench decode` against (a) nn.TransformerDecoder re-run on the whole prefix at
    every step, what the module offers (one generation, once per thread count: it is quadratic;
    --decode-module-tokens measures it, and attn beside it, on fewer tokens: a lower bound of the
    ratio at --decode-tokens),
    and (b) a hand-written PyTorch loop with its own K/V cache (bench/decode_pytorch.py), the two
    alternating for --rounds rounds; the load average is printed with every measurement;
  * mha-backward: one training step of self-attention, forward and backward: PyTorch's
    nn.MultiheadAttention(512, 8, batch_first=True) in train mode (dropout 0), x = torch.rand(4, T,
    512) requiring grad, out = mha(x, x, x, need_weights=False)[0]; out.backward(g), against
    `attn bench mha --backward` (the tiled forward for training, FlashAttention-2's backward, x's
    gradient summed as autograd does); time at T = 1024 alternating for --rounds rounds, peak
    memory at T = 4096 (one step per process, each side in its own processes);
  * train-step: one training step of the Annotated Transformer's copy model (V 11, D 512, h 8,
    2 + 2 layers, F 2048, batch 80 of sequences of 10): PyTorch's nn.Transformer(norm_first=True,
    dropout=0, batch_first=True) with two nn.Embedding (× √D + the sinusoidal positions) and an
    nn.Linear generator, the Annotated Transformer's loss (KLDivLoss(sum) of LabelSmoothing's
    target, smoothing 0, over the tokens), loss.backward(), torch.optim.Adam(lr 0.5, (0.9, 0.98),
    1e-9) under LambdaLR(rate(factor 1, warmup 400)), optimizer.zero_grad() first — against
    `attn bench train`; the 1 and 2 thread runs alternate within each round, and the median of
    --train-repeat steps after 2 warm-up steps is compared;
  * cli: `attn check` (all lessons) < 0.5 s and `attn --version` < 50 ms.
Every measurement is its own process: PyTorch in a child with OPENBLAS_NUM_THREADS and
OMP_NUM_THREADS set and torch.set_num_threads(n), attn with the same environment and --threads n,
so that each peak resident memory (ru_maxrss, reported by the process itself) is the case's own.
PyTorch's children run under an address-space limit (RLIMIT_AS, --torch-memory-gb, default 8):
a case that needs more fails there with PyTorch's own "can't allocate memory" message, recorded
as out of memory, instead of pushing a shared machine into swap or the OOM killer. The two sides
alternate, in swapped order on odd rounds; each measurement is the minimum (and median) of
--repeat timed calls after a warm-up, and the tables use the minimum over rounds: on a shared
machine the minimum is the run least disturbed by others. The load average before and after is
printed.

Targets (exit status 1 when one is missed; each is printed with PASS/FAIL and the number):
  seed000: time <= 0.9 x PyTorch's, >= 80 % of the sgemm rate, peak RSS <= 1.5 x the tensors it
           holds, and with --baseline not slower than the baseline (2 % allowed for noise);
  encoder: time <= 1.0 x PyTorch's;
  long4096: time <= 0.3 x PyTorch's, peak RSS <= 0.1 x PyTorch's, >= 75 % of the sgemm rate;
  long16384: peak RSS <= 1 GiB (PyTorch's out of memory recorded);
  causal32768: peak RSS <= 1 GiB, the attention part >= 60 % of the sgemm rate;
  decode: tokens/s >= 10 x (a)'s, and >= (b)'s;
  mha-backward: time <= 1.0 x PyTorch's at T = 1024, peak RSS <= 0.2 x PyTorch's at T = 4096;
  train-step: median time <= 1.0 x PyTorch's at 1 and at 2 threads;
  cli: attn check < 0.5 s, attn --version < 50 ms.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

SEED000 = dict(batch=8, seq=300, d_model=768, heads=8)
ENCODER = dict(batch=8, seq=128, d_model=512, heads=8, d_ff=2048)
LONG = dict(batch=1, d_model=768, heads=12)
BACKWARD = dict(batch=4, d_model=512, heads=8)
DECODE = dict(layers=6, d_model=512, heads=8, d_ff=2048, memory=512, tokens=512)
TRAIN = dict(batch=80, seq=10, d_model=512, heads=8, d_ff=2048, layers=2)  # the copy task's V = 11
GiB = 1024 ** 3


def mha_flop(batch, seq, d_model, **_):
    """The FLOPs of an MHA with every tile computed: 8·B·T·D² (Q, K, V, output) + 4·B·T²·D."""
    return 8.0 * batch * seq * d_model ** 2 + 4.0 * batch * seq ** 2 * d_model


# ------------------------------------------------------------------------------------------------
# The PyTorch side: one case per child process.

def torch_worker(case, threads, repeat, seq):
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)

    def timed(call, n, warmup=1):
        for _ in range(warmup):
            call()
        times = []
        for _ in range(n):
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1e3)
        return {"min_ms": min(times), "median_ms": statistics.median(times)}

    result = {"torch": torch.__version__, "threads": torch.get_num_threads(), "case": case}
    try:
        if case == "sgemm":
            a, b = torch.rand(1024, 1024), torch.rand(1024, 1024)
            sgemm = timed(lambda: torch.mm(a, b), 20, warmup=3)
            result["sgemm_gflops"] = 2 * 1024 ** 3 / (sgemm["min_ms"] * 1e-3) / 1e9
        elif case == "seed000":
            B, T, D, h = SEED000["batch"], SEED000["seq"], SEED000["d_model"], SEED000["heads"]
            x = torch.rand(B, T, D)
            with torch.inference_mode():
                variants = {}
                for batch_first in (True, False):
                    mha = torch.nn.MultiheadAttention(D, h, batch_first=batch_first).eval()
                    inp = x if batch_first else x.transpose(0, 1).contiguous()
                    variants[batch_first] = timed(
                        lambda: mha(inp, inp, inp, need_weights=True, average_attn_weights=False), repeat)
                best = min(variants, key=lambda k: variants[k]["min_ms"])
                result.update(variants[best], batch_first=best)
        elif case.startswith("decode-"):  # decode-module, decode-loop; seq = the tokens generated
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import decode_pytorch
            result.update(decode_pytorch.measure(case[len("decode-"):], dict(DECODE, tokens=seq), repeat))
        elif case == "mha-backward":  # seq = T
            B, D, h = BACKWARD["batch"], BACKWARD["d_model"], BACKWARD["heads"]
            mha = torch.nn.MultiheadAttention(D, h, batch_first=True).train()
            x = torch.rand(B, seq, D, requires_grad=True)
            g = torch.rand(B, seq, D)

            def step():
                x.grad = None
                mha.zero_grad(set_to_none=True)
                out = mha(x, x, x, need_weights=False)[0]
                out.backward(g)
            result.update(timed(step, repeat, warmup=0 if repeat == 1 else 1))
        elif case == "train-step":
            result.update(train_step_timing(torch, repeat))
        elif case == "encoder":
            B, T, D, h, F = (ENCODER[k] for k in ("batch", "seq", "d_model", "heads", "d_ff"))
            layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, batch_first=True).eval()
            y = torch.rand(B, T, D)
            with torch.inference_mode():
                result.update(timed(lambda: layer(y), repeat * 2))
        else:  # the long cases: need_weights=False, batch_first, eval, no_grad
            causal = case.startswith("causal")
            D, h = LONG["d_model"], LONG["heads"]
            mha = torch.nn.MultiheadAttention(D, h, batch_first=True).eval()
            x = torch.rand(1, seq, D)
            mask = torch.triu(torch.ones(seq, seq, dtype=torch.bool), 1) if causal else None
            with torch.no_grad():
                result.update(timed(lambda: mha(x, x, x, need_weights=False, attn_mask=mask), repeat,
                                    warmup=0 if repeat == 1 else 1))
    except RuntimeError as error:  # "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes"
        if "allocate" not in str(error):
            raise
        result["out_of_memory"] = str(error).splitlines()[0][:300]
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def train_step_timing(torch, repeat):
    """The Annotated Transformer's copy model, one training step as its run_epoch takes it, in float32."""
    import math
    nn = torch.nn
    V, (B, L, D, h, F, N) = 11, (TRAIN[k] for k in ("batch", "seq", "d_model", "heads", "d_ff", "layers"))
    transformer = nn.Transformer(D, h, N, N, F, dropout=0.0, batch_first=True, norm_first=True)
    src_embed, tgt_embed, generator = nn.Embedding(V, D), nn.Embedding(V, D), nn.Linear(D, V)
    parameters = [*transformer.parameters(), *src_embed.parameters(), *tgt_embed.parameters(),
                  *generator.parameters()]
    position = torch.arange(L).unsqueeze(1)
    angle = position * torch.exp(torch.arange(0, D, 2) * (-math.log(10000.0) / D))
    pe = torch.zeros(L, D)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle)
    optimizer = torch.optim.Adam(parameters, lr=0.5, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: D ** -0.5 * min(max(step, 1) ** -0.5, max(step, 1) * 400 ** -1.5))
    mask = nn.Transformer.generate_square_subsequent_mask(L - 1)
    criterion = nn.KLDivLoss(reduction="sum")
    batches = []
    for _ in range(repeat + 2):
        data = torch.randint(1, V, (B, L))
        data[:, 0] = 1
        batches.append(data)

    def step(data):
        optimizer.zero_grad()
        src, tgt_in, tgt_y = data, data[:, :-1], data[:, 1:].reshape(-1)
        x = src_embed(src) * math.sqrt(D) + pe[:L]
        y = tgt_embed(tgt_in) * math.sqrt(D) + pe[:L - 1]
        log_p = generator(transformer(x, y, tgt_mask=mask)).log_softmax(-1).reshape(-1, V)
        target = torch.zeros_like(log_p)  # LabelSmoothing with smoothing 0: one-hot, padding 0 scored nowhere
        target.scatter_(1, tgt_y.unsqueeze(1), 1.0)
        loss = criterion(log_p, target) / tgt_y.numel()
        loss.backward()
        optimizer.step()
        scheduler.step()

    times = []
    for i, data in enumerate(batches):
        start = time.perf_counter()
        step(data)
        if i >= 2:
            times.append((time.perf_counter() - start) * 1e3)
    return {"min_ms": min(times), "median_ms": statistics.median(times)}


# ------------------------------------------------------------------------------------------------
# The driver.

def environment(threads):
    env = dict(os.environ)
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def run_torch(case, threads, repeat, seq, memory_gb):
    def limit():
        limit_bytes = int(memory_gb * GiB)
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-worker", case, "--threads", str(threads),
                          "--repeat", str(repeat), "--seq", str(seq)], env=environment(threads),
                         preexec_fn=limit, capture_output=True, text=True)
    if out.returncode != 0:
        # Killed by the limit in a way PyTorch could not report (a failed allocation outside its allocator).
        return {"case": case, "out_of_memory": f"exit {out.returncode}: {out.stderr.strip().splitlines()[-1:]}",
                "peak_rss_mb": float("nan")}
    return json.loads(out.stdout)


def run_attn(attn, module, shape, threads, repeat, *flags):
    args = [attn, "bench", module, "--json", "--threads", str(threads), "--repeat", str(repeat), *flags]
    for key, value in shape.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    out = subprocess.run(args, env=environment(threads), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def machine_header(attn, threads):
    """What attn bench says it runs on, for the header of each thread count: the CPU, its cores,
    the kernels' instruction set, OpenBLAS's configuration and core type, and attn's own sgemm rate
    (one single-threaded 1024³ product per thread, all at once) next to torch.mm's below."""
    info = run_attn(attn, "mha", {"batch": 1, "seq": 8, "d_model": 8, "heads": 1}, threads, 1, "--warmup", "0")
    return (f"machine: {info['cpu_model']} · {info['physical_cores']} physical cores, {info['logical_cpus']} CPUs · "
            f"attn kernels {info['kernels']}\nBLAS: {info['blas']}\n"
            f"sgemm 1024³ as attn's threads run it (attn bench, {threads} at once): {info['sgemm_gflops']:.1f} GFLOP/s")


def best_time(attn, args, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([attn] + args, check=True, capture_output=True, env=dict(os.environ, NO_COLOR="1"))
        times.append(time.perf_counter() - start)
    return min(times)


class Report:
    def __init__(self):
        self.rows, self.failures = [], []

    def target(self, name, ok, detail):
        self.rows.append((name, "PASS" if ok else "FAIL", detail))
        if not ok:
            self.failures.append(name)


def alternate(rounds, steps):
    """Runs the steps of each round in order, reversed on odd rounds."""
    for round_ in range(rounds):
        for step in (steps if round_ % 2 == 0 else steps[::-1]):
            step()


def ms(runs, key="min_ms"):
    return min(r[key] for r in runs)


def median_ms(runs):
    return statistics.median(r["median_ms"] for r in runs)


def short_cases(args, attn, threads, sgemm_runs, report):
    """seed000 (weights kept) and the encoder layer, as before, and the old binary when given."""
    torch_mha, torch_enc, attn_mha, attn_enc, old_mha = [], [], [], [], []
    steps = [lambda: sgemm_runs.append(run_torch("sgemm", threads, 1, 0, args.torch_memory_gb))]
    if "seed000" in args.cases:
        steps += [lambda: torch_mha.append(run_torch("seed000", threads, args.repeat, 0, args.torch_memory_gb)),
                  lambda: attn_mha.append(run_attn(attn, "mha", SEED000, threads, args.repeat))]
        if args.baseline:
            steps.append(lambda: old_mha.append(run_attn(args.baseline, "mha", SEED000, threads, args.repeat)))
    if "encoder" in args.cases:
        steps += [lambda: torch_enc.append(run_torch("encoder", threads, args.repeat, 0, args.torch_memory_gb)),
                  lambda: attn_enc.append(run_attn(attn, "encoder-layer", ENCODER, threads, args.repeat * 2))]
    alternate(args.rounds, steps)
    sgemm = max(r["sgemm_gflops"] for r in sgemm_runs)
    rates = ", ".join(f"{r['sgemm_gflops']:.1f}" for r in sgemm_runs)
    print(f"sgemm 1024³ (torch.mm, OpenBLAS): {sgemm:.1f} GFLOP/s (best of {len(sgemm_runs)}: {rates})")
    print(f"{'case':<40}{'PyTorch min/med ms':>20}{'attn min/med ms':>18}{'ratio min':>11}")
    if attn_mha:
        t, a = ms(torch_mha), ms(attn_mha)
        gflops = mha_flop(**SEED000) / (a * 1e-3) / 1e9
        print(f"{'seed000 MHA (8, 300, 768) h 8, weights':<40}{t:>10.1f} /{median_ms(torch_mha):>7.1f}"
              f"{a:>10.1f} /{median_ms(attn_mha):>6.1f}{a / t:>11.3f}")
        rss, held = max(r["peak_rss_mb"] for r in attn_mha), attn_mha[0]["tensor_mb"]
        print(f"  attn: {gflops:.1f} GFLOP/s = {100 * gflops / sgemm:.1f} % of sgemm; peak RSS {rss:.1f} MB for "
              f"{held:.1f} MB of tensors; CPU per call {ms(attn_mha, 'min_cpu_ms'):.1f} ms")
        report.target(f"seed000 MHA time <= 0.9 x PyTorch, {threads}T", a <= 0.9 * t, f"{a / t:.3f}")
        report.target(f"seed000 MHA >= 80 % of sgemm GFLOP/s, {threads}T", gflops >= 0.8 * sgemm,
                      f"{100 * gflops / sgemm:.1f} %")
        report.target(f"seed000 MHA peak RSS <= 1.5 x tensors, {threads}T", rss <= 1.5 * held, f"{rss / held:.2f}x")
        if old_mha:
            o = ms(old_mha)
            print(f"  the baseline binary: {o:.1f} / {median_ms(old_mha):.1f} ms (min / median), "
                  f"CPU per call {ms(old_mha, 'min_cpu_ms'):.1f} ms; this binary / baseline = {a / o:.3f} (min), "
                  f"{median_ms(attn_mha) / median_ms(old_mha):.3f} (median)")
            print(f"  every round, min ms: this {[round(r['min_ms'], 1) for r in attn_mha]}, "
                  f"baseline {[round(r['min_ms'], 1) for r in old_mha]}")
            report.target(f"seed000 MHA, weights kept, not slower than the baseline, {threads}T", a <= o * 1.02,
                          f"{a:.1f} vs {o:.1f} ms ({a / o:.3f}; 2 % allowed for noise)")
    if attn_enc:
        t, a = ms(torch_enc), ms(attn_enc)
        print(f"{'encoder layer (8, 128, 512) F 2048':<40}{t:>10.1f} /{median_ms(torch_enc):>7.1f}"
              f"{a:>10.1f} /{median_ms(attn_enc):>6.1f}{a / t:>11.3f}")
        report.target(f"encoder layer <= 1.0 x PyTorch, {threads}T", a <= t, f"{a / t:.3f}")
    return sgemm


def long_cases(args, attn, threads, sgemm, report):
    if "long4096" in args.cases:
        torch_runs, attn_runs = [], []
        shape = dict(LONG, seq=4096)
        alternate(args.rounds, [
            lambda: torch_runs.append(run_torch("long4096", threads, args.long_repeat, 4096, args.torch_memory_gb)),
            lambda: attn_runs.append(run_attn(attn, "mha", shape, threads, args.long_repeat, "--no-weights"))])
        a, a_rss = ms(attn_runs), max(r["peak_rss_mb"] for r in attn_runs)
        gflops = max(r["gflops"] for r in attn_runs)
        print(f"\nT = 4096, B 1, D 768, h 12, need_weights=False ({args.rounds} rounds × {args.long_repeat} calls)")
        if any("out_of_memory" in r for r in torch_runs):
            print(f"  PyTorch: out of memory: {torch_runs[0]['out_of_memory']}")
            report.target(f"T 4096 PyTorch ran, {threads}T", False, "out of memory")
            return
        t, t_rss = ms(torch_runs), max(r["peak_rss_mb"] for r in torch_runs)
        print(f"  PyTorch {t:.1f} / {median_ms(torch_runs):.1f} ms (min / median), peak RSS {t_rss:.0f} MB")
        print(f"  attn    {a:.1f} / {median_ms(attn_runs):.1f} ms, peak RSS {a_rss:.1f} MB, {gflops:.1f} GFLOP/s "
              f"= {100 * gflops / sgemm:.1f} % of sgemm (attention part "
              f"{max(r['attention_gflops'] for r in attn_runs):.1f} GFLOP/s)")
        print(f"  every round, min ms: PyTorch {[round(r['min_ms']) for r in torch_runs]}, "
              f"attn {[round(r['min_ms']) for r in attn_runs]}")
        report.target(f"T 4096 time <= 0.3 x PyTorch, {threads}T", a <= 0.3 * t, f"{a / t:.3f} ({a:.0f} vs {t:.0f} ms)")
        report.target(f"T 4096 peak RSS <= 0.1 x PyTorch, {threads}T", a_rss <= 0.1 * t_rss,
                      f"{a_rss / t_rss:.3f} ({a_rss:.0f} vs {t_rss:.0f} MB)")
        report.target(f"T 4096 GFLOP/s >= 75 % of sgemm, {threads}T", gflops >= 0.75 * sgemm,
                      f"{100 * gflops / sgemm:.1f} % ({gflops:.1f} of {sgemm:.1f})")
    for case, seq, flags, repeat in (("long16384", 16384, ["--no-weights"], 1),
                                     ("causal32768", 32768, ["--no-weights", "--causal", "--warmup", "0"], 1)):
        if case not in args.cases:
            continue
        shape = dict(LONG, seq=seq)
        pytorch = run_torch(case, threads, repeat, seq, args.torch_memory_gb)
        attn_run = run_attn(attn, "mha", shape, threads, repeat, *flags)
        causal = "--causal" in flags
        print(f"\nT = {seq}{', causal' if causal else ''}, B 1, D 768, h 12, need_weights=False (one timed call)")
        weights_gib = 12 * seq * seq * 4 / GiB
        if "out_of_memory" in pytorch:
            print(f"  PyTorch: out of memory under a {args.torch_memory_gb:g} GiB address-space limit "
                  f"(its scores and its weights are (12, {seq}, {seq}) float32, {weights_gib:.0f} GiB each): "
                  f"{pytorch['out_of_memory']}")
        else:
            print(f"  PyTorch {pytorch['min_ms']:.0f} ms, peak RSS {pytorch['peak_rss_mb']:.0f} MB")
        print(f"  attn    {attn_run['min_ms']:.0f} ms, peak RSS {attn_run['peak_rss_mb']:.1f} MB, {attn_run['gflops']:.1f} "
              f"GFLOP/s; attention part {attn_run['attention_ms']:.0f} ms for {attn_run['attention_gflop']:.0f} GFLOP = "
              f"{attn_run['attention_gflops']:.1f} GFLOP/s = {100 * attn_run['attention_gflops'] / sgemm:.1f} % of sgemm; "
              f"tiles computed {attn_run['tiles_computed']}, skipped {attn_run['tiles_skipped']}")
        report.target(f"T {seq}{' causal' if causal else ''} peak RSS <= 1 GiB, {threads}T",
                      attn_run["peak_rss_mb"] <= 1024, f"{attn_run['peak_rss_mb']:.0f} MB")
        report.target(f"T {seq}{' causal' if causal else ''} PyTorch out of memory recorded, {threads}T", True,
                      "out of memory" if "out_of_memory" in pytorch else f"ran: {pytorch['peak_rss_mb']:.0f} MB")
        if causal:
            share = attn_run["attention_gflops"] / sgemm
            report.target(f"T {seq} causal attention >= 60 % of sgemm, {threads}T", share >= 0.6, f"{100 * share:.1f} %")


def decode_cases(args, attn, threads, report):
    """attn bench decode against (a) the module re-run on every prefix, (b) the cached PyTorch loop."""
    shape = dict(DECODE, tokens=args.decode_tokens)
    loops, attns = [], []

    def with_load(runs, measure):
        load = os.getloadavg()[0]
        result = measure()
        result["load"] = (load + os.getloadavg()[0]) / 2
        runs.append(result)

    alternate(args.rounds, [
        lambda: with_load(attns, lambda: run_attn(attn, "decode", shape, threads, 1, "--warmup", "1")),
        lambda: with_load(loops, lambda: run_torch("decode-loop", threads, 1, shape["tokens"], args.torch_memory_gb))])
    # (a) is quadratic in N (512 tokens: minutes per generation on two busy cores): with
    # --decode-module-tokens M < N it is measured at M tokens, next to attn at M tokens. The ratio
    # at M is a lower bound of the ratio at N: (a)'s cost per token grows with the prefix, attn's
    # hardly (its attention over the cache is a small part of a step).
    m_tokens = args.decode_module_tokens or shape["tokens"]
    module, attn_small = [], []
    with_load(module, lambda: run_torch("decode-module", threads, 1, m_tokens, args.torch_memory_gb))
    with_load(attn_small, lambda: run_attn(attn, "decode", dict(shape, tokens=m_tokens), threads, 1, "--warmup", "1"))
    n = shape["tokens"]
    print(f"\ndecode: {n} tokens, 6 layers, D 512, h 8, F 2048, memory 512, batch 1 ({args.rounds} rounds; "
          f"(a) one generation of {m_tokens} tokens)")
    for name, runs, tokens in (("attn bench decode", attns, n), ("(b) PyTorch loop with a K/V cache", loops, n),
                               ("(a) nn.TransformerDecoder on the prefix", module, m_tokens),
                               ("attn bench decode, as many tokens as (a)", attn_small, m_tokens)):
        times = [r["min_ms"] for r in runs]
        print(f"  {name:<42}{tokens / (min(times) * 1e-3):>9.1f} tokens/s   {tokens} tokens: min {min(times):.0f} ms; "
              f"every round {[round(t) for t in times]} ms at load {[round(r['load'], 1) for r in runs]}")
    a, b, m, a_small = ms(attns), ms(loops), ms(module), ms(attn_small)
    best = min(attns, key=lambda r: r["min_ms"])
    print(f"  attn, fastest generation: weights read at {best['weights_gb_per_s']:.1f} GB/s "
          f"({best['step_parameter_mb']:.1f} MiB per token); projections {best['projection_ms']:.0f} ms, "
          f"attention {best['attention_ms']:.0f} ms")
    report.target(f"decode >= 10 x the module on the prefix, {m_tokens} tok, {threads}T",
                  a_small * 10 <= m, f"{m / a_small:.1f}x")
    report.target(f"decode >= the cached PyTorch loop, {n} tok, {threads}T", a <= b, f"{b / a:.2f}x")


def backward_cases(args, attn, threads, report):
    """One training step of self-attention: time at T = 1024 (alternating), peak memory at T = 4096."""
    def with_load(runs, measure):
        load = os.getloadavg()[0]
        result = measure()
        result["load"] = (load + os.getloadavg()[0]) / 2
        runs.append(result)

    torch_runs, attn_runs = [], []
    shape = dict(BACKWARD, seq=1024)
    alternate(args.rounds, [
        lambda: with_load(torch_runs, lambda: run_torch("mha-backward", threads, args.repeat, 1024, args.torch_memory_gb)),
        lambda: with_load(attn_runs, lambda: run_attn(attn, "mha", shape, threads, args.repeat, "--backward"))])
    t, a = ms(torch_runs), ms(attn_runs)
    best = min(attn_runs, key=lambda r: r["min_ms"])
    print(f"\nmha forward + backward, B 4, T 1024, D 512, h 8 ({args.rounds} rounds × {args.repeat} steps)")
    print(f"  PyTorch {t:.1f} / {median_ms(torch_runs):.1f} ms (min / median), peak RSS "
          f"{max(r['peak_rss_mb'] for r in torch_runs):.0f} MB; every round {[round(r['min_ms']) for r in torch_runs]} ms "
          f"at load {[round(r['load'], 1) for r in torch_runs]}")
    print(f"  attn    {a:.1f} / {median_ms(attn_runs):.1f} ms, peak RSS {max(r['peak_rss_mb'] for r in attn_runs):.0f} MB, "
          f"{best['gflops']:.1f} GFLOP/s; every round {[round(r['min_ms']) for r in attn_runs]} ms "
          f"at load {[round(r['load'], 1) for r in attn_runs]}")
    print(f"  attn, fastest step: forward {best['forward_ms']:.0f} ms (projections {best['forward_projection_ms']:.0f}, "
          f"attention {best['forward_attention_ms']:.0f}, output {best['forward_output_ms']:.0f}); backward "
          f"{best['backward_ms']:.0f} ms (output projection {best['backward_output_ms']:.0f}, attention "
          f"{best['backward_attention_ms']:.0f}, Q/K/V projections {best['backward_projection_ms']:.0f}, "
          f"the rest: x's gradient summed, allocations)")
    report.target(f"mha backward T 1024 time <= 1.0 x PyTorch, {threads}T", a <= t, f"{a / t:.3f} ({a:.0f} vs {t:.0f} ms)")

    long_shape = dict(BACKWARD, seq=4096)
    torch_long, attn_long = [], []
    with_load(torch_long, lambda: run_torch("mha-backward", threads, 1, 4096, args.torch_memory_gb))
    with_load(attn_long, lambda: run_attn(attn, "mha", long_shape, threads, 1, "--backward", "--warmup", "0"))
    a_rss = attn_long[0]["peak_rss_mb"]
    print(f"\nmha forward + backward, B 4, T 4096, D 512, h 8 (one step per process)")
    print(f"  attn    {attn_long[0]['min_ms']:.0f} ms, peak RSS {a_rss:.0f} MB at load {attn_long[0]['load']:.1f}")
    if "out_of_memory" in torch_long[0]:
        print(f"  PyTorch: out of memory under a {args.torch_memory_gb:g} GiB address-space limit: "
              f"{torch_long[0]['out_of_memory']}")
        report.target(f"mha backward T 4096 PyTorch ran, {threads}T", False, "out of memory")
        return
    t_rss = torch_long[0]["peak_rss_mb"]
    print(f"  PyTorch {torch_long[0]['min_ms']:.0f} ms, peak RSS {t_rss:.0f} MB at load {torch_long[0]['load']:.1f}")
    report.target(f"mha backward T 4096 peak RSS <= 0.2 x PyTorch, {threads}T", a_rss <= 0.2 * t_rss,
                  f"{a_rss / t_rss:.3f} ({a_rss:.0f} vs {t_rss:.0f} MB)")


def train_step_cases(args, attn, report):
    """One training step of the copy model at 1 and 2 threads, alternating within each round."""
    runs = {(side, threads): [] for side in ("torch", "attn") for threads in args.threads}

    def measure(side, threads):
        load = os.getloadavg()[0]
        if side == "torch":
            result = run_torch("train-step", threads, args.train_repeat, 0, args.torch_memory_gb)
        else:
            result = run_attn(attn, "train", TRAIN, threads, args.train_repeat)
        result["load"] = (load + os.getloadavg()[0]) / 2
        runs[side, threads].append(result)

    steps = [lambda side=side, threads=threads: measure(side, threads)
             for threads in args.threads for side in ("torch", "attn")]
    alternate(args.rounds, steps)
    print(f"\ntraining step, copy model V 11, D 512, h 8, 2 + 2 layers, F 2048, B 80, L 10 "
          f"({args.rounds} rounds × {args.train_repeat} steps, threads alternating)")
    for threads in args.threads:
        torch_runs, attn_runs = runs["torch", threads], runs["attn", threads]
        t, a = median_ms(torch_runs), median_ms(attn_runs)
        print(f"  {threads}T PyTorch median {t:.1f} ms (min {ms(torch_runs):.1f}), peak RSS "
              f"{max(r['peak_rss_mb'] for r in torch_runs):.0f} MB; rounds {[round(r['median_ms']) for r in torch_runs]} "
              f"at load {[round(r['load'], 1) for r in torch_runs]}")
        print(f"  {threads}T attn    median {a:.1f} ms (min {ms(attn_runs):.1f}), peak RSS "
              f"{max(r['peak_rss_mb'] for r in attn_runs):.0f} MB; rounds {[round(r['median_ms']) for r in attn_runs]} "
              f"at load {[round(r['load'], 1) for r in attn_runs]};  attn / PyTorch = {a / t:.3f}")
        report.target(f"train step time <= 1.0 x PyTorch, {threads}T", a <= t, f"{a / t:.3f} ({a:.0f} vs {t:.0f} ms)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attn", default="build/attn", help="the attn program (default: build/attn)")
    parser.add_argument("--baseline", help="an older attn program to time on seed000 beside this one")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10, help="timed calls per measurement (short cases)")
    parser.add_argument("--long-repeat", type=int, default=3, help="timed calls per measurement at T = 4096")
    parser.add_argument("--train-repeat", type=int, default=5, help="timed training steps per measurement (train-step)")
    parser.add_argument("--cases", nargs="+",
                        default=["seed000", "encoder", "long4096", "long16384", "causal32768", "decode", "mha-backward",
                                 "train-step", "cli"])
    parser.add_argument("--decode-tokens", type=int, default=DECODE["tokens"], help="tokens generated by the decode case")
    parser.add_argument("--decode-module-tokens", type=int, default=0,
                        help="tokens generated by nn.TransformerDecoder re-run on the prefix (default: --decode-tokens)")
    parser.add_argument("--torch-memory-gb", type=float, default=8.0,
                        help="address-space limit of PyTorch's processes (RLIMIT_AS), GiB")
    parser.add_argument("--seq", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--torch-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_worker:
        torch_worker(args.torch_worker, args.threads[0], args.repeat, args.seq)
        return 0

    attn = os.path.abspath(args.attn)
    if args.baseline:
        args.baseline = os.path.abspath(args.baseline)
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}   ({os.cpu_count()} CPUs)")
    report = Report()
    per_thread_cases = {"seed000", "encoder", "long4096", "long16384", "causal32768", "decode", "mha-backward"}
    for threads in args.threads if per_thread_cases & set(args.cases) else []:
        print(f"\n== {threads} thread{'s' if threads > 1 else ''} · {args.rounds} rounds ==")
        print(machine_header(attn, threads))
        sgemm = short_cases(args, attn, threads, [], report)
        long_cases(args, attn, threads, sgemm, report)
        if "decode" in args.cases:
            decode_cases(args, attn, threads, report)
        if "mha-backward" in args.cases:
            backward_cases(args, attn, threads, report)
    if "train-step" in args.cases:
        train_step_cases(args, attn, report)
    if "cli" in args.cases:
        check = best_time(attn, ["check"], 5)
        start = best_time(attn, ["--version"], 20)
        print(f"\nattn check (all lessons): {check * 1e3:.0f} ms (best of 5);  attn --version: {start * 1e3:.1f} ms "
              f"(best of 20, process start to exit)")
        report.target("attn check < 0.5 s", check < 0.5, f"{check * 1e3:.0f} ms")
        report.target("attn --version < 50 ms", start < 0.05, f"{start * 1e3:.1f} ms")
    print(f"\nload average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("\ntarget" + " " * 52 + "result  measured")
    for name, verdict, detail in report.rows:
        print(f"{name:<58}{verdict:<8}{detail}")
    if report.failures:
        print(f"\n{len(report.failures)} target(s) missed")
        return 1
    print("\nall targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
