"""Triton's LLVM middle end, run here on Triton's own input LLVM IR, and compared with other IR:

    python3 bench/corpus/llvm_oracle.py TRITON_INPUT.llir [-o OUT.ll] [--compare OTHER.ll ...] [--show N]

TRITON_INPUT.llir is Triton's LLVM IR *before* its middle end: on the GPU machine, a run with
DISABLE_LLVM_OPT=1 and TRITON_CACHE_DIR set leaves it as the cache's `<kernel>.llir` (Triton skips
optimize_module, so that file is its lowering's output). This script runs LLVM 22's `opt` on it as
Triton 3.6's optimize_module runs its own LLVM: O3 with no target machine (the triple is dropped, the
data layout kept), SLP and loop vectorizers on, InstCombine at the vectorizer-start extension point.
(Triton also runs its BreakStructPhiNodes pass there; `opt` has no such pass. Session 38 found it
made no difference on the kernels tried.)

Session 38 checked this against Triton's own optimized IR (`<kernel>.llir` of a normal run, e.g. as
capture_triton.py keeps it) on TritonBench-G: equal up to value numbering for every specialisation
that could be paired, so LLVM 22 stands in for Triton's LLVM. Whatever differs between tilec's
optimized IR (a `-DTILEC_LLVM_MAJOR=22` build, `TILEC_TRITON_MIDDLE_END=1 tilec ... --emit llvm`)
and this output therefore comes from the IR tilec's lowering gives LLVM, not from LLVM.

--compare prints, for each OTHER, how many lines of the first function differ once values, labels,
metadata and attributes are renamed in order of appearance (0: the same IR), and with --show N the
first N differing lines.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

TRITON_PIPELINE = ["-passes=default<O3>", "-passes-ep-vectorizer-start=instcombine",
                   "-vectorize-slp", "-vectorize-loops"]


def first_function(text):
    """The lines of the first `define`, values and labels renamed in order of appearance."""
    start = text.find("define ")
    if start < 0:
        raise ValueError("no function definition")
    end = text.find("\n}\n", start)
    body = text[start:end if end >= 0 else len(text)]
    names = {}

    def rename(match):
        return names.setdefault(match.group(0), "%%v%d" % len(names))

    lines = []
    for line in body.split("\n"):
        line = re.sub(r",?\s*!\w+ !\d+", "", line)  # !dbg, !tbaa, ...
        line = re.sub(r"#\d+", "", line)  # attribute groups
        line = re.sub(r"^(\d+):", r"%\1:", line)  # numbered block labels
        line = line.replace("ex2.approx.f32(", "ex2.approx.f(")  # the same intrinsic, two spellings
        lines.append(re.sub(r"%[\w.]+", rename, line).strip())
    return lines


def differing_lines(a, b):
    return [line for line in difflib.unified_diff(a, b, lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", help="Triton's LLVM IR before its middle end (DISABLE_LLVM_OPT=1)")
    parser.add_argument("-o", "--output", help="where to write the optimized IR")
    parser.add_argument("--compare", nargs="*", default=[], metavar="OTHER.ll")
    parser.add_argument("--show", type=int, default=0, metavar="N")
    parser.add_argument("--opt", default="/usr/lib/llvm-22/bin/opt", help="LLVM 22's opt")
    args = parser.parse_args()
    if not os.path.exists(args.opt):
        sys.exit(f"llvm_oracle: no LLVM 22 opt at {args.opt} (Debian: apt-get install llvm-22)")
    source = open(args.input).read()
    # No target machine, as in Triton's optimize_module: opt would make one from the triple.
    source = re.sub(r"^target triple = .*$", "", source, flags=re.M)
    with tempfile.TemporaryDirectory() as scratch:
        stripped = os.path.join(scratch, "input.ll")
        with open(stripped, "w") as f:
            f.write(source)
        output = args.output or os.path.join(scratch, "output.ll")
        run = subprocess.run([args.opt, "-S", *TRITON_PIPELINE, stripped, "-o", output],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"llvm_oracle: opt failed:\n{run.stderr}")
        ours = first_function(open(output).read())
    if args.output:
        print(f"llvm_oracle: wrote {args.output} ({len(ours)} lines in its first function)")
    for other in args.compare:
        theirs = first_function(open(other).read())
        diff = differing_lines(theirs, ours)
        print(f"{other}: {len(diff)} differing lines ({len(theirs)} vs {len(ours)} lines)")
        for line in diff[:args.show]:
            print("   ", line)


if __name__ == "__main__":
    main()
