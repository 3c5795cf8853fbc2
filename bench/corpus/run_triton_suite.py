"""Kernels of Triton's own suite (triton_kernels) and of tritonbench, every launch checked by tilec_diff.

    python3 bench/corpus/run_triton_suite.py CORPUS --tilec TILEC --out OUT [--precheck] [--only topk]

CORPUS holds the public code, outside this repository:
  CORPUS/triton/python/triton_kernels   the triton_kernels package of triton-lang/triton (its
                                        topk_details, swiglu_details, compaction_details,
                                        numerics_details/mxfp_details and routing_details files)
  CORPUS/tritonbench                    a checkout of pytorch-labs/tritonbench
The kernels are launched here on small random inputs with the arguments their host code passes
(triton_kernels' host wrappers need its Tensor and layout classes, so this file calls the kernels
the way they do); tritonbench's GEMM helpers (partition-K, grouped GEMM) are called as they are.
Each op checks what tilec gained for these suites: tl.bitonic_merge / tl.dtype(name) /
tl.reduce_or / tl.softmax(dim, keep_dims) (top-k), tl.target_info and inline PTX (SwiGLU),
tl.core.sub and {dtype=} f-strings (MXFP downcast), sorts and keyed scans (routing), int64
addresses cast to typed pointers (grouped GEMM), a scalar indexed [None, None, :] (partition-K).
"""
import functools
import importlib.util
import os
import sys

import harness

DEV = harness.setup(__doc__.splitlines()[0])
ROOT = os.path.abspath(harness.args.project)
sys.path.insert(0, os.path.join(ROOT, "triton", "python", "triton_kernels"))

import torch  # noqa: E402
import triton  # noqa: E402

torch.manual_seed(0)
if harness.args.precheck and not hasattr(torch, "compile"):
    # The pre-check's CPU torch is older: partition_k.py wraps its torch reduction at import.
    torch.compile = lambda fn=None, **kwargs: fn if fn is not None else (lambda f: f)
HAS_FP8 = isinstance(getattr(torch, "float8_e4m3fn", None), torch.dtype)


def load(path, name):
    """A module of the corpus by its file path (tritonbench's packages import the whole suite)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def topk(dtype, rows, n_expts, k, softmax):
    from triton_kernels.topk_details._topk_forward import _topk_forward
    block_m, block_n = 32, 32
    pad = triton.next_power_of_2(max(n_expts, block_n))
    x = torch.randn(rows, n_expts, device=DEV, dtype=dtype)
    yv = torch.empty(rows, k, device=DEV, dtype=dtype)
    yi = torch.empty(rows, k, device=DEV, dtype=torch.int16)
    bits = torch.empty(rows, pad // 32, device=DEV, dtype=torch.int32)
    s = torch.ones(1024, device=DEV, dtype=torch.int32)
    _topk_forward[(triton.cdiv(rows, block_m),)](
        x, x.stride(0), yv, yi, yv.stride(0), False, bits, bits.stride(0), bits.stride(1), rows, None,
        n_expts, s, 1024, 1, softmax, BLOCK_M=block_m, N_EXPTS_PAD=pad, N_EXPTS_ACT=k, BLOCK_N=block_n)


def swiglu(dtype, rows, cols, limit):
    from triton_kernels.swiglu_details._swiglu import _swiglu
    a = torch.randn(rows, 2 * cols, device=DEV, dtype=dtype)
    out = torch.empty(rows, cols, device=DEV, dtype=dtype)
    block_m, block_n = 32, 64
    m_blocks, n_blocks = triton.cdiv(rows, block_m), triton.cdiv(cols, block_n)
    _swiglu[(m_blocks * n_blocks,)](out, None, a, None, 1.702, rows, cols, a.stride(0), a.stride(1),
                                    out.stride(0), out.stride(1), limit, None, BLOCK_M=block_m,
                                    BLOCK_N=block_n, EVEN_N=cols % block_n == 0, M_BLOCKS=m_blocks,
                                    N_BLOCKS=n_blocks, num_warps=4)


def compaction(rows, k):
    from triton_kernels.compaction_details._masked_compaction import _masked_compaction
    yv = torch.randn(rows, k, device=DEV)
    yi = torch.randint(0, 128, (rows, k), device=DEV, dtype=torch.int32)
    mask = torch.randint(-2**31, 2**31 - 1, (rows, 4), device=DEV, dtype=torch.int32)
    ret_v, ret_i = torch.empty_like(yv), torch.empty_like(yi)
    _masked_compaction[(rows,)](yv, yi, mask, mask.stride(0), mask.stride(1), ret_v, ret_i, -1, K=k)


def downcast_mxfp(fmt, src_dtype, rows, cols, rounding):
    from triton_kernels.numerics_details.mxfp_details._downcast_to_mxfp import _downcast_to_mxfp
    src = torch.randn(rows, cols, device=DEV, dtype=src_dtype) * 8
    out_dtype = torch.uint8 if fmt == "mxfp4" else torch.float8_e4m3fn
    mx = torch.empty(rows, cols // 2 if fmt == "mxfp4" else cols, device=DEV, dtype=out_dtype)
    scale = torch.empty(rows, triton.cdiv(cols, 32), device=DEV, dtype=torch.uint8)
    _downcast_to_mxfp[(triton.cdiv(rows, 32), triton.cdiv(cols, 128))](
        mx, mx.stride(0), 1, scale, scale.stride(0), 1, src, src.stride(0), 1, rows, cols, 32, 128, rounding)


def routing_indx(tokens, n_act, n_expts):
    from triton_kernels.routing_details._routing_compute import _routing_compute_indx
    expt = torch.stack([torch.randperm(n_expts, device=DEV)[:n_act] for _ in range(tokens)]).to(torch.int16)
    scal = torch.randn(tokens, n_act, device=DEV, dtype=torch.bfloat16)
    hist = torch.bincount(expt.flatten().long(), minlength=n_expts).to(torch.int32)
    starts = (torch.cumsum(hist, 0) - hist).to(torch.int32)
    partial = torch.zeros(1, n_expts, device=DEV, dtype=torch.int32)
    gather = torch.empty(tokens * n_act, device=DEV, dtype=torch.int32)
    scatter, gate = torch.empty_like(gather), torch.empty(tokens * n_act, device=DEV, dtype=torch.bfloat16)
    _routing_compute_indx[(1,)](0, gather, scatter, gate, scal, expt, partial, partial.stride(0),
                                partial.stride(1), starts, tokens, None, BLOCK_M=tokens, N_EXPTS_ACT=n_act)


def partition_k(dtype, m, n, k):
    mod = load("tritonbench/tritonbench/operators/gemm/partition_k.py", "tritonbench_partition_k")
    a = torch.randn(m, k, device=DEV, dtype=dtype)
    b = torch.randn(k, n, device=DEV, dtype=dtype)
    mod.matmul_partition_k(a, b, triton_reduce=True)


def grouped_gemm(dtype, sizes):
    mod = load("tritonbench/tritonbench/operators/grouped_gemm/kernels.py", "tritonbench_grouped_gemm")
    group_a = [torch.randn(m, k, device=DEV, dtype=dtype) for m, n, k in sizes]
    group_b = [torch.randn(k, n, device=DEV, dtype=dtype) for m, n, k in sizes]
    mod.triton_group_gemm_fn(group_a, group_b)


OPS = (
    [(f"topk/{dt}/{r}x{e}/k{k}/softmax{s}", functools.partial(topk, dt, r, e, k, s))
     for dt in (torch.float32, torch.bfloat16) for r, e, k in ((64, 128, 4), (45, 64, 8)) for s in (True, False)]
    + [(f"swiglu/{dt}/{r}x{c}/limit{lim}", functools.partial(swiglu, dt, r, c, lim))
       for dt in (torch.float32, torch.bfloat16) for r, c in ((64, 128), (45, 96)) for lim in (None, 7.0)]
    + [(f"masked_compaction/{r}x{k}", functools.partial(compaction, r, k)) for r, k in ((16, 4), (9, 8))]
    + [(f"downcast_mxfp/{f}/{dt}/{r}x{c}/round{rd}", functools.partial(downcast_mxfp, f, dt, r, c, rd))
       for f in ("mxfp4", "mxfp8") for dt in (torch.float32, torch.bfloat16) for r, c in ((64, 256), (45, 192))
       for rd in (0, 1)]
    + [(f"routing_indx/{t}x{a}/{e}", functools.partial(routing_indx, t, a, e)) for t, a, e in ((32, 4, 8), (64, 2, 16))]
    + [(f"partition_k/{dt}/{m}x{n}x{k}", functools.partial(partition_k, dt, m, n, k))
       for dt in (torch.float16,) for m, n, k in ((128, 128, 1024), (64, 256, 2048))]
    # The kernel loads and stores whole tiles without masks (its comments say it assumes full
    # tiles; its autotune configs go up to 128 x 128): every M and N a multiple of 128.
    + [(f"grouped_gemm/{dt}", functools.partial(grouped_gemm, dt, ((128, 128, 64), (256, 128, 128), (128, 256, 64))))
       for dt in (torch.float16,)]
)

if __name__ == "__main__":
    gpu_only = {} if HAS_FP8 else {"downcast_mxfp/mxfp8": "this torch has no float8 dtypes"}
    harness.run_ops(OPS, gpu_only=gpu_only)
    harness.finish()
