#!/usr/bin/env python3
"""tl.randint4x / tl.rand / tl.randn on 64-bit offsets, and tl.philox on 64-bit counter words, on
tilec's interpreter, against an independent Philox written here in plain Python (standard library
only).

    python3 tests/interp/random64_check.py --tilec build/tilec

Triton 3.6's random.py runs Philox-4x32-10 for randint4x whatever the offsets' width: the counter is
(offset's low word, offset's high word, 0, 0) (the high word is 0 for a 32-bit offset) and the key
is (seed's low word, seed's high word), the seed taken as a uint64 (an int32 seed sign-extended).
Only tl.philox called directly with 64-bit counter words runs Philox-4x64-10, keyed (seed, 0).

The reference is checked first against Random123's published known answers (kat_vectors) of both
variants. The bits must be equal; tl.rand is reproduced exactly (int32 -> fp32 rounding and one
fp32 product), tl.randn within fp32 math ulps. Exit status 1 on any mismatch.
"""

import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "random.tl")
MASK32 = 2**32 - 1
MASK64 = 2**64 - 1
# Multipliers A, B and Weyl key increments A, B of each variant.
PHILOX32 = (0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85)
PHILOX64 = (0xD2E7470EE14C6C93, 0xCA5A826395121157, 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)


def philox(width, counter, key, rounds=10):
    """Philox-4xW-R, W = 32 or 64 bits: the counter (c0, c1, c2, c3) under the key (k0, k1)."""
    mask = 2**width - 1
    round_a, round_b, key_a, key_b = PHILOX32 if width == 32 else PHILOX64
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        prod_a, prod_b = round_a * c0, round_b * c2
        c0, c1, c2, c3 = ((prod_b >> width) ^ c1 ^ k0, prod_b & mask,
                          (prod_a >> width) ^ c3 ^ k1, prod_a & mask)
        k0, k1 = (k0 + key_a) & mask, (k1 + key_b) & mask
    return c0, c1, c2, c3


def triton_streams(seed, offset):
    """randint4x(seed, offset) for a 64-bit offset, as Triton 3.6 computes it: Philox-4x32 on
    (offset's low word, its high word, 0, 0) under (seed's low word, seed's high word)."""
    offset, seed = offset & MASK64, seed & MASK64
    return philox(32, (offset & MASK32, offset >> 32, 0, 0), (seed & MASK32, seed >> 32))


def triton_philox64(seed, counter):
    """tl.philox(seed, c0, c1, c2, c3) on uint64 words: Philox-4x64 under (seed as a uint64, 0)."""
    return philox(64, tuple(c & MASK64 for c in counter), (seed & MASK64, 0))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def uniform(word):
    """Triton's uint_to_uniform_float for a uint32: the bits as an int32, negatives folded onto the
    non-negative half (-x - 1), converted to fp32 and scaled by fp32(4.6566127342e-10)."""
    x = word - 2**32 if word >= 2**31 else word
    if x < 0:
        x = -x - 1
    # float(x) is exact (x < 2^31), f32 rounds it to nearest even; the product of two fp32 values is
    # exact in a double, so the last f32 is the one fp32 rounding of the product.
    return f32(f32(float(x)) * f32(4.6566127342e-10))


def normal(w0, w1):
    u1 = max(f32(1.0e-7), uniform(w0))
    theta = f32(f32(6.283185307179586) * uniform(w1))
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(theta)


def check_known_answers():
    # Random123's kat_vectors for philox4x32_10 and philox4x64_10.
    assert philox(32, (0, 0, 0, 0), (0, 0)) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    pi = philox(32, (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0))
    assert pi == (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1), pi
    ones = philox(32, (MASK32,) * 4, (MASK32, MASK32))
    assert ones == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD), ones
    zero = philox(64, (0, 0, 0, 0), (0, 0))
    assert zero == (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B,
                    0x7E68B68AEC7BA23B), zero
    pi = philox(64, (0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0,
                     0x082EFA98EC4E6C89), (0x452821E638D01377, 0xBE5466CF34E90C6C))
    assert pi == (0xA528F45403E61D95, 0x38C72DBD566E9788, 0xA5A1610E72FD18B5,
                  0x57BD43B5E52B7FE6), pi
    ones = philox(64, (MASK64,) * 4, (MASK64, MASK64))
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


def zeros(path, size):
    with open(path, "wb") as f:
        f.write(bytes(size))


def read(path, fmt):
    with open(path, "rb") as f:
        data = f.read()
    return struct.unpack(f"<{len(data) // struct.calcsize(fmt)}{fmt}", data)


def streams_case(tilec, work, seed, seed_type, base, n, block=64):
    """One launch of wide_streams (randint4x, rand, randn on int64 offsets base + i): the errors
    found (empty when all match)."""
    paths = {k: os.path.join(work, f"{k}.{seed}.{base}") for k in ("words", "u", "z")}
    for key, size in (("words", 16 * n), ("u", 4 * n), ("z", 4 * n)):
        zeros(paths[key], size)
    run(tilec, work, "wide_streams", f"*i32,*fp32,*fp32,{seed_type},i64,i32,{block}",
        (n + block - 1) // block,
        [f"file:{paths['words']}", f"file:{paths['u']}", f"file:{paths['z']}", seed, base, n],
        {"words_ptr": paths["words"] + ".out", "u_ptr": paths["u"] + ".out",
         "z_ptr": paths["z"] + ".out"})
    words = [w & MASK32 for w in read(paths["words"] + ".out", "i")]
    u = read(paths["u"] + ".out", "f")
    z = read(paths["z"] + ".out", "f")
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


def philox64_case(tilec, work, seed, seed_type, base, n, block=64):
    """One launch of philox64_streams (tl.philox on the uint64 counters (base + i, i, ~i, 7))."""
    path = os.path.join(work, f"philox64.{seed}.{base}")
    zeros(path, 32 * n)
    run(tilec, work, "philox64_streams", f"*i64,{seed_type},i64,i32,{block}",
        (n + block - 1) // block, [f"file:{path}", seed, base, n], {"words_ptr": path + ".out"})
    words = [w & MASK64 for w in read(path + ".out", "q")]
    errors = []
    for i in range(n):
        want = triton_philox64(seed, (base + i, i, ~i, 7))
        got = tuple(words[k * n + i] for k in range(4))
        if got != want:
            errors.append(f"philox64 seed {seed} counter {base + i}: words "
                          f"{[hex(g) for g in got]}, expected {[hex(w) for w in want]}")
    return errors


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tilec", required=True)
    args = parser.parse_args(argv)
    check_known_answers()
    errors = []
    with tempfile.TemporaryDirectory() as work:
        # A seed above 2^32 (its high word is key word 1 for 4x32, all of it key word 0 for 4x64),
        # an int32 seed that is negative (sign-extended), offsets from past 2^32, across 2^32, near
        # 2^63, negative (bit patterns above 2^63) and across 0.
        cases = ((0x0000000FCAFEB0BA, "i64", 2**40 + 3, 100),
                 (-7, "i32", 2**63 - 50, 100),
                 (42, "i32", -2**62 - 17, 70),
                 (0x0000000FCAFEB0BA, "i64", 2**32 - 30, 60),
                 (1234, "i32", -35, 70))
        for seed, seed_type, base, n in cases:
            errors += streams_case(args.tilec, work, seed, seed_type, base, n)
            errors += philox64_case(args.tilec, work, seed, seed_type, base, n)
        # A scalar 64-bit offset to tl.randint: Philox-4x32, a scalar uint32.
        out = os.path.join(work, "scalar")
        zeros(out, 4)
        run(args.tilec, work, "wide_scalar", "*i32,i64,i64", 1,
            [f"file:{out}", 2**33 + 1, 123456789012345], {"out_ptr": out + ".out"})
        got = read(out + ".out", "i")[0] & MASK32
        want = triton_streams(2**33 + 1, 123456789012345)[0]
        if got != want:
            errors.append(f"scalar offset: {hex(got)}, expected {hex(want)}")
        # A scalar uint64 counter to tl.philox: Philox-4x64, a [1] block.
        out = os.path.join(work, "scalar64")
        zeros(out, 8)
        run(args.tilec, work, "philox64_scalar", "*i64,i64,i64", 1,
            [f"file:{out}", 2**33 + 1, 123456789012345], {"out_ptr": out + ".out"})
        got = read(out + ".out", "q")[0] & MASK64
        want = triton_philox64(2**33 + 1, (123456789012345, 0, 0, 0))[0]
        if got != want:
            errors.append(f"scalar philox64 counter: {hex(got)}, expected {hex(want)}")
    for e in errors[:20]:
        print(e)
    print(f"random64_check: {'FAILED, ' + str(len(errors)) + ' mismatches' if errors else 'ok'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
