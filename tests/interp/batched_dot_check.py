#!/usr/bin/env python3
"""Batched 3-D tl.dot ([B, M, K] x [B, K, N] -> [B, M, N]) on tilec's interpreter, against a
plain-Python matrix product (standard library only).

    python3 tests/interp/batched_dot_check.py --tilec build/tilec

Operands of small integers (or multiples of 1/8) make every product and partial sum exact in the
accumulator type, so those cases compare bit for bit whatever the order of the sums; one case of
random fp32 values compares within a bound on the rounding of K sums. Exit status 1 on failure.
"""

import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "batched_dot.tl")
FORMATS = {"fp32": "f", "fp64": "d", "i8": "b", "i32": "i", "fp16": "e"}


def bf16_bits(x):
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def pack(dtype, values):
    if dtype == "bf16":
        return b"".join(struct.pack("<H", bf16_bits(v)) for v in values)
    return struct.pack(f"<{len(values)}{FORMATS[dtype]}", *values)


def unpack(dtype, data):
    size = struct.calcsize(FORMATS[dtype])
    return list(struct.unpack(f"<{len(data) // size}{FORMATS[dtype]}", data))


def matmul(a, b, c, batches, m, n, k):
    """c + a @ b per batch, exactly (Python ints, or floats whose sums here are exact)."""
    out = list(c)
    for t in range(batches):
        for i in range(m):
            for j in range(n):
                total = c[(t * m + i) * n + j]
                for p in range(k):
                    total += a[(t * m + i) * k + p] * b[(t * k + p) * n + j]
                out[(t * m + i) * n + j] = total
    return out


def run(tilec, work, name, kernel, signature, buffers, out_dtype):
    """Runs the kernel on one program; returns the c buffer it leaves."""
    paths = []
    for i, (dtype, values) in enumerate(buffers):
        path = os.path.join(work, f"{name}.{i}")
        with open(path, "wb") as f:
            f.write(pack(dtype, values))
        paths.append(path)
    out = paths[2] + ".out"
    command = [tilec, "run", KERNELS, "-k", kernel, "-s", signature, "--grid", "1"]
    command += [f"file:{p}" for p in paths] + ["--dump", f"c_ptr={out}"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr.strip()}")
    with open(out, "rb") as f:
        return unpack(out_dtype, f.read())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tilec", required=True)
    args = parser.parse_args(argv)
    rng = random.Random(5)
    failures = []
    with tempfile.TemporaryDirectory() as work:
        # (name, input dtype, output dtype, B, M, N, K, precision, value maker)
        exact_cases = [
            ("fp32_ieee", "fp32", "fp32", 2, 16, 32, 16, "ieee", lambda: rng.randint(-8, 8) / 8),
            ("fp32_tf32", "fp32", "fp32", 4, 16, 16, 32, "tf32", lambda: rng.randint(-9, 9)),
            ("fp16", "fp16", "fp32", 4, 32, 16, 32, "ieee", lambda: rng.randint(-16, 16) / 4),
            ("bf16", "bf16", "fp32", 2, 16, 64, 16, "ieee", lambda: rng.randint(-16, 16) / 2),
            ("int8", "i8", "i32", 2, 16, 16, 64, "ieee", lambda: rng.randint(-128, 127)),
            ("fp64", "fp64", "fp64", 2, 16, 16, 16, "ieee", lambda: rng.randint(-99, 99) / 16),
        ]
        for name, din, dout, bt, m, n, k, precision, value in exact_cases:
            a = [value() for _ in range(bt * m * k)]
            b = [value() for _ in range(bt * k * n)]
            c0 = [0] * (bt * m * n)
            got = run(args.tilec, work, name, "bmm",
                      f"*{din},*{din},*{dout},{bt},{m},{n},{k},{precision}",
                      [(din, a), (din, b), (dout, c0)], dout)
            want = matmul(a, b, c0, bt, m, n, k)
            if dout == "i32":  # int8 products accumulate in int32 with wrap-around
                want = [(w + 2**31) % 2**32 - 2**31 for w in want]
            bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
            if bad:
                failures.append(f"{name}: {len(bad)} of {len(want)} differ; first [{bad[0]}]: "
                                f"{got[bad[0]]!r}, expected {want[bad[0]]!r}")

        # Random fp32 values, a loaded accumulator and K in steps (acc += tl.dot in a loop): each
        # output is a sum of K + 1 terms rounded in fp32, within (K + 1) ulp-ish of the exact one.
        bt, m, n, k, bk = 2, 16, 16, 64, 16
        a = [struct.unpack("<f", struct.pack("<f", rng.uniform(-1, 1)))[0] for _ in range(bt * m * k)]
        b = [struct.unpack("<f", struct.pack("<f", rng.uniform(-1, 1)))[0] for _ in range(bt * k * n)]
        c0 = [struct.unpack("<f", struct.pack("<f", rng.uniform(-4, 4)))[0] for _ in range(bt * m * n)]
        got = run(args.tilec, work, "acc_loop", "bmm_acc_loop",
                  f"*fp32,*fp32,*fp32,{bt},{m},{n},{k},{bk}",
                  [("fp32", a), ("fp32", b), ("fp32", c0)], "fp32")
        want = matmul(a, b, c0, bt, m, n, k)
        scale = [abs(c0[(t * m + i) * n + j]) + sum(abs(a[(t * m + i) * k + p] * b[(t * k + p) * n + j])
                                                    for p in range(k))
                 for t in range(bt) for i in range(m) for j in range(n)]
        bad = [i for i, (g, w) in enumerate(zip(got, want))
               if not abs(g - w) <= (k + 1) * 2**-24 * scale[i]]
        if bad:
            failures.append(f"acc_loop: {len(bad)} of {len(want)} off; first [{bad[0]}]: "
                            f"{got[bad[0]]!r}, expected {want[bad[0]]!r}")
    for f in failures:
        print(f)
    print(f"batched_dot_check: {'FAILED' if failures else 'ok'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
