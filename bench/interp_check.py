#!/usr/bin/env python3
"""Every kernel of the memory-bound suite (bench/kernels/*.tl) on tilec's CPU interpreter, against
a reference written here in plain Python: the check CI runs (no GPU, no torch, no numpy).

    python3 bench/interp_check.py --tilec build/tilec [-k KERNEL]... [-v]

For each case it writes the inputs as raw files, runs `tilec run FILE -k KERNEL -s SIGNATURE
--grid G ARGS... --dump NAME=PATH` for every output, reads the outputs back and compares them
with the reference: exactly for copies, gathers, integer results and conversions that the
reference rounds the same way (fp32 products and casts are reproduced with struct), within a
stated (atol, rtol) where the kernel computes in fp32 what the reference computes in double
(exp, erf, sums in another order). Shapes are small and chosen so that masks cut the last
blocks. Exit status 1 if any case fails.
"""

import argparse
import ast
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(REPO_ROOT, "bench", "kernels")


# --- values in the kernels' storage types -------------------------------------------------------

def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x: float) -> float:
    return struct.unpack("<e", struct.pack("<e", x))[0]


def bf16_bits(x: float) -> int:
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even


def bf16(x: float) -> float:
    return struct.unpack("<f", struct.pack("<I", bf16_bits(x) << 16))[0]


ROUND = {"fp32": f32, "fp16": f16, "bf16": bf16}
FORMATS = {"fp32": "f", "fp16": "e", "i8": "b", "i32": "i", "i64": "q"}


def pack(dtype: str, values) -> bytes:
    if dtype == "bf16":
        return b"".join(struct.pack("<H", bf16_bits(v)) for v in values)
    return struct.pack(f"<{len(values)}{FORMATS[dtype]}", *values)


def unpack(dtype: str, data: bytes) -> list:
    if dtype == "bf16":
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in struct.unpack(f"<{len(data) // 2}H", data)]
    size = struct.calcsize(FORMATS[dtype])
    return list(struct.unpack(f"<{len(data) // size}{FORMATS[dtype]}", data))


class Buf:
    """A pointer argument: its element type and contents (rounded to the type)."""

    def __init__(self, dtype: str, values):
        self.dtype = dtype
        self.values = [ROUND[dtype](v) for v in values] if dtype in ROUND else list(values)


def randn(rng: random.Random, n: int, dtype: str) -> Buf:
    return Buf(dtype, [rng.gauss(0.0, 1.0) for _ in range(n)])


def zeros(n: int, dtype: str) -> Buf:
    return Buf(dtype, [0] * n)


def exp(x):
    return math.exp(x) if x < 700 else math.inf


# --- the cases ---------------------------------------------------------------------------------

class Case:
    def __init__(self, name, source, kernel, signature, grid, args, expect, tol=(0.0, 0.0)):
        self.name, self.source, self.kernel = name, source, kernel
        self.signature, self.grid, self.args = signature, grid, args
        self.expect = expect  # {parameter name: expected values}
        self.tol = tol  # (atol, rtol); (0, 0): exact


def cdiv(a, b):
    return (a + b - 1) // b


def cases():
    rng = random.Random(11)
    out = []

    def add(*a, **k):
        out.append(Case(*a, **k))

    # elementwise.tl
    n = 1000
    x = randn(rng, n, "fp16")
    y = [f16(v / (1.0 + exp(-(v * 0.75 + 0.25)))) for v in x.values]
    add("silu_scale_fp16", "elementwise.tl", "silu_scale_kernel", "*fp16:16,*fp16:16,i32,fp32,fp32,256",
        cdiv(n, 256), [x, zeros(n, "fp16"), n, 0.75, 0.25], {"y_ptr": y}, (1e-3, 2e-3))
    n = 777
    x = Buf("fp32", [rng.gauss(0, 6.0) for _ in range(n)])
    q = []
    for v in x.values:
        r = f32(v * 12.5)
        r = f32(r + 0.5) if r >= 0 else f32(r - 0.5)
        q.append(int(min(max(r, -127.0), 127.0)))  # int() truncates toward zero, as fptosi
    add("quantize_int8_fp32", "elementwise.tl", "quantize_int8_kernel", "*fp32:16,*i8:16,i32,fp32,256",
        cdiv(n, 256), [x, zeros(n, "i8"), n, 12.5], {"q_ptr": q})
    n = 600
    starts = [rng.randrange(1, 5000) for _ in range(n)]

    def collatz(v):
        steps = 0
        while v > 1:
            v = 3 * v + 1 if v % 2 else v // 2
            steps += 1
        return steps
    add("collatz_while", "elementwise.tl", "collatz_steps_kernel", "*i32:16,*i32:16,i32,128",
        cdiv(n, 128), [Buf("i32", starts), zeros(n, "i32"), n], {"steps_ptr": [collatz(v) for v in starts]})

    # broadcast.tl: M x N tiles that the blocks do not divide
    m, n = 37, 150
    x, b = randn(rng, m * n, "bf16"), randn(rng, n, "bf16")
    y = [bf16(max(f32(x.values[i * n + j] + b.values[j]), 0.0)) for i in range(m) for j in range(n)]
    add("bias_relu_bf16", "broadcast.tl", "bias_relu_kernel", "*bf16:16,*bf16:16,*bf16:16,i32,i32,i32,i32,16,64",
        [cdiv(m, 16), cdiv(n, 64)], [x, b, zeros(m * n, "bf16"), m, n, n, n], {"y_ptr": y})
    m, n, ld = 21, 70, 86  # x: the first 70 columns of a 21 x 86 matrix
    x, a, b = randn(rng, m * ld, "fp32"), randn(rng, m, "fp32"), randn(rng, n, "fp32")
    y = [x.values[i * ld + j] * a.values[i] + b.values[j] for i in range(m) for j in range(n)]
    add("outer_affine_fp32", "broadcast.tl", "outer_affine_kernel", "*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32,16,32",
        [cdiv(m, 16), cdiv(n, 32)], [x, a, b, zeros(m * n, "fp32"), m, n, ld, n], {"y_ptr": y}, (1e-6, 1e-6))
    m, n = 19, 100
    q = Buf("i8", [rng.randrange(-127, 128) for _ in range(m * n)])
    s = Buf("fp32", [abs(rng.gauss(0, 0.05)) for _ in range(m)])
    y = [f16(f32(q.values[i * n + j] * s.values[i])) for i in range(m) for j in range(n)]
    add("dequantize_rows_fp16", "broadcast.tl", "dequantize_rows_kernel", "*i8:16,*fp32:16,*fp16:16,i32,i32,i32,i32,16,64",
        [cdiv(m, 16), cdiv(n, 64)], [q, s, zeros(m * n, "fp16"), m, n, n, n], {"y_ptr": y})

    # layout.tl
    m, n = 70, 45
    x = randn(rng, m * n, "fp32")
    add("transpose2d_fp32", "layout.tl", "transpose2d_kernel", "*fp32:16,*fp32:16,i32,i32,i32,1,i32,1,32,32",
        [cdiv(m, 32), cdiv(n, 32)], [x, zeros(m * n, "fp32"), m, n, n, m],
        {"y_ptr": [x.values[i * n + j] for j in range(n) for i in range(m)]})
    bb, s_len, h, d = 2, 20, 3, 16
    x = randn(rng, bb * s_len * h * d, "fp16")
    y = [x.values[((b_ * s_len + s_) * h + h_) * d + d_]
         for b_ in range(bb) for h_ in range(h) for s_ in range(s_len) for d_ in range(d)]
    add("permute_bshd_fp16", "layout.tl", "permute_bshd_kernel", "*fp16:16,*fp16:16,i32,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16,16,8",
        [cdiv(s_len, 8), h, bb], [x, zeros(len(y), "fp16"), s_len, s_len * h * d, h * d, d, h * s_len * d, s_len * d, d],
        {"y_ptr": y})
    m, n, step = 33, 40, 2  # every other column of a 33 x 80 matrix
    x = randn(rng, m * n * step, "fp32")
    add("strided_copy_fp32", "layout.tl", "strided_copy_kernel", "*fp32:16,*fp32:16,i32,i32,i32,i32,i32,16,32",
        [cdiv(m, 16), cdiv(n, 32)], [x, zeros(m * n, "fp32"), m, n, n * step, step, n],
        {"y_ptr": [x.values[i * n * step + j * step] for i in range(m) for j in range(n)]})
    n, table = 900, 300
    x, idx = randn(rng, table, "fp32"), Buf("i32", [rng.randrange(table) for _ in range(900)])
    add("gather_fp32", "layout.tl", "gather_kernel", "*fp32:16,*i32:16,*fp32:16,i32,256",
        cdiv(n, 256), [x, idx, zeros(n, "fp32"), n], {"y_ptr": [x.values[i] for i in idx.values]})
    t_len, d, vocab = 21, 70, 50
    ids, w = Buf("i64", [rng.randrange(vocab) for _ in range(t_len)]), randn(rng, vocab * d, "fp16")
    add("embedding_fp16", "layout.tl", "embedding_kernel", "*i64:16,*fp16:16,*fp16:16,i32,i32,i32,i32,8,32",
        [cdiv(t_len, 8), cdiv(d, 32)], [ids, w, zeros(t_len * d, "fp16"), t_len, d, d, d],
        {"y_ptr": [w.values[i * d + j] for i in ids.values for j in range(d)]})

    # reduce.tl, with and without keep_dims (the output is M or N values either way)
    m, n = 13, 700
    x = randn(rng, m * n, "fp32")
    rows = [sum(x.values[i * n: (i + 1) * n]) for i in range(m)]
    cols = [sum(x.values[i * n + j] for i in range(m)) for j in range(n)]
    for keep in (False, True):
        add(f"sum_axis1_fp32_keep{int(keep)}", "reduce.tl", "sum_axis1_kernel", f"*fp32:16,*fp32:16,i32,i32,i32,4,128,{keep}",
            cdiv(m, 4), [x, zeros(m, "fp32"), m, n, n], {"y_ptr": rows}, (1e-4, 1e-5))
        add(f"sum_axis0_fp32_keep{int(keep)}", "reduce.tl", "sum_axis0_kernel", f"*fp32:16,*fp32:16,i32,i32,i32,8,32,{keep}",
            cdiv(n, 32), [x, zeros(n, "fp32"), m, n, n], {"y_ptr": cols}, (1e-5, 1e-5))
    add("argmax_rows_fp32", "reduce.tl", "argmax_rows_kernel", "*fp32:16,*i32:16,i32,i32,1024",
        m, [x, zeros(m, "i32"), n, n],
        {"y_ptr": [max(range(n), key=lambda j: (x.values[i * n + j], -j)) for i in range(m)]})

    # rows.tl
    m, n = 6, 300
    x = randn(rng, m * n, "fp32")
    soft, logsoft, loss = [], [], []
    target = Buf("i64", [rng.randrange(n) for _ in range(m)])
    for i in range(m):
        row = x.values[i * n: (i + 1) * n]
        mx = max(row)
        total = sum(exp(v - mx) for v in row)
        soft += [exp(v - mx) / total for v in row]
        logsoft += [v - mx - math.log(total) for v in row]
        loss.append(mx + math.log(total) - row[target.values[i]])
    add("softmax_rows_fp32", "rows.tl", "softmax_rows_kernel", "*fp32:16,*fp32:16,i32,i32,i32,512",
        m, [x, zeros(m * n, "fp32"), n, n, n], {"y_ptr": soft}, (1e-7, 1e-5))
    add("log_softmax_rows_fp32", "rows.tl", "log_softmax_rows_kernel", "*fp32:16,*fp32:16,i32,i32,i32,512",
        m, [x, zeros(m * n, "fp32"), n, n, n], {"y_ptr": logsoft}, (1e-5, 1e-5))
    add("cross_entropy_rows_fp32", "rows.tl", "cross_entropy_rows_kernel", "*fp32:16,*i64:16,*fp32:16,i32,i32,512",
        m, [x, target, zeros(m, "fp32"), n, n], {"loss_ptr": loss}, (1e-5, 1e-5))
    m, n = 5, 200
    x, w, b = randn(rng, m * n, "fp16"), randn(rng, n, "fp16"), randn(rng, n, "fp16")
    ln, rms = [], []
    for i in range(m):
        row = x.values[i * n: (i + 1) * n]
        mean = sum(row) / n
        rstd = 1 / math.sqrt(sum((v - mean) ** 2 for v in row) / n + 1e-5)
        ln += [(v - mean) * rstd * w.values[j] + b.values[j] for j, v in enumerate(row)]
        r = 1 / math.sqrt(sum(v * v for v in row) / n + 1e-5)
        rms += [v * r * w.values[j] for j, v in enumerate(row)]
    add("layer_norm_fp16", "rows.tl", "layer_norm_kernel", "*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,fp32,256",
        m, [x, w, b, zeros(m * n, "fp16"), n, n, n, 1e-5], {"y_ptr": ln}, (4e-3, 4e-3))
    xb, wb = Buf("bf16", x.values), Buf("bf16", w.values)
    rms_b = [v * (1 / math.sqrt(sum(u * u for u in xb.values[i * n: (i + 1) * n]) / n + 1e-5)) * wb.values[j % n]
             for i in range(m) for j, v in enumerate(xb.values[i * n: (i + 1) * n])]
    add("rms_norm_bf16", "rows.tl", "rms_norm_kernel", "*bf16:16,*bf16:16,*bf16:16,i32,i32,i32,fp32,256",
        m, [xb, wb, zeros(m * n, "bf16"), n, n, n, 1e-5], {"y_ptr": rms_b}, (2e-2, 1e-2))
    bb, c, hw, groups = 2, 8, 50, 4
    x, w, b = randn(rng, bb * c * hw, "fp32"), randn(rng, c, "fp32"), randn(rng, c, "fp32")
    y = [0.0] * (bb * c * hw)
    size = c // groups * hw
    for p in range(bb * groups):
        vals = x.values[p * size: (p + 1) * size]
        mean = sum(vals) / size
        rstd = 1 / math.sqrt(sum((v - mean) ** 2 for v in vals) / size + 1e-5)
        for k, v in enumerate(vals):
            ch = (p % groups) * (c // groups) + k // hw
            y[p * size + k] = (v - mean) * rstd * w.values[ch] + b.values[ch]
    add("group_norm_fp32", "rows.tl", "group_norm_kernel", "*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,fp32,4,64",
        bb * groups, [x, w, b, zeros(len(y), "fp32"), c, hw, 1e-5], {"y_ptr": y}, (1e-4, 1e-4))

    # fused.tl
    t_len, h, d = 3, 5, 32
    half = d // 2
    x = randn(rng, t_len * h * d, "fp16")
    cos_t = Buf("fp32", [math.cos(rng.uniform(-3, 3)) for _ in range(t_len * half)])
    sin_t = Buf("fp32", [math.sin(rng.uniform(-3, 3)) for _ in range(t_len * half)])
    y = []
    for t in range(t_len):
        for hh in range(h):
            base = (t * h + hh) * d
            c_, s_ = cos_t.values[t * half: (t + 1) * half], sin_t.values[t * half: (t + 1) * half]
            x1, x2 = x.values[base: base + half], x.values[base + half: base + d]
            y += [x1[k] * c_[k] - x2[k] * s_[k] for k in range(half)]
            y += [x2[k] * c_[k] + x1[k] * s_[k] for k in range(half)]
    add("rope_fp16", "fused.tl", "rope_kernel", "*fp16:16,*fp32:16,*fp32:16,*fp16:16,i32,i32:16,i32:16,i32:16,i32:16,i32:16,16,4",
        [t_len, cdiv(h, 4)], [x, cos_t, sin_t, zeros(len(y), "fp16"), h, h * d, d, h * d, d, half],
        {"y_ptr": y}, (1e-3, 2e-3))
    m, n = 9, 75
    for name, act, dtype, tol in (("swiglu", lambda g: g / (1 + exp(-g)), "bf16", (1e-2, 1.6e-2)),
                                  ("geglu", lambda g: 0.5 * g * (1 + math.erf(g / math.sqrt(2))), "fp32", (1e-6, 1e-5))):
        x = randn(rng, m * 2 * n, dtype)
        y = [act(x.values[i * 2 * n + j]) * x.values[i * 2 * n + n + j] for i in range(m) for j in range(n)]
        add(f"{name}_{dtype}", "fused.tl", f"{name}_kernel", f"*{dtype}:16,*{dtype}:16,i32,i32,i32,i32,8,32",
            [cdiv(m, 8), cdiv(n, 32)], [x, zeros(m * n, dtype), m, n, 2 * n, n], {"y_ptr": y}, tol)
    n, bins = 1500, 16
    x = Buf("i32", [min(int(abs(rng.gauss(0, 5))), bins - 1) for _ in range(n)])
    counts = [x.values.count(k) for k in range(bins)]
    add("histogram_atomic", "fused.tl", "histogram_atomic_kernel", "*i32:16,*i32:16,i32,256",
        cdiv(n, 256), [x, zeros(bins, "i32"), n], {"bins_ptr": counts})
    add("histogram_block", "fused.tl", "histogram_block_kernel", "*i32:16,*i32:16,i32,16,256",
        cdiv(n, 256), [x, zeros(bins, "i32"), n], {"bins_ptr": counts})
    return out


# --- running -----------------------------------------------------------------------------------

def runtime_params(path: str, kernel: str):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in node.args.args
                    if a.annotation is None or not ast.unparse(a.annotation).endswith("constexpr")]
    raise RuntimeError(f"{path}: no kernel {kernel}")


def run_case(tilec: str, case: Case, work: str, verbose: bool) -> str:
    """'' if the case passes, else what went wrong."""
    source = os.path.join(KERNELS, case.source)
    # The run-time arguments go to the parameters that are neither tl.constexpr nor bound to a
    # literal in the signature (a stride bound to 1).
    params = runtime_params(source, case.kernel)
    entries = case.signature.split(",")
    bound = [p for p, entry in zip(_all_params(source, case.kernel), entries)
             if p in params and not _is_literal(entry)]
    specs, dumps, dtypes = [], [], {}
    if len(bound) != len(case.args):
        return f"{len(case.args)} arguments for run-time parameters {bound}"
    for name, arg in zip(bound, case.args):
        if isinstance(arg, Buf):
            path = os.path.join(work, f"{case.name}.{name}.in")
            with open(path, "wb") as f:
                f.write(pack(arg.dtype, arg.values))
            specs.append(f"file:{path}")
            dtypes[name] = arg.dtype
        else:
            specs.append(repr(arg) if isinstance(arg, float) else str(arg))
    for name in case.expect:
        dumps += ["--dump", f"{name}={os.path.join(work, case.name + '.' + name + '.out')}"]
    grid = case.grid if isinstance(case.grid, list) else [case.grid]
    command = [tilec, "run", source, "-k", case.kernel, "-s", case.signature,
               "--grid", ",".join(str(g) for g in grid)] + specs + dumps
    if verbose:
        print(" ".join(command))
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return f"tilec run failed ({result.returncode}):\n{result.stderr.strip()}"
    atol, rtol = case.tol
    for name, want in case.expect.items():
        with open(os.path.join(work, case.name + "." + name + ".out"), "rb") as f:
            got = unpack(dtypes[name], f.read())
        if len(got) != len(want):
            return f"{name}: {len(got)} values, expected {len(want)}"
        bad = [i for i, (g, w) in enumerate(zip(got, want))
               if not (abs(g - w) <= atol + rtol * abs(w))]  # NaN fails
        if bad:
            i = bad[0]
            return (f"{name}: {len(bad)} of {len(want)} values off by more than atol {atol} + rtol "
                    f"{rtol}; first [{i}]: got {got[i]!r}, expected {want[i]!r}")
    return ""


def _all_params(path, kernel):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in node.args.args]
    raise RuntimeError(f"{path}: no kernel {kernel}")


def _is_literal(entry: str) -> bool:
    entry = entry.strip()
    return not (entry.startswith("*") or entry.split(":")[0] in
                ("i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tilec", required=True, help="the tilec binary")
    parser.add_argument("-k", "--kernel", action="append", help="only the cases of these names")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each tilec command")
    args = parser.parse_args(argv)
    selected = [c for c in cases() if not args.kernel or c.name in args.kernel]
    if args.kernel and not selected:
        parser.error("no such case")
    failed = 0
    kernels = set()
    with tempfile.TemporaryDirectory(prefix="tilec-interp-check-") as work:
        for case in selected:
            problem = run_case(os.path.abspath(args.tilec), case, work, args.verbose)
            kernels.add(case.kernel)
            print(f"{'FAIL' if problem else 'ok':4}  {case.name}  ({case.source}:{case.kernel})")
            if problem:
                failed += 1
                print("      " + problem.replace("\n", "\n      "))
    print(f"interp_check: {len(selected)} cases, {len(kernels)} kernels, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
