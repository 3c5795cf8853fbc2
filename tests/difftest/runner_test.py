#!/usr/bin/env python3
"""The GPU runner's bookkeeping without a GPU (GPU_RUN_FAKE): a program whose worker hangs, one
whose worker dies and one that poisons its context are each reported once, with the right
status, and every other program of their batches still runs. A program stuck in Triton's side is
a "triton hang", runs again with tilec alone, and does not fail the run by itself."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with tempfile.TemporaryDirectory() as work:
        programs = os.path.join(work, "programs")
        for i in range(12):
            os.makedirs(os.path.join(programs, f"p{i:02d}"))
            with open(os.path.join(programs, f"p{i:02d}", "spec.json"), "w") as f:
                json.dump({"name": f"p{i:02d}"}, f)
        plan = "p01=hang,p06=crash,p09=cuda error,p04=mismatch,p07=triton hang"
        env = dict(os.environ, GPU_RUN_FAKE=plan)
        report = os.path.join(work, "report")
        run = subprocess.run([sys.executable, os.path.join(HERE, "gpu_run.py"), "--dir", programs,
                              "--report", report, "--jobs", "2", "--batch", "4",
                              "--timeout", "3"], env=env, capture_output=True, text=True,
                             timeout=120)
        print(run.stdout)
        with open(os.path.join(report, "results.json")) as f:
            results = {r["name"]: r["status"] for r in json.load(f)}
        expected = {f"p{i:02d}": "bit-identical" for i in range(12)}
        expected.update({"p01": "hang", "p06": "crash", "p09": "cuda error", "p04": "mismatch",
                         "p07": "triton hang"})
        failures = []
        if results != expected:
            failures.append(f"statuses {results} != {expected}")
        if run.returncode != 1:
            failures.append(f"exit status {run.returncode}, expected 1")
        for name in ("p01", "p06", "p04", "p07"):
            if not os.path.isfile(os.path.join(report, name, "report.txt")):
                failures.append(f"no reproducer for {name}")
        with open(os.path.join(report, "results.json")) as f:
            p07 = [r for r in json.load(f) if r["name"] == "p07"][0]
        if "tilec alone: tilec ran" not in p07["notes"]:
            failures.append(f"p07 was not run again with tilec alone: {p07}")
        for failure in failures:
            print("FAILED:", failure)
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
