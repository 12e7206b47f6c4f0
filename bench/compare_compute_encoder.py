#!/usr/bin/python3
"""The whole `attn compute encoder` process next to PyTorch's forward of the same model in memory.

    /usr/bin/python3 bench/compare_compute_encoder.py --attn build/attn [--threads 1] [--rounds 5]
        [--layers 6 --d-model 512 --heads 8 --d-ff 2048 --batch 4 --seq 512]

Writes a seeded torch.nn.TransformerEncoder(TransformerEncoderLayer(d_model, heads, d_ff,
dropout=0.0, batch_first=True), layers, norm=LayerNorm(d_model)) as numpy.savez writes a
state_dict (model.npz, float32: about 75 MB at the default sizes) and x (batch, seq, d_model) as
x.npy, in a scratch folder. Then, alternating the two sides (swapped order on odd rounds):
  * attn: `attn compute encoder --in IN --out OUT --weights model.npz --heads h --threads n`, the
    whole process timed from start to exit (reading the archive, the forward, writing the output)
    and its peak resident memory (/usr/bin/time's maximum resident set size);
  * PyTorch: in a child process with torch.set_num_threads(n), the same model built in memory,
    one warm-up forward under torch.no_grad(), then the forward timed alone.
OPENBLAS_NUM_THREADS and OMP_NUM_THREADS are n on both sides. Each side's figure is the best of
--rounds (on a shared machine the best run is the one least disturbed by others), with the CPU
time of the same span (user + system: less disturbed by other processes than the wall time); the load
average before and after is printed, with the machine (attn bench's header, as
bench/compare_pytorch.py prints it). attn's output is compared with PyTorch's.

Targets (exit status 1 when one is missed): attn's whole process <= 1.2 x PyTorch's forward, peak
RSS <= 250 MB, and the output within 1e-4 of PyTorch's (float32 rounding through 6 layers).
"""
import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare_pytorch import environment, machine_header  # noqa: E402


def build_model(args):
    import torch

    torch.manual_seed(args.seed)
    layer = torch.nn.TransformerEncoderLayer(args.d_model, args.heads, args.d_ff, dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, args.layers, norm=torch.nn.LayerNorm(args.d_model)).eval()
    with torch.no_grad():  # every layer its own weights (nn.TransformerEncoder deep-copies the layer)
        for parameter in encoder.parameters():
            parameter.add_(0.02 * torch.randn_like(parameter))
    x = torch.randn(args.batch, args.seq, args.d_model)
    return encoder, x


def torch_worker(args):
    import torch

    torch.set_num_threads(args.threads)
    encoder, x = build_model(args)
    with torch.no_grad():
        encoder(x)  # warm-up
        start, cpu_start = time.perf_counter(), time.process_time()
        output = encoder(x)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    import numpy as np
    np.save(args.torch_output, output.numpy())
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def write_inputs(args, folder):
    import numpy as np

    encoder, x = build_model(args)
    (folder / "in").mkdir()
    np.save(folder / "in" / "x.npy", x.numpy())
    state = {name: tensor.detach().numpy() for name, tensor in encoder.state_dict().items()}
    np.savez(folder / "model.npz", **state)
    return (folder / "model.npz").stat().st_size


def run_attn(args, folder):
    out = folder / "out"
    command = [args.attn, "compute", "encoder", "--in", str(folder / "in"), "--out", str(out),
               "--weights", str(folder / "model.npz"), "--heads", str(args.heads), "--threads", str(args.threads)]
    # /usr/bin/time -v's maximum resident set size, from a small parent: the ru_maxrss this script
    # would get for its own child counts the pages of the Python process it was forked from.
    rss_file = folder / "rss.txt"
    start = time.perf_counter()
    finished = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", str(rss_file)] + command, env=environment(args.threads),
                              capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if finished.returncode != 0:
        sys.exit(f"attn failed:\n{finished.stdout}{finished.stderr}")
    user, system, peak_kb = rss_file.read_text().split()[-3:]
    return {"seconds": seconds, "cpu_seconds": float(user) + float(system), "peak_rss_mb": int(peak_kb) / 1024,
            "said": finished.stdout.strip().splitlines()[-1]}


def run_torch(args, folder):
    command = [sys.executable, os.path.abspath(__file__), "--torch-worker", "--torch-output", str(folder / "torch.npy")]
    for key in ("threads", "layers", "d_model", "heads", "d_ff", "batch", "seq", "seed"):
        command += ["--" + key.replace("_", "-"), str(getattr(args, key))]
    out = subprocess.run(command, env=environment(args.threads), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def load_average():
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attn", default="build/attn")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--d-ff", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--torch-output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_worker:
        return torch_worker(args)

    import numpy as np

    print(machine_header(args.attn, args.threads))
    print(f"load average before: {load_average()}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = pathlib.Path(scratch)
        archive_bytes = write_inputs(args, folder)
        print(f"TransformerEncoder({args.layers} x TransformerEncoderLayer({args.d_model}, {args.heads}, {args.d_ff}, "
              f"dropout=0.0, batch_first=True), norm=LayerNorm) on x ({args.batch}, {args.seq}, {args.d_model}); "
              f"model.npz {archive_bytes / 1e6:.1f} MB; {args.threads} thread(s)")
        attn_runs, torch_runs = [], []
        for round_ in range(args.rounds):
            steps = [lambda: attn_runs.append(run_attn(args, folder)), lambda: torch_runs.append(run_torch(args, folder))]
            for step in steps if round_ % 2 == 0 else steps[::-1]:
                step()
        difference = float(np.abs(np.load(folder / "out" / "output.npy") - np.load(folder / "torch.npy")).max())
    print(f"load average after: {load_average()}")
    attn_s = min(r["seconds"] for r in attn_runs)
    attn_rss = max(r["peak_rss_mb"] for r in attn_runs)
    torch_s = min(r["seconds"] for r in torch_runs)
    torch_rss = max(r["peak_rss_mb"] for r in torch_runs)
    def all_ms(runs, key="seconds"):
        return ", ".join(f"{r[key] * 1e3:.0f}" for r in runs)
    attn_cpu = min(r["cpu_seconds"] for r in attn_runs)
    torch_cpu = min(r["cpu_seconds"] for r in torch_runs)
    print(f"attn compute encoder, whole process: {attn_s * 1e3:.0f} ms (best of {args.rounds}; all: {all_ms(attn_runs)}), "
          f"CPU time {attn_cpu * 1e3:.0f} ms (all: {all_ms(attn_runs, 'cpu_seconds')}), peak RSS {attn_rss:.0f} MB; "
          f"{attn_runs[-1]['said']}")
    print(f"PyTorch forward, model in memory: {torch_s * 1e3:.0f} ms (best of {args.rounds}; all: {all_ms(torch_runs)}), "
          f"CPU time {torch_cpu * 1e3:.0f} ms (all: {all_ms(torch_runs, 'cpu_seconds')}), its process's peak RSS "
          f"{torch_rss:.0f} MB")
    # On a busy machine the wall times wait for other processes; the CPU times much less so.
    print(f"CPU time ratio (attn's whole process / PyTorch's forward): {attn_cpu / torch_cpu:.2f}")
    ratio = attn_s / torch_s
    checks = [("time <= 1.2 x PyTorch's forward", ratio <= 1.2, f"{ratio:.2f} x"),
              ("peak RSS <= 250 MB", attn_rss <= 250, f"{attn_rss:.0f} MB"),
              ("output within 1e-4 of PyTorch's", difference <= 1e-4, f"max |diff| {difference:.2e}")]
    for name, ok, detail in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
