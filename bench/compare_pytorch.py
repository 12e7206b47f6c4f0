#!/usr/bin/python3
"""attn's float32 fast path next to PyTorch on the same CPU, same threads, same shapes.

    /usr/bin/python3 bench/compare_pytorch.py --attn build/attn [--threads 1 2] [--rounds 3]

For each thread count it measures, in one run:
  * the sgemm ceiling: torch.mm on 1024 x 1024 float32 matrices (OpenBLAS's sgemm), in GFLOP/s;
  * PyTorch: torch.nn.MultiheadAttention(768, 8) called with need_weights=True,
    average_attn_weights=False on (8, 300, 768), and torch.nn.TransformerEncoderLayer(512, 8, 2048,
    dropout=0.0) in eval mode on (8, 128, 512), under torch.inference_mode();
  * `attn bench mha --json` and `attn bench encoder-layer --json` with the same shapes.
PyTorch runs in a child process started with OPENBLAS_NUM_THREADS and OMP_NUM_THREADS set and
torch.set_num_threads(n) called (OpenBLAS reads its thread count when it is loaded, so each thread
count needs its own process); attn gets the same environment and --threads n. The two alternate,
in swapped order on odd rounds, `--rounds` times; each measurement is the minimum (and median) of
`--repeat` timed calls after warm-up, and the table uses the minimum over rounds (and the median
of the round medians): on a shared machine the minimum is the run least disturbed by others.

PyTorch's MHA is timed with batch_first=True (input (B, T, D), as attn takes it) and with
batch_first=False (input (T, B, D), transposed outside the timing); the faster is the reference.

Targets (exit status 1 when one is missed):
  MHA time  <= 0.9 x PyTorch's;  MHA GFLOP/s >= 80 % of the sgemm GFLOP/s of the same run
  encoder layer time <= 1.0 x PyTorch's
  peak resident memory of `attn bench mha` <= 1.5 x the tensors it must hold
  `attn check` (all lessons) < 0.5 s;  `attn --version` < 50 ms
The load average before and after is printed: other processes on the machine slow both sides,
and the ratios then say less than on a quiet machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MHA = dict(batch=8, seq=300, d_model=768, heads=8)
ENCODER = dict(batch=8, seq=128, d_model=512, heads=8, d_ff=2048)


def mha_flop(batch, seq, d_model, **_):
    """The FLOPs `attn bench` counts: 8·B·T·D² (Q, K, V, output projections) + 4·B·T²·D (QKᵀ, weights·V)."""
    return 8.0 * batch * seq * d_model ** 2 + 4.0 * batch * seq ** 2 * d_model


# ------------------------------------------------------------------------------------------------
# The PyTorch side, run in a child process per thread count.

def torch_worker(threads, repeat):
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)

    def timed(call, n):
        for _ in range(2):
            call()
        times = []
        for _ in range(n):
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1e3)
        return {"min_ms": min(times), "median_ms": statistics.median(times)}

    result = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    a, b = torch.rand(1024, 1024), torch.rand(1024, 1024)
    sgemm = timed(lambda: torch.mm(a, b), 20)
    result["sgemm_gflops"] = 2 * 1024 ** 3 / (sgemm["min_ms"] * 1e-3) / 1e9

    B, T, D, h = MHA["batch"], MHA["seq"], MHA["d_model"], MHA["heads"]
    x = torch.rand(B, T, D)
    with torch.inference_mode():
        variants = {}
        for batch_first in (True, False):
            mha = torch.nn.MultiheadAttention(D, h, batch_first=batch_first).eval()
            inp = x if batch_first else x.transpose(0, 1).contiguous()
            out = mha(inp, inp, inp, need_weights=True, average_attn_weights=False)
            assert tuple(out[1].shape) == (B, h, T, T)
            variants[batch_first] = timed(
                lambda: mha(inp, inp, inp, need_weights=True, average_attn_weights=False), repeat)
        best = min(variants, key=lambda k: variants[k]["min_ms"])
        result["mha"] = dict(variants[best], batch_first=best,
                             other_min_ms=variants[not best]["min_ms"])

        B, T, D, h, F = (ENCODER[k] for k in ("batch", "seq", "d_model", "heads", "d_ff"))
        layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, batch_first=True).eval()
        y = torch.rand(B, T, D)
        result["encoder-layer"] = timed(lambda: layer(y), repeat * 2)
    print(json.dumps(result))


# ------------------------------------------------------------------------------------------------
# The driver.

def environment(threads):
    env = dict(os.environ)
    env["OPENBLAS_NUM_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def run_torch(threads, repeat):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-worker", "--threads", str(threads),
                          "--repeat", str(repeat)], env=environment(threads), check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout)


def run_attn(attn, module, shape, threads, repeat):
    args = [attn, "bench", module, "--json", "--threads", str(threads), "--repeat", str(repeat)]
    for key, value in shape.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    out = subprocess.run(args, env=environment(threads), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def best_time(attn, args, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([attn] + args, check=True, capture_output=True, env=dict(os.environ, NO_COLOR="1"))
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attn", default="build/attn", help="the attn program (default: build/attn)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10, help="timed calls per measurement")
    parser.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_worker:
        torch_worker(args.threads[0], args.repeat)
        return 0

    attn = os.path.abspath(args.attn)
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}   ({os.cpu_count()} CPUs)")
    rows, failures = [], []

    def target(name, ok, detail):
        rows.append((name, "PASS" if ok else "FAIL", detail))
        if not ok:
            failures.append(name)

    for threads in args.threads:
        torch_runs, attn_mha, attn_enc = [], [], []
        for round_ in range(args.rounds):
            steps = [lambda: torch_runs.append(run_torch(threads, args.repeat)),
                     lambda: (attn_mha.append(run_attn(attn, "mha", MHA, threads, args.repeat)),
                              attn_enc.append(run_attn(attn, "encoder-layer", ENCODER, threads, args.repeat * 2)))]
            for step in (steps if round_ % 2 == 0 else steps[::-1]):
                step()
        sgemm = max(r["sgemm_gflops"] for r in torch_runs)
        t_mha = min(r["mha"]["min_ms"] for r in torch_runs)
        t_mha_med = statistics.median(r["mha"]["median_ms"] for r in torch_runs)
        t_enc = min(r["encoder-layer"]["min_ms"] for r in torch_runs)
        t_enc_med = statistics.median(r["encoder-layer"]["median_ms"] for r in torch_runs)
        a_mha = min(r["min_ms"] for r in attn_mha)
        a_mha_med = statistics.median(r["median_ms"] for r in attn_mha)
        a_enc = min(r["min_ms"] for r in attn_enc)
        a_enc_med = statistics.median(r["median_ms"] for r in attn_enc)
        a_gflops = mha_flop(**MHA) / (a_mha * 1e-3) / 1e9
        rss = max(r["peak_rss_mb"] for r in attn_mha)
        held = attn_mha[0]["tensor_mb"]
        layouts = sorted({"batch_first" if r["mha"]["batch_first"] else "seq_first" for r in torch_runs})

        print(f"\n== {threads} thread{'s' if threads > 1 else ''} · PyTorch {torch_runs[0]['torch']} · "
              f"{args.rounds} rounds × {args.repeat} calls ==")
        print(f"sgemm 1024³ (torch.mm, OpenBLAS): {sgemm:.1f} GFLOP/s (best round)")
        print(f"{'case':<34}{'PyTorch min/med ms':>20}{'attn min/med ms':>18}{'ratio min/med':>15}")
        print(f"{'MHA (8, 300, 768) h 8, weights':<34}{t_mha:>10.1f} /{t_mha_med:>7.1f}{a_mha:>10.1f} /{a_mha_med:>6.1f}"
              f"{a_mha / t_mha:>9.3f} /{a_mha_med / t_mha_med:>5.3f}")
        print(f"{'encoder layer (8, 128, 512) F 2048':<34}{t_enc:>10.1f} /{t_enc_med:>7.1f}{a_enc:>10.1f} /{a_enc_med:>6.1f}"
              f"{a_enc / t_enc:>9.3f} /{a_enc_med / t_enc_med:>5.3f}")
        print(f"PyTorch MHA layout used: {', '.join(layouts)} (the faster of batch_first True/False per round)")
        print(f"attn MHA: {a_gflops:.1f} GFLOP/s = {100 * a_gflops / sgemm:.1f} % of sgemm; "
              f"peak RSS {rss:.1f} MB for {held:.1f} MB of tensors ({rss / held:.2f}x)")
        target(f"MHA time <= 0.9 x PyTorch, {threads}T", a_mha <= 0.9 * t_mha, f"{a_mha / t_mha:.3f}")
        target(f"MHA >= 80 % of sgemm GFLOP/s, {threads}T", a_gflops >= 0.8 * sgemm,
               f"{100 * a_gflops / sgemm:.1f} %")
        target(f"encoder layer <= 1.0 x PyTorch, {threads}T", a_enc <= t_enc, f"{a_enc / t_enc:.3f}")
        target(f"MHA peak RSS <= 1.5 x tensors, {threads}T", rss <= 1.5 * held, f"{rss / held:.2f}x")

    check = best_time(attn, ["check"], 5)
    start = best_time(attn, ["--version"], 20)
    print(f"\nattn check (all lessons): {check * 1e3:.0f} ms (best of 5);  attn --version: {start * 1e3:.1f} ms "
          f"(best of 20, process start to exit)")
    target("attn check < 0.5 s", check < 0.5, f"{check * 1e3:.0f} ms")
    target("attn --version < 50 ms", start < 0.05, f"{start * 1e3:.1f} ms")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")

    print("\ntarget" + " " * 38 + "result  measured")
    for name, verdict, detail in rows:
        print(f"{name:<44}{verdict:<8}{detail}")
    if failures:
        print(f"\n{len(failures)} target(s) missed")
        return 1
    print("\nall targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
