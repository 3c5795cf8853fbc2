"""Prints one table from the drivers' output folders: project, op, kernel, and what became of it.

    python3 bench/corpus/table.py OUT/liger OUT/unsloth [--markdown]

Each folder holds tilec_diff's results.json (one row per specialisation) and the driver's ops.tsv.
A specialisation is `compiled` when tilec compiled it; after a GPU run the result says whether tilec's
kernel matched Triton's (`bits-equal`, `close`, `MISMATCH`).  Ops whose host code raised before any
launch are listed too, since their kernels were never seen.
"""
import json
import os
import sys

NOT_RUN = "precheck: compiled, not run (no GPU)"


def outcome(r):
    if not r.get("compiled"):
        return "FAIL: " + str(r.get("error", "")).strip()
    if r.get("ran"):
        if r.get("bad", 1) == 0:
            return "bits-equal" if r.get("same_bits") else f"close (maxdiff {r.get('maxdiff', 0):.2g})"
        return f"MISMATCH ({r.get('bad')} elements, maxdiff {r.get('maxdiff', 0):.3g})"
    err = r.get("run_error", "")
    return "compiled" if NOT_RUN in err else "compiled, launch failed: " + err


def main():
    folders = [a for a in sys.argv[1:] if not a.startswith("--")]
    markdown = "--markdown" in sys.argv
    rows, host_errors, seen = [], [], set()
    for folder in folders:
        # liger.0, liger.1...: the shards of one project's run.
        project = os.path.basename(os.path.normpath(folder)).split(".")[0]
        path = os.path.join(folder, "results.json")
        if os.path.exists(path):
            for r in json.load(open(path)):
                # Shards of one project may each launch a specialisation: count it once.
                key = (project, r["file"], r["kernel"], r["sig"], r["warps"], r["stages"])
                if key not in seen:
                    seen.add(key)
                    rows.append((project, r["op"], r["kernel"], r["sig"], r["warps"], r["stages"], outcome(r)))
        ops = os.path.join(folder, "ops.tsv")
        if os.path.exists(ops):
            for line in open(ops):
                if line.startswith("#"):
                    continue
                op, result, _ = line.rstrip("\n").split("\t")
                if result != "ok":
                    host_errors.append((project, op, result))
    if markdown:
        print("| project | op | kernel | warps/stages | result |\n| --- | --- | --- | --- | --- |")
        for p, op, k, sig, w, s, res in rows:
            print(f"| {p} | {op} | `{k}` | {w}/{s} | {res[:160]} |")
    else:
        for p, op, k, sig, w, s, res in rows:
            print(f"{p:8s} {op:44s} {k:42s} w{w}s{s} {res[:150]}")
    n = len(rows)
    comp = sum(not r[6].startswith("FAIL") for r in rows)
    kernels = {(r[0], r[2]) for r in rows}
    kernels_ok = {(r[0], r[2]) for r in rows if not r[6].startswith("FAIL")}
    failing = {(r[0], r[2]) for r in rows if r[6].startswith("FAIL")}
    mism = sum("MISMATCH" in r[6] for r in rows)
    print(f"\nspecialisations: {n}, compiled {comp} ({100.0 * comp / max(n, 1):.1f}%), mismatches {mism}")
    print(f"kernels: {len(kernels)}, every specialisation compiled for {len(kernels - failing)}, "
          f"at least one for {len(kernels_ok)}")
    for p in sorted({r[0] for r in rows}):
        pr = [r for r in rows if r[0] == p]
        pc = sum(not r[6].startswith("FAIL") for r in pr)
        print(f"  {p}: {len(pr)} specialisations, {pc} compiled; "
              f"{len({r[2] for r in pr})} kernels")
    if failing:
        print("failing kernels:")
        for p, k in sorted(failing):
            errs = sorted({r[6] for r in rows if (r[0], r[2]) == (p, k) and r[6].startswith("FAIL")})
            print(f"  {p} {k}: {errs[0][6:200]}")
    if host_errors:
        print("ops whose host code raised (their kernels may not all have launched):")
        for p, op, res in host_errors:
            print(f"  {p} {op}: {res[:200]}")


if __name__ == "__main__":
    main()
