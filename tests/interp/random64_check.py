#!/usr/bin/env python3
"""tl.randint4x / tl.randint / tl.rand / tl.randn on 64-bit offsets (Philox-4x64-10, the variant
Triton 3.6 picks when the offsets are 64-bit integers) on tilec's interpreter, against an
independent Philox-4x64 written here in plain Python (standard library only).

    python3 tests/interp/random64_check.py --tilec build/tilec

The reference is checked first against Random123's published known answers (kat_vectors), then
keyed as Triton keys the 64-bit variant: the seed as a uint64 (an int32 seed sign-extended) is key
word 0, key word 1 is 0, the offset is counter word 0. The bits must be equal; tl.rand is
reproduced exactly (int64 -> fp32 rounding and one fp32 product), tl.randn within fp32 math ulps.
Exit status 1 on any mismatch.
"""

import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "random.tl")
MASK64 = 2**64 - 1
ROUND_A, ROUND_B = 0xD2E7470EE14C6C93, 0xCA5A826395121157  # multipliers
KEY_A, KEY_B = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B  # Weyl key increments


def philox4x64(counter, key, rounds=10):
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        prod_a, prod_b = ROUND_A * c0, ROUND_B * c2
        c0, c1, c2, c3 = ((prod_b >> 64) ^ c1 ^ k0, prod_b & MASK64,
                          (prod_a >> 64) ^ c3 ^ k1, prod_a & MASK64)
        k0, k1 = (k0 + KEY_A) & MASK64, (k1 + KEY_B) & MASK64
    return c0, c1, c2, c3


def triton_streams(seed, offset):
    return philox4x64((offset & MASK64, 0, 0, 0), (seed & MASK64, 0))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def int_to_f32(x):
    """A non-negative integer rounded to fp32 (to nearest, ties to even), without the double
    rounding that going through a Python float would add."""
    bits = x.bit_length()
    if bits <= 24:
        return float(x)
    shift = bits - 24
    q, r = divmod(x, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return float(q << shift)


def uniform(word):
    """Triton's uint_to_uniform_float for a uint64: the bits as an int64, negatives folded onto
    the non-negative half, converted to fp32 and scaled by fp32(1.0842020432385337e-19)."""
    x = word - 2**64 if word >= 2**63 else word
    if x < 0:
        x = -x - 1
    return f32(int_to_f32(x) * f32(1.0842020432385337e-19))  # the product is exact in a double


def normal(w0, w1):
    u1 = max(f32(1.0e-7), uniform(w0))
    theta = f32(6.283185307179586 * uniform(w1))
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(theta)


def check_known_answers():
    zero = philox4x64((0, 0, 0, 0), (0, 0))
    assert zero == (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B,
                    0x7E68B68AEC7BA23B), zero
    pi = philox4x64((0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0,
                     0x082EFA98EC4E6C89), (0x452821E638D01377, 0xBE5466CF34E90C6C))
    assert pi == (0xA528F45403E61D95, 0x38C72DBD566E9788, 0xA5A1610E72FD18B5,
                  0x57BD43B5E52B7FE6), pi
    ones = philox4x64((MASK64,) * 4, (MASK64, MASK64))
    assert ones == (0x87B092C3013FE90B, 0x438C3C67BE8D0224, 0x9CC7D7C69CD777B6,
                    0xA09CAEBF594F0BA0), ones


def run(tilec, work, kernel, signature, grid, args, dumps):
    command = [tilec, "run", KERNELS, "-k", kernel, "-s", signature, "--grid", str(grid)]
    command += [str(a) for a in args]
    for name, path in dumps.items():
        command += ["--dump", f"{name}={path}"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr.strip()}")


def streams_case(tilec, work, seed, seed_type, base, n, block=64):
    """One launch of philox64_streams: the errors found (empty when all match)."""
    paths = {k: os.path.join(work, f"{k}.{seed}.{base}") for k in ("words", "u", "z")}
    for key, size in (("words", 32 * n), ("u", 4 * n), ("z", 4 * n)):
        with open(paths[key], "wb") as f:
            f.write(bytes(size))
    run(tilec, work, "philox64_streams", f"*i64,*fp32,*fp32,{seed_type},i64,i32,{block}",
        (n + block - 1) // block,
        [f"file:{paths['words']}", f"file:{paths['u']}", f"file:{paths['z']}", seed, base, n],
        {"words_ptr": paths["words"] + ".out", "u_ptr": paths["u"] + ".out",
         "z_ptr": paths["z"] + ".out"})
    with open(paths["words"] + ".out", "rb") as f:
        words = [w & MASK64 for w in struct.unpack(f"<{4 * n}q", f.read())]
    with open(paths["u"] + ".out", "rb") as f:
        u = struct.unpack(f"<{n}f", f.read())
    with open(paths["z"] + ".out", "rb") as f:
        z = struct.unpack(f"<{n}f", f.read())
    errors = []
    for i in range(n):
        want = triton_streams(seed, base + i)
        got = tuple(words[k * n + i] for k in range(4))
        if got != want:
            errors.append(f"seed {seed} offset {base + i}: words {[hex(g) for g in got]}, "
                          f"expected {[hex(w) for w in want]}")
        if u[i] != uniform(want[0]):
            errors.append(f"seed {seed} offset {base + i}: rand {u[i]!r}, "
                          f"expected {uniform(want[0])!r}")
        zn = normal(want[0], want[1])
        if not abs(z[i] - zn) <= 2e-6 + 2e-6 * abs(zn):
            errors.append(f"seed {seed} offset {base + i}: randn {z[i]!r}, expected {zn!r}")
    return errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tilec", required=True)
    args = parser.parse_args(argv)
    check_known_answers()
    errors = []
    with tempfile.TemporaryDirectory() as work:
        # A seed above 2^32 (all of it is key word 0), an int32 seed that is negative (sign
        # extended), offsets from past 2^32, near 2^63 and negative (bit patterns above 2^63).
        for seed, seed_type, base, n in ((0x0000000FCAFEB0BA, "i64", 2**40 + 3, 100),
                                         (-7, "i32", 2**63 - 50, 100),
                                         (42, "i32", -2**62 - 17, 70)):
            errors += streams_case(args.tilec, work, seed, seed_type, base, n)
        # A scalar 64-bit offset.
        out = os.path.join(work, "scalar")
        with open(out, "wb") as f:
            f.write(bytes(8))
        run(args.tilec, work, "philox64_scalar", "*i64,i64,i64", 1,
            [f"file:{out}", 2**33 + 1, 123456789012345], {"out_ptr": out + ".out"})
        with open(out + ".out", "rb") as f:
            got = struct.unpack("<q", f.read())[0] & MASK64
        want = triton_streams(2**33 + 1, 123456789012345)[0]
        if got != want:
            errors.append(f"scalar offset: {hex(got)}, expected {hex(want)}")
    for e in errors[:20]:
        print(e)
    print(f"random64_check: {'FAILED, ' + str(len(errors)) + ' mismatches' if errors else 'ok'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
