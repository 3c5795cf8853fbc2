"""Pairs each launch tilec did not match bit for bit with Triton's compile of it, on the machine with
the compiler, for reading side by side:

    python3 bench/corpus/twins.py RUN_OUT KEPT_DIR OUT_DIR --tilec build/tilec --project fla=/src/fla \\
        [--remote-project /tmp/corp/fla] [--only NAME_PART] [--env TRITON_F32_DEFAULT=ieee]

RUN_OUT holds the driver's results.json files (a corpus run on the GPU machine); KEPT_DIR is what
capture_triton.py kept of Triton's cache there. For each launch that ran and was not bit-equal, OUT_DIR/
NN_KERNEL/ gets row.json (the launch: signature, maxdiff, first differing elements), cmd.sh (tilec for
that specialisation, here), tilec.ptx, and `triton`, a link to the Triton compile of the same kernel
name, warps and stages whose PTX opcode counts are closest to tilec's. That choice is a guess among
several specialisations: check it against the constants and shapes in its .ttgir. A launch's command
names the project where it ran (--remote-project, /tmp/corp/<name> by default); --project gives
its checkout here and goes on tilec's -I.
"""
import argparse
import collections
import glob
import json
import os
import re
import shlex
import subprocess


def opcode_counts(ptx_text):
    counts = collections.Counter()
    for line in ptx_text.splitlines():
        words = line.strip().split()
        if words and re.match(r"^[a-z]", words[0]):
            counts[words[0].rstrip(";")] += 1
    return counts


def distance(a, b):
    return sum(abs(a[k] - b[k]) for k in set(a) | set(b))


def triton_compiles(kept):
    by_key = collections.defaultdict(list)
    for entry in glob.glob(os.path.join(kept, "*")):
        metas = [m for m in glob.glob(os.path.join(entry, "*.json")) if "__grp__" not in m]
        ptx = glob.glob(os.path.join(entry, "*.ptx"))
        if not metas or not ptx:
            continue
        meta = json.load(open(metas[0]))
        key = (meta["name"], str(meta["num_warps"]), str(meta["num_stages"]))
        by_key[key].append((entry, opcode_counts(open(ptx[0]).read())))
    return by_key


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_out")
    p.add_argument("kept")
    p.add_argument("out")
    p.add_argument("--tilec", required=True)
    p.add_argument("--project", required=True, help="NAME=DIR: the project's checkout here")
    p.add_argument("--remote-project", default=None, help="its path in the launches' commands")
    p.add_argument("--only", default="", help="only kernels whose name contains this")
    p.add_argument("--env", action="append", default=[], help="NAME=VALUE for tilec (fla: TRITON_F32_DEFAULT=ieee)")
    args = p.parse_args()
    name, local = args.project.split("=", 1)
    remote = args.remote_project or f"/tmp/corp/{name}"
    env = dict(os.environ, **dict(e.split("=", 1) for e in args.env))
    compiles = triton_compiles(args.kept)
    rows = []
    for path in sorted(glob.glob(os.path.join(args.run_out, "**", "results.json"), recursive=True)):
        rows += [r for r in json.load(open(path))
                 if r.get("ran") and not (r.get("bad", 1) == 0 and r.get("same_bits"))]
    for i, r in enumerate(rows):
        if args.only not in r["kernel"]:
            continue
        argv = shlex.split(r["cmd"])[1:]
        argv[0] = argv[0].replace(remote, local)
        for flag in ("--libdevice", "-o"):  # Triton's libdevice path and the output are the GPU machine's
            if flag in argv:
                j = argv.index(flag)
                del argv[j:j + 2]
        d = os.path.join(args.out, f"{i:02d}_{r['kernel']}")
        os.makedirs(d, exist_ok=True)
        cmd = [os.path.abspath(args.tilec), "-I", local] + argv + ["-o", os.path.join(d, "tilec.ptx")]
        prefix = " ".join(shlex.quote(e) for e in args.env)
        open(os.path.join(d, "cmd.sh"), "w").write((prefix + " " if prefix else "") + shlex.join(cmd) + "\n")
        open(os.path.join(d, "row.json"), "w").write(json.dumps(r, indent=1))
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if done.returncode:
            print(f"{i:02d} {r['kernel']}: tilec failed: {done.stderr.strip()[-300:]}")
            continue
        ours = opcode_counts(open(os.path.join(d, "tilec.ptx")).read())
        candidates = compiles.get((r["kernel"], str(r["warps"]), str(r["stages"])), [])
        link = os.path.join(d, "triton")
        if os.path.islink(link):
            os.remove(link)
        if not candidates:
            print(f"{i:02d} {r['kernel']} w{r['warps']}s{r['stages']}: no Triton compile kept")
            continue
        entry, counts = min(candidates, key=lambda c: distance(ours, c[1]))
        os.symlink(os.path.abspath(entry), link)
        result = "close" if r.get("bad") == 0 else "MISMATCH"
        print(f"{i:02d} {r['kernel']} w{r['warps']}s{r['stages']} {result} maxdiff {float(r.get('maxdiff', 0)):.2g}: "
              f"{len(candidates)} candidates, opcode distance {distance(ours, counts)}")


if __name__ == "__main__":
    main()
