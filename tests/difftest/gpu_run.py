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

Programs run in batches in worker processes (this script with --worker, one CUDA context each):
Triton's compile of each program (~0.3 s) dominates, so --jobs near the CPU count is right. A
worker reports each program as it starts and as it ends. A CUDA error that poisons a context
ends its batch; a worker that dies (a crash in Triton, CuPy or the driver) or makes no progress
for --timeout seconds (a kernel that never ends) is killed, and its program is reported as
"crash" or "hang". Either way the rest of the batch goes on in a new worker. The worker also
says which side runs (Triton's compile and run, or tilec's launch): a program stuck in Triton's
side is a "triton hang" (Triton 3.6's make_ttgir never finishes, for one, on a loop that carries
a 2x2 tile through tl.trans on 4 warps), not a tilec failure, and it runs again with tilec alone,
against the interpreter.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
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


def differ(got, expected, dtype, exact, bound_dtype=None):
    """None if equal (bitwise; NaN matches NaN) or, for an inexact output, within the bound of
    bound_dtype (the coarsest type its values were computed in; default dtype)."""
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
                same |= numpy.abs(gv - ev) <= difftest.BOUND[bound_dtype or dtype] * scale
    if bool(same.all()):
        return None
    wrong = numpy.flatnonzero(~same)
    i = int(wrong[0])
    return f"{wrong.size} of {gp.size} elements differ, first [{i}]: {gv[i]!r} vs {ev[i]!r}"


def run_one(bench, path, phase=lambda side: None):
    """The result of one program: a dict with status and details. phase(side) is called as each
    side starts ("triton": its compile and run; "tilec": the launch of tilec's PTX), so that the
    runner can say which side a program that never finishes was stuck in."""
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
    provider = os.environ.get("GPU_RUN_PROVIDER", "both")  # --provider: one side alone
    # Triton: every parameter by name; the constexprs as keywords, as bench.triton_launcher does.
    try:
        if provider == "tilec":
            raise LookupError("skipped (--provider tilec)")
        phase("triton")
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
    if provider == "triton":
        result["status"] = "triton ran" if "triton" in got else "triton error"
        return result, {}
    # tilec: the run-time parameters in the metadata's order.
    phase("tilec")
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
                problem = differ(got["tilec"][n], got["triton"][n], o["dtype"], False,
                                 o.get("bound_dtype"))
            if problem:
                result["problems"].append(f"tilec vs triton, {n} ({o['dtype']}): {problem}")
            with open(os.path.join(path, f"expected_{n}.bin"), "rb") as f:
                problem = differ(got["triton"][n], f.read(), o["dtype"], o["exact"],
                                 o.get("bound_dtype"))
            if problem:
                result["notes"].append(f"triton vs evaluator, {n}: {problem}")
    for n, o in outputs.items():
        interp = os.path.join(path, f"interp_{n}.bin")
        if not os.path.exists(interp):
            result["notes"].append(f"no interpreter output for {n}")
            continue
        is_float = o["dtype"].startswith("float") or o["dtype"] == "bfloat16"
        with open(interp, "rb") as f:
            problem = differ(got["tilec"][n], f.read(), o["dtype"], o["exact"] and not is_float,
                             o.get("bound_dtype"))
        if problem:
            result["problems"].append(f"tilec vs interpreter, {n} ({o['dtype']}): {problem}")
    if provider == "tilec":
        result["status"] = "mismatch" if result["problems"] else "tilec ran"
    elif "triton" not in got:
        result["status"] = "triton error"
    elif result["problems"]:
        result["status"] = "mismatch"
    else:
        result["status"] = "bit-identical" if exact_vs_triton else "within bound"
    return result, got


def worker_main(results_file, report, paths):
    """--worker: runs programs in this (fresh) process, one JSON line per program as it starts
    and as it ends; writes the reproducer of each program that does not agree; stops at a CUDA
    error, which poisons the context (the caller runs the rest elsewhere)."""
    fake = os.environ.get("GPU_RUN_FAKE")  # the runner's own test (runner_test.py): no GPU
    bench = None if fake else setup()
    with open(results_file, "a") as out:
        def phase(side):
            out.write(json.dumps({"phase": side}) + "\n")
            out.flush()

        for path in paths:
            out.write(json.dumps({"started": os.path.basename(path)}) + "\n")
            out.flush()
            started = time.time()
            try:
                result, got = fake_run(path, fake, phase) if fake else run_one(bench, path, phase)
            except Exception as error:
                result = {"name": os.path.basename(path), "status": "cuda error",
                          "problems": [f"{type(error).__name__}: {error}"], "notes": []}
                out.write(json.dumps(result) + "\n")
                return 0
            result["seconds"] = round(time.time() - started, 2)
            if result["status"] not in ("bit-identical", "within bound", "tilec ran", "triton ran"):
                result["got"] = {provider: {n: raw(t) for n, t in outs.items()}
                                 for provider, outs in got.items()}
                write_reproducer(report, path, result)
                del result["got"]
            out.write(json.dumps(result) + "\n")
            out.flush()
    return 0


def fake_run(path, plan, phase):
    """For runner_test.py: `plan` maps program names to what happens (hang, crash, cuda error,
    mismatch, triton hang; "name=what,..."); other programs are bit-identical."""
    name = os.path.basename(path)
    what = dict(item.split("=") for item in plan.split(",")).get(name, "ok")
    if what == "triton hang":
        if os.environ.get("GPU_RUN_PROVIDER") == "tilec":
            return {"name": name, "status": "tilec ran", "problems": [], "notes": []}, {}
        phase("triton")
        time.sleep(3600)
    phase("tilec")
    if what == "hang":
        time.sleep(3600)
    if what == "crash":
        os._exit(9)
    if what == "cuda error":
        raise RuntimeError("CUDA_ERROR_ILLEGAL_ADDRESS (fake)")
    status = "mismatch" if what == "mismatch" else "bit-identical"
    return {"name": name, "status": status, "problems": [what], "notes": []}, {}


class Worker:
    """One worker process on a batch of programs, and what it has reported so far."""

    def __init__(self, batch, report, index, provider):
        self.batch, self.provider = batch, provider
        self.results_file = os.path.join(report, f"worker-{index}.jsonl")
        self.log = open(os.path.join(report, "workers.log"), "a")
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", self.results_file,
             "--report", report] + batch, stdout=self.log, stderr=self.log,
            env=dict(os.environ, GPU_RUN_PROVIDER=provider))
        self.offset = 0
        self.current = None  # the program started and not finished
        self.phase = None  # the side of it that runs now: "triton" or "tilec"
        self.finished = set()
        self.progress = time.time()

    def poll(self):
        """The results reported since the last call."""
        if not os.path.exists(self.results_file):
            return []
        with open(self.results_file) as f:
            f.seek(self.offset)
            text = f.read()
        complete = text[:text.rfind("\n") + 1]
        self.offset += len(complete)
        results = []
        for line in complete.splitlines():
            entry = json.loads(line)
            self.progress = time.time()
            if "started" in entry:
                self.current, self.phase = entry["started"], None
                continue
            if "phase" in entry:
                self.phase = entry["phase"]
                continue
            self.current = None
            self.finished.add(entry["name"])
            results.append(entry)
        return results

    def unreached(self):
        """The programs of the batch neither finished nor the one it died on."""
        return [p for p in self.batch if os.path.basename(p) not in self.finished
                and os.path.basename(p) != self.current]


def run_all(paths, jobs, batch_size, report, timeout, partial, provider="both"):
    """Runs every program through workers; returns their results.

    A program that never finishes is a "hang" (or "crash") when it was stuck in tilec's side, and
    a "triton hang" ("triton crash") when it was stuck in Triton's compile or run: then it runs
    again with tilec alone (checked against the interpreter), so that tilec's side of it is
    still tested, and that result is added to the entry."""
    batches = max(1, len(paths) // batch_size)
    # Interleaved batches, so that every worker gets a mix of small and large programs.
    queue = collections.deque((b, provider) for b in (paths[i::batches] for i in range(batches))
                              if b)
    by_name = {os.path.basename(p): p for p in paths}
    running, results, started, count = [], [], time.time(), 0
    triton_stalled = {}  # name -> its entry, until tilec alone has run it

    def record(entries):
        for r in entries:
            first = triton_stalled.pop(r["name"], None)
            if first is not None:  # tilec alone, after Triton's side never finished
                first["notes"].append(f"tilec alone: {r['status']}")
                first["problems"] += r["problems"]
                if r["status"] != "tilec ran":
                    first["status"] = r["status"]
                r = first
            else:
                results.append(r)
            partial.write(json.dumps(r) + "\n")
            if r["status"] not in ("bit-identical", "within bound", "tilec ran", "triton ran"):
                print(f"{r['status'].upper()} {r['name']}: "
                      + " | ".join(r["problems"] + r["notes"])[:1500], flush=True)
        partial.flush()

    while queue or running:
        while queue and len(running) < jobs:
            batch, side = queue.popleft()
            running.append(Worker(batch, report, count, side))
            count += 1
        time.sleep(0.2)
        for worker in list(running):
            record(worker.poll())
            exited = worker.process.poll() is not None
            stuck = not exited and time.time() - worker.progress > timeout
            if not exited and not stuck:
                continue
            if stuck:
                worker.process.kill()
                worker.process.wait()
            record(worker.poll())
            if worker.current:
                in_triton = worker.phase == "triton"
                status = ("triton " if in_triton else "") + ("hang" if stuck else "crash")
                why = (f"no result after {timeout} s: killed" if stuck else
                       f"the worker process died (exit status {worker.process.returncode}); "
                       "see workers.log")
                where = "in Triton's compile or run" if in_triton else \
                    f"in {worker.phase or 'the setup'}"
                entry = {"name": worker.current, "status": status,
                         "problems": [] if in_triton else [f"{why}, {where}"],
                         "notes": [f"{why}, {where}"] if in_triton else []}
                record([entry])
                worker.finished.add(worker.current)
                if in_triton and worker.provider == "both":
                    triton_stalled[worker.current] = entry
                    queue.append(([by_name[worker.current]], "tilec"))
            rest = worker.unreached()
            if rest:
                queue.append((rest, worker.provider))
            running.remove(worker)
            print(f"... {len(results)}/{len(paths)} in {time.time() - started:.0f} s", flush=True)
    return results


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
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds a worker may go without finishing a program")
    parser.add_argument("--provider", choices=["both", "tilec", "triton"], default="both",
                        help="run one side alone, no comparison (which side hangs or crashes)")
    parser.add_argument("--worker", metavar="RESULTS", help=argparse.SUPPRESS)
    parser.add_argument("programs", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # GPU_RUN_PROVIDER: set by the runner for each worker
        return worker_main(args.worker, args.report, args.programs)
    report = args.report or args.dir.rstrip("/") + "-report"
    names = sorted(n for n in os.listdir(args.dir)
                   if os.path.isfile(os.path.join(args.dir, n, "spec.json")))
    if args.only:
        names = [n for n in names if n in args.only]
    paths = [os.path.join(args.dir, n) for n in names]
    started = time.time()

    # Triton prints the whole MLIR module of a program it cannot compile to stderr: the workers'
    # stderr goes to a log, so that the summary stays readable; each result is appended to a
    # JSON-lines file as it comes, so that a run cut short still says what it found.
    if os.path.isdir(report):
        shutil.rmtree(report)
    os.makedirs(report)
    with open(os.path.join(report, "results.partial.jsonl"), "w") as partial:
        results = run_all(paths, args.jobs, args.batch, report, args.timeout, partial,
                          args.provider)
    counts = collections.Counter(r["status"] for r in results)
    for r in results:  # hangs and crashes: the program alone (the worker wrote the others)
        if r["status"] in ("hang", "crash", "triton hang", "triton crash"):
            write_reproducer(report, os.path.join(args.dir, r["name"]), r)
    for entry in os.listdir(report):
        if entry.startswith("worker-"):
            os.remove(os.path.join(report, entry))
    with open(os.path.join(report, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    compiled = len(results) - counts["not compiled"]
    ran = counts["bit-identical"] + counts["within bound"] + counts["mismatch"]
    evaluator = sum(1 for r in results if any(n.startswith("triton vs evaluator") for n in r["notes"]))
    if os.environ.get("GPU_RUN_FAKE"):
        device = "no GPU (GPU_RUN_FAKE)"
    else:
        import torch as t
        device = t.cuda.get_device_name()
    print(f"gpu_run: {device}, {time.time() - started:.0f} s, {args.jobs} jobs")
    print(f"gpu_run: programs {len(results)}, compiled {compiled}, ran {ran}, "
          f"bit-identical {counts['bit-identical']}, within bound {counts['within bound']}, "
          f"mismatches {counts['mismatch']}, tilec errors {counts['tilec error'] + counts['cuda error']}, "
          f"triton errors {counts['triton error']}; Triton disagreeing with the evaluator: "
          f"{evaluator}; reproducers in {report}")
    if counts["hang"] or counts["crash"]:
        print(f"gpu_run: hangs {counts['hang']}, crashes {counts['crash']} in tilec's side")
    if counts["triton hang"] or counts["triton crash"]:
        print(f"gpu_run: Triton's side never finished {counts['triton hang']} programs and "
              f"crashed on {counts['triton crash']}; tilec alone ran each against the "
              "interpreter (their notes say how it went)")
    return 1 if (counts["mismatch"] or counts["tilec error"] or counts["cuda error"]
                 or counts["hang"] or counts["crash"]) else 0


if __name__ == "__main__":
    sys.exit(main())
