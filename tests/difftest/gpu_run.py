#!/usr/bin/env python3
"""On the GPU machine: run every generated program of a directory prepared by
`difftest.py prepare` (or scripts/prepare_difftest.sh) under Triton and under tilec's PTX, on the
same inputs, and compare.

    python3 tests/difftest/gpu_run.py --dir out/difftest [--jobs 14] [--report out/difftest-report]

For each program (DIR/<name>/: <name>.tl, <name>.ptx + .json from tilec, spec.json, in_*.bin,
expected_*.bin from the generator's evaluator, interp_*.bin from tilec's interpreter):
  triton  the .tl imported as a module (bench.triton_kernel), launched with the spec's constexprs,
          num_warps and grid;
  tilec   the PTX through CuPy (bench.TilecKernel: block = 32 * num_warps, the metadata's shared
          memory), the same arguments;
both on copies of the same input buffers (outputs start from the same sentinel contents). Then:
  tilec vs Triton      every output bit-identical (NaN matching NaN), except outputs the
                       evaluator marked inexact (float sums whose order matters, float atomics),
                       which must agree within difftest.BOUND (a bound on any summation order);
  tilec vs interpreter integer outputs identical; float outputs within the same bound (the GPU
                       contracts a * b + c into an fma, as Triton does, and the interpreter
                       does not);
  Triton vs evaluator  reported (not a tilec failure): disagreement means the generator's model
                       of Triton is wrong, and the program says nothing about tilec.
Counts: programs, compiled (PTX present), ran (both), bit-identical, within bound, mismatches,
errors; one reproducer folder per mismatch or error under --report (the program, both outputs,
report.txt). Exit status 1 if any mismatch or tilec error.

Programs run in batches in worker processes (spawned, one CUDA context each): Triton's compile
of each program (~0.3 s) dominates, so --jobs near the CPU count is right. A CUDA error that
poisons a context ends its batch; the rest of the batch is re-run one program per process.
"""

import argparse
import collections
import json
import multiprocessing
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO_ROOT, "bench"))
import difftest  # noqa: E402  (BOUND)

torch = numpy = None


def setup():
    """Imports the GPU stack once per worker and hands it to bench.py's helpers."""
    global torch, numpy
    import cupy
    import numpy as np
    import torch as t
    import triton
    import bench
    torch, numpy = t, np
    bench.torch, bench.numpy, bench.cupy, bench.triton = t, np, cupy, triton
    return bench


def load(path, dtype, device="cuda"):
    """A raw buffer file as a tensor (bfloat16 through its 16-bit pattern)."""
    raw = numpy.fromfile(path, dtype=numpy.int16 if dtype == "bfloat16" else numpy.dtype(dtype))
    tensor = torch.from_numpy(raw.copy())
    if dtype == "bfloat16":
        tensor = tensor.view(torch.bfloat16)
    return tensor.to(device)


def raw(tensor):
    tensor = tensor.detach().contiguous().cpu()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    return tensor.numpy().tobytes()


def as_numpy(data, dtype):
    """Raw bytes (or a tensor) as (bit patterns, values): integers are their own values; floats'
    patterns are unsigned integers of their width and their values fp64 (bf16 through fp32).
    numpy, not torch: torch's uint16/32/64 lack comparisons on the CPU."""
    if not isinstance(data, (bytes, bytearray)):
        data = raw(data)
    if not (dtype.startswith("float") or dtype == "bfloat16"):
        values = numpy.frombuffer(data, dtype=numpy.dtype(dtype))
        return values, values
    width = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}[dtype]
    pattern = numpy.frombuffer(data, dtype=numpy.dtype(f"uint{8 * width}"))
    if dtype == "bfloat16":
        values = (pattern.astype(numpy.uint32) << 16).view(numpy.float32).astype(numpy.float64)
    else:
        values = pattern.view(numpy.dtype(dtype)).astype(numpy.float64)
    return pattern, values


def differ(got, expected, dtype, exact):
    """None if equal (bitwise; NaN matches NaN) or, for an inexact output, within the bound."""
    (gp, gv), (ep, ev) = as_numpy(got, dtype), as_numpy(expected, dtype)
    if gp.size != ep.size:
        return f"{gp.size} elements vs {ep.size}"
    same = gp == ep
    if gv is not gp:
        same |= numpy.isnan(gv) & numpy.isnan(ev)
        if not exact:
            finite = numpy.abs(ev[numpy.isfinite(ev)])
            scale = float(finite.max()) if finite.size else 0.0
            with numpy.errstate(invalid="ignore"):
                same |= numpy.abs(gv - ev) <= difftest.BOUND[dtype] * scale
    if bool(same.all()):
        return None
    wrong = numpy.flatnonzero(~same)
    i = int(wrong[0])
    return f"{wrong.size} of {gp.size} elements differ, first [{i}]: {gv[i]!r} vs {ev[i]!r}"


def run_one(bench, path):
    """The result of one program: a dict with status and details."""
    with open(os.path.join(path, "spec.json")) as f:
        spec = json.load(f)
    result = {"name": spec["name"], "status": None, "problems": [], "notes": []}
    if not os.path.exists(os.path.join(path, spec["ptx"])):
        result["status"] = "not compiled"
        return result, {}
    grid = tuple(spec["grid"])
    params = spec["params"]
    outputs = {o["name"]: o for o in spec["outputs"]}

    def fresh():
        return {p["name"]: load(os.path.join(path, p["file"]), p["dtype"])
                for p in params if p["kind"] == "ptr"}

    got = {}
    # Triton: every parameter by name; the constexprs as keywords, as bench.triton_launcher does.
    try:
        kernel = bench.triton_kernel(os.path.join(path, spec["source"]), spec["kernel"])
        buffers = fresh()
        kwargs = {p["name"]: buffers[p["name"]] if p["kind"] == "ptr" else p["value"]
                  for p in params if p["kind"] != "constexpr"}
        kernel[grid](**kwargs, **spec["constexprs"], num_warps=spec["num_warps"])
        torch.cuda.synchronize()
        got["triton"] = {n: buffers[n] for n in outputs}
    except Exception as error:
        result["notes"].append(f"triton: {type(error).__name__}: {str(error)[-1500:]}")
        if "CUDA" in str(error) or "illegal" in str(error):
            raise
    # tilec: the run-time parameters in the metadata's order.
    try:
        k = bench.TilecKernel(os.path.join(path, spec["ptx"]), os.path.join(path, spec["metadata"]),
                              spec["kernel"])
        buffers = fresh()
        values = {p["name"]: buffers[p["name"]] if p["kind"] == "ptr" else p["value"]
                  for p in params}
        k.launcher([values[p["name"]] for p in k.info["params"]], grid)()
        torch.cuda.synchronize()
        got["tilec"] = {n: buffers[n] for n in outputs}
    except Exception as error:
        result["problems"].append(f"tilec: {type(error).__name__}: {str(error)[-1500:]}")
        result["status"] = "tilec error"
        if "CUDA" in str(error) or "illegal" in str(error):
            raise
        return result, got

    exact_vs_triton = True
    if "triton" in got:
        for n, o in outputs.items():
            problem = differ(got["tilec"][n], got["triton"][n], o["dtype"], True)
            if problem and not o["exact"]:
                exact_vs_triton = False
                problem = differ(got["tilec"][n], got["triton"][n], o["dtype"], False)
            if problem:
                result["problems"].append(f"tilec vs triton, {n} ({o['dtype']}): {problem}")
            with open(os.path.join(path, f"expected_{n}.bin"), "rb") as f:
                problem = differ(got["triton"][n], f.read(), o["dtype"], o["exact"])
            if problem:
                result["notes"].append(f"triton vs evaluator, {n}: {problem}")
    for n, o in outputs.items():
        interp = os.path.join(path, f"interp_{n}.bin")
        if not os.path.exists(interp):
            result["notes"].append(f"no interpreter output for {n}")
            continue
        is_float = o["dtype"].startswith("float") or o["dtype"] == "bfloat16"
        with open(interp, "rb") as f:
            problem = differ(got["tilec"][n], f.read(), o["dtype"], o["exact"] and not is_float)
        if problem:
            result["problems"].append(f"tilec vs interpreter, {n} ({o['dtype']}): {problem}")
    if "triton" not in got:
        result["status"] = "triton error"
    elif result["problems"]:
        result["status"] = "mismatch"
    else:
        result["status"] = "bit-identical" if exact_vs_triton else "within bound"
    return result, got


def redirect_stderr(log):
    """Pool initializer: this worker's stderr (fd 2, which Triton's C++ writes to) into `log`."""
    handle = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(handle, 2)
    os.close(handle)


def run_batch(paths):
    """Runs programs in this (fresh) process; stops at a CUDA error, which poisons the context,
    and returns the programs it did not reach."""
    bench = setup()
    results = []
    for i, path in enumerate(paths):
        started = time.time()
        try:
            result, got = run_one(bench, path)
        except Exception as error:
            result = {"name": os.path.basename(path), "status": "cuda error",
                      "problems": [f"{type(error).__name__}: {error}"], "notes": [], "got": {}}
            results.append(result)
            return results, paths[i + 1:]
        result["seconds"] = round(time.time() - started, 2)
        result["got"] = {provider: {n: raw(t) for n, t in outs.items()}
                         for provider, outs in got.items()} if result["status"] not in (
            "bit-identical", "within bound") else {}
        results.append(result)
    return results, []


def write_reproducer(report_dir, program_dir, result):
    folder = os.path.join(report_dir, result["name"])
    shutil.copytree(program_dir, folder, dirs_exist_ok=True)
    for provider, outs in result.get("got", {}).items():
        for n, data in outs.items():
            with open(os.path.join(folder, f"{provider}_{n}.bin"), "wb") as f:
                f.write(data)
    with open(os.path.join(folder, "report.txt"), "w") as f:
        f.write(f"{result['name']}: {result['status']}\n")
        for line in result["problems"] + result["notes"]:
            f.write(line + "\n")
        f.write("\nReproduce here (with the compiler): tilec "
                f"{result['name']}.tl -k {result['name']} -s \"$(jq -r .signature spec.json)\" "
                "--num-warps $(jq .num_warps spec.json) -o x.ptx\n"
                "On the GPU: python3 tests/difftest/gpu_run.py --dir <parent of this folder> "
                f"--only {result['name']}\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default=os.path.join(REPO_ROOT, "out", "difftest"))
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    parser.add_argument("--batch", type=int, default=40, help="programs per worker process")
    parser.add_argument("--report", help="reproducer folders (default: DIR-report)")
    parser.add_argument("--only", nargs="*", help="these programs only")
    args = parser.parse_args(argv)
    report = args.report or args.dir.rstrip("/") + "-report"
    names = sorted(n for n in os.listdir(args.dir)
                   if os.path.isfile(os.path.join(args.dir, n, "spec.json")))
    if args.only:
        names = [n for n in names if n in args.only]
    paths = [os.path.join(args.dir, n) for n in names]
    started = time.time()

    # Interleaved batches, so that every worker gets a mix of small and large programs.
    batches = [paths[i::max(1, len(paths) // args.batch)] for i in range(max(1, len(paths) // args.batch))]
    results = []
    # Triton prints the whole MLIR module of a program it cannot compile to stderr: the workers'
    # stderr goes to a log, so that the summary stays readable; each result is appended to a
    # JSON-lines file as it comes, so that a run cut short still says what it found.
    os.makedirs(report, exist_ok=True)
    partial = open(os.path.join(report, "results.partial.jsonl"), "w")
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.jobs, maxtasksperchild=1, initializer=redirect_stderr,
                      initargs=(os.path.join(report, "workers.log"),)) as pool:
        pending = [pool.apply_async(run_batch, (b,)) for b in batches if b]
        while pending:
            done, left = pending.pop(0).get()
            results += done
            for r in done:
                partial.write(json.dumps({k: v for k, v in r.items() if k != "got"}) + "\n")
            partial.flush()
            for r in done:
                if r["status"] not in ("bit-identical", "within bound"):
                    print(f"{r['status'].upper()} {r['name']}: "
                          + " | ".join(r["problems"] + r["notes"])[:1500], flush=True)
            # The programs after a CUDA error, one per process.
            pending += [pool.apply_async(run_batch, ([p],)) for p in left]
            print(f"... {len(results)}/{len(paths)} in {time.time() - started:.0f} s", flush=True)

    partial.close()
    counts = collections.Counter(r["status"] for r in results)
    for entry in os.listdir(report):
        if entry not in ("workers.log", "results.partial.jsonl"):
            shutil.rmtree(os.path.join(report, entry), ignore_errors=True)
    for r in results:
        if r["status"] not in ("bit-identical", "within bound"):
            write_reproducer(report, os.path.join(args.dir, r["name"]), r)
    with open(os.path.join(report, "results.json"), "w") as f:
        json.dump([{k: v for k, v in r.items() if k != "got"} for r in results], f, indent=1)
    compiled = len(results) - counts["not compiled"]
    ran = counts["bit-identical"] + counts["within bound"] + counts["mismatch"]
    evaluator = sum(1 for r in results if any(n.startswith("triton vs evaluator") for n in r["notes"]))
    import torch as t
    print(f"gpu_run: {t.cuda.get_device_name()}, {time.time() - started:.0f} s, {args.jobs} jobs")
    print(f"gpu_run: programs {len(results)}, compiled {compiled}, ran {ran}, "
          f"bit-identical {counts['bit-identical']}, within bound {counts['within bound']}, "
          f"mismatches {counts['mismatch']}, tilec errors {counts['tilec error'] + counts['cuda error']}, "
          f"triton errors {counts['triton error']}; Triton disagreeing with the evaluator: "
          f"{evaluator}; reproducers in {report}")
    return 1 if counts["mismatch"] or counts["tilec error"] or counts["cuda error"] else 0


if __name__ == "__main__":
    sys.exit(main())
