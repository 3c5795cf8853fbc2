"""The memory-bound suite of bench.py: kernel families of bench/kernels/*.tl over sweeps of shapes
and dtypes (issue 11).

A Family is one @triton.jit kernel with the (dtype, shape) cases it runs. `expand()` turns each
family into bench.py's Bench entries, one per specialisation: for every case it builds the
arguments (on PyTorch's "meta" device, so no GPU and no memory is needed) and derives the
signature Triton's JIT would specialise them to (bench.signature_of), and the cases that share a
signature, dtype and num_warps become one entry, so one PTX file. Arguments equal to 1 become
literal constexprs, as in Triton; they are left out of the entry's run-time arguments.

Each family states how its outputs are checked: `exact` families (elementwise ones, copies,
gathers, integer results) must give tilec's bits equal to Triton's; the others (reductions, row
statistics) within `tol[dtype]` = (atol, rtol) of Triton's. PyTorch's result is compared within
`tol` always (it computes differently: its own exp, sigmoid, erf and reduction orders).
"""

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch

DEVICE = "meta"  # bench.py sets "cuda" before it builds tensors to run

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
ESIZE = {"fp32": 4, "fp16": 2, "bf16": 2}

# Tolerances against PyTorch (and against Triton for non-exact families): (atol, rtol).
ELEMENTWISE_TOL = {"fp32": (1e-5, 1e-4), "fp16": (1e-3, 2e-3), "bf16": (1e-2, 1.6e-2)}
# Sums of up to 16384 randn values (|sum| ~ 128) in fp32, reordered, then rounded to the output.
SUM_TOL = {"fp32": (2e-3, 1e-4), "fp16": (6e-2, 2e-3), "bf16": (0.5, 1.6e-2)}
# Row statistics (softmax, norms): fp32 math, the output rounded to its dtype.
ROW_TOL = {"fp32": (1e-5, 1e-4), "fp16": (2e-3, 4e-3), "bf16": (1.6e-2, 1.6e-2)}
NORM_TOL = {"fp32": (2e-4, 2e-4), "fp16": (2e-2, 1e-2), "bf16": (6e-2, 2e-2)}
EXACT = {"fp32": (0.0, 0.0), "fp16": (0.0, 0.0), "bf16": (0.0, 0.0), "i32": (0.0, 0.0)}


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def randn(shape, dtype="fp32"):
    return torch.randn(shape, device=DEVICE, dtype=DTYPES[dtype])


def empty(shape, dtype="fp32"):
    return torch.empty(shape, device=DEVICE, dtype=DTYPES.get(dtype, dtype))


def randint(low, high, shape, dtype=torch.int32):
    return torch.randint(low, high, shape, device=DEVICE, dtype=dtype)


@dataclass
class Family:
    name: str
    source: str  # relative to the repository root
    kernel: str
    cases: Sequence[Tuple[str, tuple]]  # (dtype, shape) rows
    inputs: Callable[[tuple, str], Dict[str, Any]]  # (shape, dtype) -> tensors, outputs included
    outputs: Sequence[str]
    args: Callable[[Dict[str, Any], tuple], List[Any]]  # every run-time parameter, in order
    constexprs: Callable[[tuple, str], Dict[str, Any]]  # the tl.constexpr parameters
    grid: Callable[[Dict[str, Any], tuple], tuple]
    torch: Optional[Callable[[Dict[str, Any], tuple], None]]
    bytes: Callable[[tuple, str], int]  # bytes the kernel must read + write
    num_warps: Callable[[tuple, str], int] = lambda shape, dtype: 4
    exact: bool = True  # tilec's bits must equal Triton's
    tol: Dict[str, Tuple[float, float]] = None  # per dtype, against PyTorch (and Triton if not exact)
    torch_timed: bool = True  # False: PyTorch only checks (e.g. a loop with a host sync)


def cross(dtypes: Sequence[str], shapes: Sequence[tuple]) -> List[Tuple[str, tuple]]:
    return [(d, s) for d in dtypes for s in shapes]


def fmt_shape(shape: tuple) -> str:
    return "x".join(str(s) for s in shape)


# --- the families ------------------------------------------------------------------------------

EW = "bench/kernels/elementwise.tl"
BC = "bench/kernels/broadcast.tl"
LAYOUT = "bench/kernels/layout.tl"
RED = "bench/kernels/reduce.tl"
ROWS = "bench/kernels/rows.tl"
FUSED = "bench/kernels/fused.tl"

# 1-D sizes: tiny (launch-bound), L2-resident, HBM-bound, and not a multiple of 16.
SIZES_1D = [(4096,), (2**20,), (2**24,), (10**7 + 3,)]


def _silu_scale_ref(t, s):
    x = t["x"].float()
    t["y"].copy_((x / (1.0 + torch.exp(-(x * 0.75 + 0.25)))).to(t["y"].dtype))


def _quantize_ref(t, s):
    x = t["x"].float() * 12.5
    r = torch.where(x >= 0, x + 0.5, x - 0.5).clamp(-127.0, 127.0)
    t["q"].copy_(r.to(torch.int8))


def _collatz_ref(t, s):
    v, steps = t["x"].clone(), torch.zeros_like(t["x"])
    while bool((v > 1).any()):  # a host sync per step: for the check only, not timed
        live = v > 1
        steps += live.to(steps.dtype)
        v = torch.where(live, torch.where(v % 2 == 1, 3 * v + 1, v // 2), v)
    t["steps"].copy_(steps)


def _tile2d(BM, BN):
    return lambda meta, s: (cdiv(s[0], meta["BLOCK_M"]), cdiv(s[1], meta["BLOCK_N"]))


def _glu_ref(act):
    def ref(t, s):
        n = s[1]
        g, u = t["x"][:, :n].float(), t["x"][:, n:].float()
        t["y"].copy_((act(g) * u).to(t["y"].dtype))
    return ref


def _strided_view(shape, dtype):
    """x of strided_copy: every `step`-th column of a wider matrix, starting at column `offset`."""
    m, n, step, offset = shape
    base = randn((m, offset + n * step + (16 if offset else 0)), dtype)
    return base[:, offset: offset + n * step: step]


def _rope_inputs(shape, dtype):
    t_len, h, d, fused = shape
    half = d // 2
    if fused:  # q of a fused [T, 3, H, D] qkv projection: a strided view
        x = randn((t_len, 3, h, d), dtype)[:, 0]
    else:
        x = randn((t_len, h, d), dtype)
    angle = randn((t_len, half), "fp32")
    return {"x": x, "cos": torch.cos(angle), "sin": torch.sin(angle),
            "y": empty((t_len, h, d), dtype)}


def _rope_ref(t, s):
    half = s[2] // 2
    x = t["x"].float()
    c, sn = t["cos"][:, None, :], t["sin"][:, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    t["y"].copy_(torch.cat([x1 * c - x2 * sn, x2 * c + x1 * sn], dim=-1).to(t["y"].dtype))


def _group_norm_ref(t, s):
    b, c, hw, g = s
    y = torch.nn.functional.group_norm(t["x"].float().view(b, c, hw), g, t["w"].float(),
                                       t["b"].float(), 1e-5)
    t["y"].copy_(y.to(t["y"].dtype))


def _rows_warps(shape, dtype):
    block = next_pow2(shape[1])
    return 4 if block <= 2048 else 8 if block <= 8192 else 16


FAMILIES: List[Family] = [
    # --- elementwise chains with casts, and a data-dependent loop ---
    Family(
        name="silu_scale", source=EW, kernel="silu_scale_kernel",
        cases=cross(["fp32", "fp16", "bf16"], SIZES_1D),
        inputs=lambda s, d: {"x": randn(s, d), "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[0], 0.75, 0.25],
        constexprs=lambda s, d: {"BLOCK": 1024},
        grid=lambda meta, s: (cdiv(s[0], meta["BLOCK"]),),
        torch=_silu_scale_ref,
        bytes=lambda s, d: 2 * s[0] * ESIZE[d],
        tol=ELEMENTWISE_TOL,
    ),
    Family(
        name="quantize_int8", source=EW, kernel="quantize_int8_kernel",
        cases=cross(["fp32", "fp16"], [(2**20,), (2**24,), (3 * 10**6 + 5,)]),
        inputs=lambda s, d: {"x": randn(s, d), "q": empty(s, torch.int8)},
        outputs=["q"],
        args=lambda t, s: [t["x"], t["q"], s[0], 12.5],
        constexprs=lambda s, d: {"BLOCK": 1024},
        grid=lambda meta, s: (cdiv(s[0], meta["BLOCK"]),),
        torch=_quantize_ref,
        bytes=lambda s, d: s[0] * (ESIZE[d] + 1),
        tol=EXACT,
    ),
    Family(
        # Start values below 2^16: no trajectory leaves int32 (the largest value is 1.57e9).
        name="collatz_while", source=EW, kernel="collatz_steps_kernel",
        cases=cross(["i32"], [(4096,), (2**20,), (10**6 + 1,)]),
        inputs=lambda s, d: {"x": randint(1, 2**16, s), "steps": empty(s, torch.int32)},
        outputs=["steps"],
        args=lambda t, s: [t["x"], t["steps"], s[0]],
        constexprs=lambda s, d: {"BLOCK": 1024},
        grid=lambda meta, s: (cdiv(s[0], meta["BLOCK"]),),
        torch=_collatz_ref,
        bytes=lambda s, d: 8 * s[0],
        tol=EXACT,
        torch_timed=False,
    ),
    # --- broadcasting row / column vectors over 2-D tiles ---
    Family(
        name="bias_relu", source=BC, kernel="bias_relu_kernel",
        cases=cross(["fp32", "fp16", "bf16"], [(64, 256), (4096, 4096), (3000, 1000)])
        + [("fp16", (8192, 8192))],
        inputs=lambda s, d: {"x": randn(s, d), "b": randn((s[1],), d), "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["b"], t["y"], s[0], s[1], t["x"].stride(0), t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_M": 32, "BLOCK_N": 128},
        grid=_tile2d(32, 128),
        torch=lambda t, s: t["y"].copy_(torch.relu(t["x"].float() + t["b"].float()).to(t["y"].dtype)),
        bytes=lambda s, d: (2 * s[0] + 1) * s[1] * ESIZE[d],
        tol=ELEMENTWISE_TOL,
    ),
    Family(
        # (M, N, pad): pad > 0 reads x as the first N columns of an M x (N + pad) matrix.
        name="outer_affine", source=BC, kernel="outer_affine_kernel",
        cases=cross(["fp32", "bf16"], [(4096, 4096, 0), (4096, 4096, 64), (1000, 3000, 0)]),
        inputs=lambda s, d: {"x": randn((s[0], s[1] + s[2]), d)[:, : s[1]], "a": randn((s[0],), d),
                             "b": randn((s[1],), d), "y": empty(s[:2], d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["a"], t["b"], t["y"], s[0], s[1], t["x"].stride(0),
                           t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_M": 32, "BLOCK_N": 128},
        grid=_tile2d(32, 128),
        torch=lambda t, s: t["y"].copy_((t["x"].float() * t["a"].float()[:, None]
                                         + t["b"].float()[None, :]).to(t["y"].dtype)),
        bytes=lambda s, d: (2 * s[0] * s[1] + s[0] + s[1]) * ESIZE[d],
        tol=ELEMENTWISE_TOL,
    ),
    Family(
        name="dequantize_rows", source=BC, kernel="dequantize_rows_kernel",
        cases=cross(["fp16", "bf16", "fp32"], [(4096, 4096), (8192, 8192)]) + [("fp16", (1000, 1000))],
        inputs=lambda s, d: {"q": randint(-127, 128, s, torch.int8), "scale": randn((s[0],)).abs(),
                             "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["q"], t["scale"], t["y"], s[0], s[1], t["q"].stride(0),
                           t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_M": 32, "BLOCK_N": 128},
        grid=_tile2d(32, 128),
        torch=lambda t, s: t["y"].copy_((t["q"].float() * t["scale"][:, None]).to(t["y"].dtype)),
        bytes=lambda s, d: s[0] * s[1] * (1 + ESIZE[d]) + 4 * s[0],
        tol=EXACT,
    ),
    # --- data movement: transposes, permutes, strided and gathered loads ---
    Family(
        name="transpose2d", source=LAYOUT, kernel="transpose2d_kernel",
        cases=cross(["fp32", "fp16"], [(256, 256), (4096, 4096), (8192, 8192), (16384, 512),
                                       (3000, 5000)]),
        inputs=lambda s, d: {"x": randn(s, d), "y": empty((s[1], s[0]), d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[0], s[1], t["x"].stride(0), t["x"].stride(1),
                           t["y"].stride(0), t["y"].stride(1)],
        constexprs=lambda s, d: {"BLOCK_M": 64, "BLOCK_N": 64},
        grid=_tile2d(64, 64),
        torch=lambda t, s: t["y"].copy_(t["x"].t()),
        bytes=lambda s, d: 2 * s[0] * s[1] * ESIZE[d],
        tol=EXACT,
    ),
    Family(
        # (B, S, H, D): [B, S, H, D] -> [B, H, S, D]
        name="permute_bshd", source=LAYOUT, kernel="permute_bshd_kernel",
        cases=cross(["fp16"], [(1, 128, 8, 64), (8, 2048, 16, 64), (4, 4096, 32, 128),
                               (2, 1000, 12, 64)])
        + cross(["fp32"], [(8, 2048, 16, 64), (4, 4096, 32, 128)]),
        inputs=lambda s, d: {"x": randn(s, d), "y": empty((s[0], s[2], s[1], s[3]), d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[1], t["x"].stride(0), t["x"].stride(1),
                           t["x"].stride(2), t["y"].stride(0), t["y"].stride(1), t["y"].stride(2)],
        constexprs=lambda s, d: {"D": s[3], "BLOCK_S": 4096 // s[3]},
        grid=lambda meta, s: (cdiv(s[1], meta["BLOCK_S"]), s[2], s[0]),
        torch=lambda t, s: t["y"].copy_(t["x"].permute(0, 2, 1, 3)),
        bytes=lambda s, d: 2 * math.prod(s) * ESIZE[d],
        tol=EXACT,
    ),
    Family(
        # (M, N, step, offset): x = every step-th column from column `offset` of a wider matrix.
        name="strided_copy", source=LAYOUT, kernel="strided_copy_kernel",
        cases=cross(["fp32", "fp16"], [(64, 64, 2, 0), (4096, 4096, 2, 0), (4096, 4096, 1, 3),
                                       (2000, 3000, 2, 0)]),
        inputs=lambda s, d: {"x": _strided_view(s, d), "y": empty(s[:2], d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[0], s[1], t["x"].stride(0), t["x"].stride(1),
                           t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_M": 32, "BLOCK_N": 128},
        grid=_tile2d(32, 128),
        torch=lambda t, s: t["y"].copy_(t["x"]),
        bytes=lambda s, d: 2 * s[0] * s[1] * ESIZE[d],
        tol=EXACT,
    ),
    Family(
        # (n, table size): y[i] = x[idx[i]], int32 indices.
        name="gather", source=LAYOUT, kernel="gather_kernel",
        cases=cross(["fp32"], [(2**20, 2**20), (2**24, 2**24), (10**6 + 1, 4096)])
        + [("bf16", (2**24, 2**24))],
        inputs=lambda s, d: {"x": randn((s[1],), d), "idx": randint(0, s[1], (s[0],)),
                             "y": empty((s[0],), d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["idx"], t["y"], s[0]],
        constexprs=lambda s, d: {"BLOCK": 1024},
        grid=lambda meta, s: (cdiv(s[0], meta["BLOCK"]),),
        torch=lambda t, s: torch.index_select(t["x"], 0, t["idx"], out=t["y"]),
        bytes=lambda s, d: s[0] * (4 + 2 * ESIZE[d]),
        tol=EXACT,
    ),
    Family(
        # (T, D, vocabulary): int64 token ids.
        name="embedding", source=LAYOUT, kernel="embedding_kernel",
        cases=cross(["fp16"], [(16, 4096, 32000), (8192, 4096, 32000), (2048, 768, 50257),
                               (4096, 1000, 50257)])
        + cross(["bf16", "fp32"], [(8192, 4096, 32000)]),
        inputs=lambda s, d: {"ids": randint(0, s[2], (s[0],), torch.int64),
                             "w": randn((s[2], s[1]), d), "y": empty(s[:2], d)},
        outputs=["y"],
        args=lambda t, s: [t["ids"], t["w"], t["y"], s[0], s[1], t["w"].stride(0),
                           t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_T": 16, "BLOCK_D": 256},
        grid=lambda meta, s: (cdiv(s[0], meta["BLOCK_T"]), cdiv(s[1], meta["BLOCK_D"])),
        torch=lambda t, s: t["y"].copy_(torch.nn.functional.embedding(t["ids"], t["w"])),
        bytes=lambda s, d: s[0] * (8 + 2 * s[1] * ESIZE[d]),
        tol=EXACT,
    ),
    # --- reductions over each axis, with and without keep_dims ---
]


def _sum_family(name, kernel, axis, cases, block_m, block_n):
    def inputs(s, d):
        m, n, keep = s
        out = (m if axis == 1 else n,)
        if keep:
            out = (m, 1) if axis == 1 else (1, n)
        return {"x": randn((m, n), d), "y": empty(out, d)}

    return Family(
        name=name, source=RED, kernel=kernel, cases=cases, inputs=inputs, outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[0], s[1], t["x"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_M": block_m, "BLOCK_N": block_n, "KEEP_DIMS": bool(s[2])},
        grid=(lambda meta, s: (cdiv(s[0], meta["BLOCK_M"]),)) if axis == 1
        else (lambda meta, s: (cdiv(s[1], meta["BLOCK_N"]),)),
        torch=lambda t, s: t["y"].copy_(t["x"].float().sum(axis, keepdim=bool(s[2])).to(t["y"].dtype)),
        bytes=lambda s, d: (s[0] * s[1] + (s[0] if axis == 1 else s[1])) * ESIZE[d],
        exact=False, tol=SUM_TOL,
    )


# (M, N, keep_dims)
FAMILIES += [
    _sum_family("sum_axis1", "sum_axis1_kernel", 1,
                cross(["fp32"], [(4096, 4096, 0), (32768, 512, 0), (1000, 3000, 0), (16, 16384, 0),
                                 (4096, 4096, 1), (1000, 3000, 1)])
                + cross(["fp16", "bf16"], [(4096, 4096, 0), (32768, 512, 1)]), 4, 256),
    _sum_family("sum_axis0", "sum_axis0_kernel", 0,
                cross(["fp32"], [(4096, 4096, 0), (16384, 2048, 0), (3000, 1000, 0),
                                 (4096, 4096, 1)])
                + cross(["fp16"], [(4096, 4096, 0), (3000, 1000, 1)]), 128, 32),
    Family(
        name="argmax_rows", source=RED, kernel="argmax_rows_kernel",
        cases=cross(["fp32", "fp16"], [(4096, 4096), (16384, 1000), (64, 32000)]),
        inputs=lambda s, d: {"x": randn(s, d), "y": empty((s[0],), torch.int32)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[1], t["x"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_N": next_pow2(s[1])},
        num_warps=_rows_warps,
        grid=lambda meta, s: (s[0],),
        torch=lambda t, s: t["y"].copy_(t["x"].argmax(1).to(torch.int32)),
        bytes=lambda s, d: s[0] * (s[1] * ESIZE[d] + 4),
        tol=EXACT,
    ),
    # --- softmax, log-softmax, cross-entropy rows ---
    Family(
        name="softmax_rows", source=ROWS, kernel="softmax_rows_kernel",
        cases=cross(["fp32"], [(4096, 4096), (16384, 1000), (8192, 128), (256, 32000)])
        + cross(["fp16"], [(4096, 4096), (16384, 1000)]) + [("bf16", (4096, 4096))],
        inputs=lambda s, d: {"x": randn(s, d), "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[1], t["x"].stride(0), t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_N": next_pow2(s[1])},
        num_warps=_rows_warps,
        grid=lambda meta, s: (s[0],),
        torch=lambda t, s: t["y"].copy_(torch.softmax(t["x"].float(), 1).to(t["y"].dtype)),
        bytes=lambda s, d: 2 * s[0] * s[1] * ESIZE[d],
        exact=False, tol=ROW_TOL,
    ),
    Family(
        name="log_softmax_rows", source=ROWS, kernel="log_softmax_rows_kernel",
        cases=cross(["fp32", "bf16"], [(4096, 4096), (16384, 1000)]),
        inputs=lambda s, d: {"x": randn(s, d), "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[1], t["x"].stride(0), t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_N": next_pow2(s[1])},
        num_warps=_rows_warps,
        grid=lambda meta, s: (s[0],),
        torch=lambda t, s: t["y"].copy_(torch.log_softmax(t["x"].float(), 1).to(t["y"].dtype)),
        bytes=lambda s, d: 2 * s[0] * s[1] * ESIZE[d],
        exact=False, tol={"fp32": (1e-4, 1e-5), "bf16": (6e-2, 1.6e-2)},
    ),
    Family(
        name="cross_entropy_rows", source=ROWS, kernel="cross_entropy_rows_kernel",
        cases=cross(["fp32", "bf16"], [(8192, 4096), (4096, 32000)]) + [("fp16", (8192, 4096))],
        inputs=lambda s, d: {"x": randn(s, d), "target": randint(0, s[1], (s[0],), torch.int64),
                             "loss": empty((s[0],))},
        outputs=["loss"],
        args=lambda t, s: [t["x"], t["target"], t["loss"], s[1], t["x"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_N": next_pow2(s[1])},
        num_warps=_rows_warps,
        grid=lambda meta, s: (s[0],),
        torch=lambda t, s: t["loss"].copy_(torch.nn.functional.cross_entropy(
            t["x"].float(), t["target"], reduction="none")),
        bytes=lambda s, d: s[0] * (s[1] * ESIZE[d] + 12),
        exact=False, tol={"fp32": (1e-4, 1e-5), "fp16": (1e-4, 1e-5), "bf16": (1e-4, 1e-5)},
    ),
    # --- norms ---
    Family(
        name="layer_norm", source=ROWS, kernel="layer_norm_kernel",
        cases=cross(["fp16"], [(4096, 4096), (16384, 1024), (8192, 768), (1000, 5000)])
        + cross(["bf16", "fp32"], [(4096, 4096), (16384, 1024)]),
        inputs=lambda s, d: {"x": randn(s, d), "w": randn((s[1],), d), "b": randn((s[1],), d),
                             "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["w"], t["b"], t["y"], s[1], t["x"].stride(0),
                           t["y"].stride(0), 1e-5],
        constexprs=lambda s, d: {"BLOCK_N": next_pow2(s[1])},
        num_warps=_rows_warps,
        grid=lambda meta, s: (s[0],),
        torch=lambda t, s: t["y"].copy_(torch.nn.functional.layer_norm(
            t["x"].float(), (s[1],), t["w"].float(), t["b"].float(), 1e-5).to(t["y"].dtype)),
        bytes=lambda s, d: (2 * s[0] + 2) * s[1] * ESIZE[d],
        exact=False, tol=NORM_TOL,
    ),
    Family(
        name="rms_norm", source=ROWS, kernel="rms_norm_kernel",
        cases=cross(["fp16", "bf16"], [(4096, 4096), (16384, 1024), (2048, 5120)]),
        inputs=lambda s, d: {"x": randn(s, d), "w": randn((s[1],), d), "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["w"], t["y"], s[1], t["x"].stride(0), t["y"].stride(0), 1e-5],
        constexprs=lambda s, d: {"BLOCK_N": next_pow2(s[1])},
        num_warps=_rows_warps,
        grid=lambda meta, s: (s[0],),
        torch=lambda t, s: t["y"].copy_((t["x"].float() * torch.rsqrt(
            t["x"].float().pow(2).mean(1, keepdim=True) + 1e-5) * t["w"].float()).to(t["y"].dtype)),
        bytes=lambda s, d: (2 * s[0] + 1) * s[1] * ESIZE[d],
        exact=False, tol=NORM_TOL,
    ),
    Family(
        # (B, C, HW, groups)
        name="group_norm", source=ROWS, kernel="group_norm_kernel",
        cases=cross(["fp32"], [(8, 256, 1024, 32), (16, 320, 4096, 32)])
        + cross(["fp16"], [(8, 256, 1024, 32), (16, 320, 4096, 32), (4, 64, 1000, 8)]),
        inputs=lambda s, d: {"x": randn((s[0], s[1], s[2]), d), "w": randn((s[1],), d),
                             "b": randn((s[1],), d), "y": empty((s[0], s[1], s[2]), d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["w"], t["b"], t["y"], s[1], s[2], 1e-5],
        constexprs=lambda s, d: {"GROUPS": s[3], "BLOCK": 1024},
        grid=lambda meta, s: (s[0] * meta["GROUPS"],),
        torch=_group_norm_ref,
        # The statistics pass reads x once more (from L2 at best).
        bytes=lambda s, d: 2 * s[0] * s[1] * s[2] * ESIZE[d],
        exact=False, tol={"fp32": (1e-3, 1e-3), "fp16": (2e-2, 1e-2)},
    ),
    # --- transformer pieces ---
    Family(
        # (T, H, D, fused): fused = x is q of a [T, 3, H, D] qkv tensor (strided tokens).
        name="rope", source=FUSED, kernel="rope_kernel",
        cases=cross(["fp16"], [(1, 32, 128, 0), (8192, 32, 128, 0), (4096, 32, 128, 1),
                               (1000, 12, 64, 0)])
        + cross(["bf16"], [(8192, 32, 128, 0), (4096, 32, 128, 1)]) + [("fp32", (8192, 32, 128, 0))],
        inputs=_rope_inputs,
        outputs=["y"],
        args=lambda t, s: [t["x"], t["cos"], t["sin"], t["y"], s[1], t["x"].stride(0),
                           t["x"].stride(1), t["y"].stride(0), t["y"].stride(1), t["cos"].stride(0)],
        constexprs=lambda s, d: {"HALF": s[2] // 2, "BLOCK_H": 16},
        grid=lambda meta, s: (s[0], cdiv(s[1], meta["BLOCK_H"])),
        torch=_rope_ref,
        bytes=lambda s, d: 2 * s[0] * s[1] * s[2] * ESIZE[d] + 4 * s[0] * s[2],
        tol=ELEMENTWISE_TOL,
    ),
    Family(
        name="swiglu", source=FUSED, kernel="swiglu_kernel",
        cases=cross(["fp16"], [(16, 11008), (4096, 11008), (1000, 2730)])
        + cross(["bf16"], [(4096, 11008), (8192, 4096)]) + [("fp32", (4096, 4096))],
        inputs=lambda s, d: {"x": randn((s[0], 2 * s[1]), d), "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[0], s[1], t["x"].stride(0), t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_M": 32, "BLOCK_N": 128},
        grid=_tile2d(32, 128),
        torch=_glu_ref(lambda g: g * torch.sigmoid(g)),
        bytes=lambda s, d: 3 * s[0] * s[1] * ESIZE[d],
        tol=ELEMENTWISE_TOL,
    ),
    Family(
        name="geglu", source=FUSED, kernel="geglu_kernel",
        cases=cross(["fp16", "bf16"], [(4096, 4096), (2048, 11008)]),
        inputs=lambda s, d: {"x": randn((s[0], 2 * s[1]), d), "y": empty(s, d)},
        outputs=["y"],
        args=lambda t, s: [t["x"], t["y"], s[0], s[1], t["x"].stride(0), t["y"].stride(0)],
        constexprs=lambda s, d: {"BLOCK_M": 32, "BLOCK_N": 128},
        grid=_tile2d(32, 128),
        torch=_glu_ref(lambda g: torch.nn.functional.gelu(g)),
        bytes=lambda s, d: 3 * s[0] * s[1] * ESIZE[d],
        tol=ELEMENTWISE_TOL,
    ),
    # --- histograms with atomics (integer counts: exact whatever the order) ---
    Family(
        # (n, bins)
        name="histogram_atomic", source=FUSED, kernel="histogram_atomic_kernel",
        cases=cross(["i32"], [(2**20, 256), (2**24, 256), (2**24, 4096), (10**6 + 1, 64)]),
        inputs=lambda s, d: {"x": randint(0, s[1], (s[0],)), "bins": empty((s[1],), torch.int32)},
        outputs=["bins"],
        args=lambda t, s: [t["x"], t["bins"], s[0]],
        constexprs=lambda s, d: {"BLOCK": 1024},
        grid=lambda meta, s: (cdiv(s[0], meta["BLOCK"]),),
        torch=lambda t, s: t["bins"].index_add_(0, t["x"], torch.ones_like(t["x"])),
        bytes=lambda s, d: 4 * s[0],
        tol=EXACT,
    ),
    Family(
        name="histogram_block", source=FUSED, kernel="histogram_block_kernel",
        cases=cross(["i32"], [(2**20, 256), (2**24, 64), (10**6 + 1, 256)]),
        inputs=lambda s, d: {"x": randint(0, s[1], (s[0],)), "bins": empty((s[1],), torch.int32)},
        outputs=["bins"],
        args=lambda t, s: [t["x"], t["bins"], s[0]],
        constexprs=lambda s, d: {"NUM_BINS": s[1], "BLOCK": 1024},
        grid=lambda meta, s: (cdiv(s[0], meta["BLOCK"]),),
        torch=lambda t, s: t["bins"].index_add_(0, t["x"], torch.ones_like(t["x"])),
        bytes=lambda s, d: 4 * s[0],
        tol=EXACT,
    ),
]
