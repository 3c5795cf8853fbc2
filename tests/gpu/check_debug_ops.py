#!/usr/bin/env python3
"""tl.device_print and tl.device_assert in tilec's PTX, on the GPU.

  check_debug_ops.py --compile path/to/tilec --out-dir DIR   (the machine with the compiler)
      writes DIR/debug_ops.ptx + .json, and DIR/expected_print.txt: what the interpreter prints
      (`tilec run`) for the same kernel and inputs;
  check_debug_ops.py --dir DIR                               (the GPU machine, with CuPy)
      runs print_kernel and compares the GPU's printed lines with the interpreter's (as sets:
      the GPU's line order is not defined), then runs assert_kernel once with values that pass
      and once with one that fails, in a child process, and checks that the failing launch
      reports the message with the kernel's file and line.
Exit status 1 on any difference.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "debug_ops.tl")
X = [0.5, -1.25, 3.0, 7.0, 2.5]  # n = 5 of the 8 lanes
IDX = [10, 11, 12, 13, 14]


def compile_here(tilec, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    subprocess.run([tilec, SOURCE, "-o", os.path.join(out_dir, "debug_ops.ptx")], check=True)
    x_file = os.path.join(out_dir, "x.bin")
    i_file = os.path.join(out_dir, "idx.bin")
    import struct
    with open(x_file, "wb") as f:
        f.write(struct.pack("<%df" % len(X), *X))
    with open(i_file, "wb") as f:
        f.write(struct.pack("<%di" % len(IDX), *IDX))
    run = subprocess.run([tilec, "run", SOURCE, "-k", "print_kernel", "-s", "*fp32:16,*i32:16,i32",
                          "file:" + x_file, "file:" + i_file, str(len(X))],
                         check=True, capture_output=True, text=True)
    with open(os.path.join(out_dir, "expected_print.txt"), "w") as f:
        f.write(run.stdout)
    print(f"wrote {out_dir}: debug_ops.ptx/.json, expected_print.txt ({len(run.stdout.splitlines())} lines)")


def normalise(line):
    # The interpreter prints the shortest round-trip float (3, 1.5), the GPU printf's %f
    # (3.000000, 1.500000): compare the printed value as a number.
    head, sep, value = line.strip().rpartition(": ")
    try:
        return head + sep + repr(float(value))
    except ValueError:
        return line.strip()


def gpu_print(directory):
    import cupy
    import numpy
    meta = json.load(open(os.path.join(directory, "debug_ops.json")))
    kernel = next(k for k in meta["kernels"] if k["name"] == "print_kernel")
    module = cupy.RawModule(path=os.path.join(directory, "debug_ops.ptx"))
    function = module.get_function(kernel["entry"])
    x = cupy.asarray(numpy.array(X + [0.0] * 3, dtype=numpy.float32))
    idx = cupy.asarray(numpy.array(IDX + [0] * 3, dtype=numpy.int32))
    function((1, 1, 1), (kernel["threads_per_block"], 1, 1), (x, idx, numpy.int32(len(X))),
             shared_mem=kernel["shared_memory_bytes"])
    cupy.cuda.runtime.deviceSynchronize()


def gpu_assert(directory, limit):
    import cupy
    import numpy
    meta = json.load(open(os.path.join(directory, "debug_ops.json")))
    kernel = next(k for k in meta["kernels"] if k["name"] == "assert_kernel")
    module = cupy.RawModule(path=os.path.join(directory, "debug_ops.ptx"))
    function = module.get_function(kernel["entry"])
    x = cupy.asarray(numpy.array([1, 2, 3, 4], dtype=numpy.int32))
    function((1, 1, 1), (kernel["threads_per_block"], 1, 1), (x, numpy.int32(limit)),
             shared_mem=kernel["shared_memory_bytes"])
    cupy.cuda.runtime.deviceSynchronize()


def check(directory):
    ok = True
    # device_print: a child process, so that the driver's printf buffer reaches our pipe.
    run = subprocess.run([sys.executable, __file__, "--child", "print", "--dir", directory],
                         capture_output=True, text=True)
    expected = open(os.path.join(directory, "expected_print.txt")).read().splitlines()
    got = [l for l in run.stdout.splitlines() if l.startswith("pid")]
    if run.returncode != 0 or sorted(map(normalise, got)) != sorted(map(normalise, expected)):
        ok = False
        print(f"MISMATCH  device_print: exit {run.returncode}; {len(got)} lines on the GPU, "
              f"{len(expected)} from the interpreter")
        for line in sorted(set(map(normalise, expected)) ^ set(map(normalise, got)))[:10]:
            print("    differs:", line)
        if run.stderr:
            print("    stderr:", run.stderr.strip()[-500:])
    else:
        print(f"ok        device_print ({len(got)} lines, the same as the interpreter's)")

    passing = subprocess.run([sys.executable, __file__, "--child", "assert-pass", "--dir", directory],
                             capture_output=True, text=True)
    if passing.returncode != 0:
        ok = False
        print(f"FAIL      device_assert that holds: exit {passing.returncode}: {passing.stderr[-300:]}")
    else:
        print("ok        device_assert that holds: no error")
    failing = subprocess.run([sys.executable, __file__, "--child", "assert-fail", "--dir", directory],
                             capture_output=True, text=True)
    text = failing.stdout + failing.stderr
    reported = "x is over the limit" in text and "debug_ops.tl" in text
    if failing.returncode == 0 or not reported:
        ok = False
        print(f"FAIL      device_assert that fails: exit {failing.returncode}; output: {text[-500:]}")
    else:
        line = next((l for l in text.splitlines() if "x is over the limit" in l), "")
        print(f"ok        device_assert that fails: launch failed and reported: {line.strip()[:160]}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compile", metavar="TILEC")
    parser.add_argument("--out-dir")
    parser.add_argument("--dir")
    parser.add_argument("--child", choices=["print", "assert-pass", "assert-fail"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile:
        compile_here(args.compile, args.out_dir or "out/debug-ops")
        return 0
    if args.child == "print":
        gpu_print(args.dir)
        return 0
    if args.child in ("assert-pass", "assert-fail"):
        gpu_assert(args.dir, 100 if args.child == "assert-pass" else 3)
        return 0
    return 0 if check(args.dir) else 1


if __name__ == "__main__":
    sys.exit(main())
