#!/usr/bin/env python3
"""Differential testing of tilec on generated Triton programs (issue 13).

  difftest.py generate --out DIR --count N [--seed S]
      N programs from tlgen.py into DIR/<name>/: <name>.tl, spec.json (signature, launch,
      parameters, outputs), in_<buf>.bin (inputs, and the starting contents of outputs) and
      expected_<buf>.bin (what the generator's evaluator says the kernel writes).
  difftest.py check --tilec TILEC --dir DIR [--ptxas PTXAS] [--jobs J] [--keep-ptx]
      for every program: tilec compiles it to PTX (the TIR verifier runs after every pass; a
      failure is an internal compiler error), ptxas assembles the PTX (when there is a ptxas),
      `tilec run` executes it on the interpreter from the same input files, and each output must
      equal the evaluator's: bit for bit, NaN matching NaN, except outputs the evaluator marked
      inexact (float sums it could not prove order-independent: within BOUND below). Writes
      DIR/<name>/<name>.ptx/.json and interp_<buf>.bin (what the GPU runner compares against).
  difftest.py ci --tilec TILEC --work DIR --count N [--seed S] [--ptxas PTXAS]
      generate, then check: the ctest test.
  difftest.py prepare --tilec TILEC --out out/difftest --count N
      generate and check, for the GPU machine (tests/difftest/gpu_run.py).

Failures: a crash, a hang, an internal compiler error, a valid program refused with an error, a
ptxas error, an interpreter error or a mismatch. Programs that stop at a located "not supported"
error are counted apart (and listed by message); they are not failures.
Exit status 0 if nothing failed.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlgen  # noqa: E402

# Outputs the evaluator could not prove exact (float sums of values that do not all fit the
# accumulator's precision): |got - expected| <= BOUND[dtype] * (max |expected| of the buffer), the
# error of any summation order of up to 256 terms (n * eps * sum|x| <= n * eps * n * max). dtype
# is the output's "bound_dtype": the coarsest type its inexact values were computed in.
BOUND = {"float16": 2.0 ** -3, "bfloat16": 2.0 ** -0, "float32": 2.0 ** -8, "float64": 2.0 ** -37}
TIMEOUT = 60


def program_name(seed, index):
    return f"p{seed:03d}_{index:05d}"


# --- generate ---------------------------------------------------------------------------------


def write_program(directory, seed, index):
    name = program_name(seed, index)
    p = tlgen.generate(f"{seed}:{index}", name)
    path = os.path.join(directory, name)
    os.makedirs(path, exist_ok=True)
    # Named after the program (not kernel.tl): the GPU runner imports each one as a module, and
    # Triton reads the source back by file name.
    with open(os.path.join(path, name + ".tl"), "w") as f:
        f.write(p.source)
    initial = tlgen.initial_buffers(p)
    params = []
    for d in p.params:
        entry = {"name": d["name"], "sig": d["sig"], "kind": d["kind"]}
        if d["kind"] == "ptr":
            b = p.buffers[d["name"]]
            entry.update(dtype=b["dtype"], size=b["size"], role=b["role"], file=f"in_{d['name']}.bin")
            with open(os.path.join(path, entry["file"]), "wb") as f:
                f.write(tlgen.to_bytes(initial[d["name"]], b["dtype"]))
            if b["role"] != "in":
                with open(os.path.join(path, f"expected_{d['name']}.bin"), "wb") as f:
                    f.write(tlgen.to_bytes(p.expected[d["name"]], b["dtype"]))
        else:
            entry["value"] = d["value"]
        params.append(entry)
    spec = {
        "name": name, "source": name + ".tl", "ptx": name + ".ptx", "metadata": name + ".json",
        "seed": p.seed, "kernel": p.kernel, "signature": p.signature,
        "num_warps": p.num_warps, "grid": [p.grid, 1, 1], "params": params,
        "constexprs": {d["name"]: d["value"] for d in p.params if d["kind"] == "constexpr"},
        "outputs": [{"name": n, "dtype": b["dtype"], "role": b["role"],
                     "exact": n not in p.inexact,
                     "bound_dtype": p.inexact_precision.get(n, b["dtype"])}
                    for n, b in p.buffers.items() if b["role"] != "in"],
        "features": sorted(p.features), "shape": p.shape, "dot": p.dot_dtype,
    }
    with open(os.path.join(path, "spec.json"), "w") as f:
        json.dump(spec, f, indent=1)
    return name


def generate(directory, count, seed, jobs):
    os.makedirs(directory, exist_ok=True)
    if jobs == 1:
        return [write_program(directory, seed, i) for i in range(count)]
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        names = list(pool.map(write_program, [directory] * count, [seed] * count, range(count),
                              chunksize=4))
    return names


# --- check ------------------------------------------------------------------------------------


def run(command, cwd):
    try:
        r = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", f"timed out after {TIMEOUT} s"


def classify_tilec_failure(rc, log):
    if rc == "timeout":
        return "hang"
    if rc < 0:
        return "crash"
    if "internal compiler error" in log:
        return "internal error"
    if "not supported" in log:
        return "unsupported"
    return "refused"


def same_value(got, expected, dtype):
    if tlgen.is_float(dtype):
        if got != got and expected != expected:
            return True
        return tlgen.float_bits(got, dtype) == tlgen.float_bits(expected, dtype) if got == got \
            and expected == expected else False
    return got == expected


def compare_output(path, out, got_bytes):
    """None if the interpreter's buffer equals the evaluator's, else what differs."""
    dtype = out["dtype"]
    with open(os.path.join(path, f"expected_{out['name']}.bin"), "rb") as f:
        expected = tlgen.from_bytes(f.read(), dtype)
    got = tlgen.from_bytes(got_bytes, dtype)
    if len(got) != len(expected):
        return f"{out['name']}: {len(got)} elements, expected {len(expected)}"
    if out["exact"]:
        wrong = [i for i, (g, e) in enumerate(zip(got, expected)) if not same_value(g, e, dtype)]
        bound = "bit-exact"
    else:
        finite = [abs(e) for e in expected if e == e and abs(e) != float("inf")]
        tolerance = BOUND[out.get("bound_dtype", dtype)] * (max(finite) if finite else 0.0)
        wrong = [i for i, (g, e) in enumerate(zip(got, expected))
                 if not (same_value(g, e, dtype) or abs(g - e) <= tolerance)]
        bound = f"within {tolerance:g}"
    if not wrong:
        return None
    i = wrong[0]
    return (f"{out['name']} ({dtype}, {bound}): {len(wrong)} of {len(got)} elements differ, "
            f"first [{i}]: got {got[i]!r}, expected {expected[i]!r}")


def check_program(path, tilec, ptxas):
    """(status, detail): status one of ok, unsupported, or a failure kind."""
    with open(os.path.join(path, "spec.json")) as f:
        spec = json.load(f)
    base = [tilec, spec["source"], "-k", spec["kernel"], "-s", spec["signature"],
            "--num-warps", str(spec["num_warps"])]
    rc, log = run(base + ["-o", spec["ptx"]], path)
    if rc != 0:
        return classify_tilec_failure(rc, log), log.strip()[-2000:]
    if ptxas:
        rc, log = run([ptxas, "-arch=sm_90a", spec["ptx"], "-o", os.devnull], path)
        if rc != 0:
            return "ptxas error", log.strip()[-2000:]
    args = []
    for prm in spec["params"]:
        if prm["kind"] == "ptr":
            args.append(f"file:{prm['file']}")
        elif prm["kind"] == "scalar" and prm["sig"] != "1":
            args.append(str(prm["value"]))
    dumps = []
    for out in spec["outputs"]:
        dumps += ["--dump", f"{out['name']}=interp_{out['name']}.bin"]
    rc, log = run([tilec, "run", spec["source"], "-k", spec["kernel"], "-s", spec["signature"],
                   "--grid", ",".join(map(str, spec["grid"]))] + dumps + ["--"] + args, path)
    if rc != 0:
        kind = classify_tilec_failure(rc, log)
        return ("interpreter " + kind if kind != "unsupported" else kind), log.strip()[-2000:]
    problems = []
    for out in spec["outputs"]:
        with open(os.path.join(path, f"interp_{out['name']}.bin"), "rb") as f:
            problem = compare_output(path, out, f.read())
        if problem:
            problems.append(problem)
    if problems:
        return "interpreter mismatch", "\n".join(problems)
    return "ok", ""


def check(directory, tilec, ptxas, jobs, names=None):
    names = names or sorted(n for n in os.listdir(directory) if n.startswith("p"))
    tilec = os.path.abspath(tilec)
    started = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(check_program, os.path.join(directory, n), tilec, ptxas): n
                   for n in names}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    counts = collections.Counter(status for status, _ in results.values())
    unsupported = collections.Counter()
    failures = []
    for name in sorted(results):
        status, detail = results[name]
        if status == "unsupported":
            line = next((l for l in detail.splitlines() if "not supported" in l), detail)
            unsupported[line.split("error:", 1)[-1].strip()] += 1
        elif status != "ok":
            failures.append(name)
            print(f"FAIL {name}: {status}\n  {os.path.join(directory, name, name)}.tl\n  "
                  + detail.replace("\n", "\n  ")[:3000], flush=True)
    with open(os.path.join(directory, "results.json"), "w") as f:
        json.dump({n: {"status": s, "detail": d} for n, (s, d) in results.items()}, f, indent=1)
    print(f"difftest: {len(names)} programs in {time.time() - started:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + ("" if ptxas else " (no ptxas: PTX not assembled)"))
    for message, n in unsupported.most_common():
        print(f"  not supported ({n}): {message}")
    return 1 if failures else 0


def find_ptxas(explicit):
    if explicit is not None:
        return explicit or None
    return shutil.which("ptxas") or next(
        (p for p in ("/usr/local/cuda/bin/ptxas",) if os.path.exists(p)), None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", required=True)
    g.add_argument("--count", type=int, default=200)
    g.add_argument("--seed", type=int, default=1)
    for name in ("check", "ci", "prepare"):
        c = sub.add_parser(name)
        c.add_argument("--tilec", required=True)
        c.add_argument("--ptxas", help="ptxas to assemble the PTX with ('' for none; default: "
                                       "PATH, then /usr/local/cuda/bin)")
        if name == "check":
            c.add_argument("--dir", required=True)
        else:
            c.add_argument("--work" if name == "ci" else "--out", dest="dir", required=True)
            c.add_argument("--count", type=int, default=200)
            c.add_argument("--seed", type=int, default=1)
    for p in sub.choices.values():
        p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)

    if args.command == "generate":
        generate(args.out, args.count, args.seed, args.jobs)
        print(f"difftest: {args.count} programs in {args.out}")
        return 0
    ptxas = find_ptxas(args.ptxas)
    if args.command in ("ci", "prepare"):
        if os.path.isdir(args.dir):
            shutil.rmtree(args.dir)
        started = time.time()
        generate(args.dir, args.count, args.seed, args.jobs)
        print(f"difftest: generated {args.count} programs (seed {args.seed}) in "
              f"{time.time() - started:.0f} s", flush=True)
    return check(args.dir, args.tilec, ptxas, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
