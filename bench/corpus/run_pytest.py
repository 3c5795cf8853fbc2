"""A public project's own pytest tests on the GPU machine, every Triton launch compared with tilec.

    python3 bench/corpus/run_pytest.py PROJECT_DIR --tilec TILEC --out OUT [options] -- TESTS [pytest args]

Runs pytest in PROJECT_DIR (on sys.path, and on tilec's -I so that `from pkg.ops import f` resolves)
with tilec_pytest_plugin.py: tilec_diff hooks each launch, compiles the kernel with tilec for the same
specialisation, runs it on copies of the inputs and compares. Then prints the table (table.py) of
OUT/<name>.<worker>/. The project stays outside this repository; so do its tests: only this driver
and the plugin are ours.

Example (flash-linear-attention, one parametrisation per test, 8 workers, 7 minutes):

    python3 bench/corpus/run_pytest.py /tmp/fla --tilec /tmp/tilec --out /tmp/out/fla --first 1 \\
        --one-config --jobs 8 --minutes 7 -- tests/ops tests/modules
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    argv = sys.argv[1:]
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("project", help="the project's checkout (its tests are run from there)")
    p.add_argument("--tilec", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--name", default=None, help="the project's name in the table (default: the folder's)")
    p.add_argument("--include-dir", action="append", default=[], help="more -I folders for tilec")
    p.add_argument("--tilec-diff", default=None, help="tilec_diff.py (default: harness's search)")
    p.add_argument("--first", type=int, default=0,
                   help="only the first N parametrisations of each test function (default: all)")
    p.add_argument("--spread", action="store_true",
                   help="with --first N: keep N parametrisations spread evenly over each test's list")
    p.add_argument("--one-config", action="store_true",
                   help="autotuned kernels run one config (the first Triton's pruning keeps)")
    p.add_argument("--jobs", type=int, default=1, help="pytest-xdist workers (default 1: no xdist)")
    p.add_argument("--minutes", type=float, default=0,
                   help="skip the tests not started after this many minutes (default: no limit)")
    p.add_argument("--test-timeout", type=int, default=180, help="seconds per test (pytest-timeout)")
    args = p.parse_args(argv)

    project = os.path.abspath(args.project)
    out = os.path.abspath(args.out)
    name = args.name or os.path.basename(project.rstrip("/"))
    os.makedirs(out, exist_ok=True)
    includes = [project] + [os.path.abspath(d) for d in args.include_dir]
    wrapper = os.path.join(out, "tilec-with-includes.sh")
    with open(wrapper, "w") as f:
        flags = " ".join(f"-I '{d}'" for d in includes)
        f.write(f"#!/bin/sh\nexec '{os.path.abspath(args.tilec)}' \"$@\" {flags}\n")
    os.chmod(wrapper, 0o755)

    env = dict(os.environ)
    env.update({
        "TILEC_CORPUS_TILEC": wrapper, "TILEC_CORPUS_OUT": out, "TILEC_CORPUS_PROJECT": name,
        "TILEC_CORPUS_FIRST": str(args.first), "TILEC_CORPUS_SPREAD": "1" if args.spread else "0",
        "TILEC_CORPUS_ONE_CONFIG": "1" if args.one_config else "0",
        "TILEC_CORPUS_DEADLINE": str(time.time() + 60 * args.minutes) if args.minutes else "0",
        "PYTHONPATH": os.pathsep.join([HERE, project] + [p for p in [env.get("PYTHONPATH")] if p]),
    })
    if args.tilec_diff:
        env["TILEC_DIFF"] = os.path.abspath(args.tilec_diff)
    cmd = [sys.executable, "-m", "pytest", "-p", "tilec_pytest_plugin", "-q", "-rN", "--no-header",
           f"--timeout={args.test_timeout}", "-p", "no:cacheprovider"]
    if args.jobs > 1:
        cmd += ["-n", str(args.jobs)]
    start = time.time()
    rc = subprocess.call(cmd + pytest_args, cwd=project, env=env)
    print(f"pytest exit {rc}; wall {time.time() - start:.0f} s")
    folders = sorted(os.path.join(out, d) for d in os.listdir(out)
                     if d.startswith(name + ".") and os.path.isdir(os.path.join(out, d)))
    for markdown, path in ((False, "table.txt"), (True, "table.md")):
        with open(os.path.join(out, path), "w") as f:
            subprocess.call([sys.executable, os.path.join(HERE, "table.py"), *folders]
                            + (["--markdown"] if markdown else []), stdout=f)
    with open(os.path.join(out, "table.txt")) as f:
        text = f.read()
    print(text[text.find("specialisations:"):] if "specialisations:" in text else text[-3000:])


if __name__ == "__main__":
    main()
