#!/usr/bin/env python3
"""Runs tilec's PTX of the samples on the GPU and compares each output with Triton's, from the same
.tl source and the same inputs.

Two steps, on two machines:
  check_samples.py --compile path/to/tilec --ptx-dir DIR    (the machine with the compiler)
      writes DIR/<ptx>.ptx and DIR/<ptx>.json for every entry of SAMPLES;
  check_samples.py --ptx-dir DIR                            (the GPU machine: CuPy, PyTorch, Triton)
      launches every kernel with tilec's PTX (bench.py's TilecKernel: CuPy, block and shared memory
      from the metadata) and with Triton (the .tl file imported as a module, the constexprs and
      num_warps of tilec's metadata), on identical inputs, and compares the outputs: exactly for
      integer and elementwise kernels, within each entry's atol/rtol for reductions and dots.
Prints one line per kernel; exit status 1 if any kernel failed or differed.

Adding a sample is adding one Sample entry to SAMPLES.
"""

import argparse
import os
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Sequence

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "bench"))
import bench  # noqa: E402  (TilecKernel, triton_launcher, compare, compile_with_tilec)

torch = None  # imported in main(), so that --compile and --list need no GPU stack


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def randn(shape, dtype="float32"):
    return torch.randn(shape, device="cuda", dtype=getattr(torch, dtype))


def empty(shape, dtype="float32"):
    return torch.empty(shape, device="cuda", dtype=getattr(torch, dtype))


@dataclass
class Sample:
    """One kernel to check, at one size. The field names are bench.Bench's, so that bench.py's
    helpers (compile_with_tilec, fresh_outputs, triton_launcher) take a Sample as they take a
    Bench."""

    name: str
    source: str  # .tl file, relative to the repository root
    kernel: str
    ptx: str  # DIR/<ptx>.ptx and DIR/<ptx>.json
    signature: str
    size: int
    inputs: Callable[[int], Dict[str, Any]]  # size -> tensors, outputs included
    outputs: Sequence[str]
    args: Callable[[Dict[str, Any], int], List[Any]]  # run-time arguments in parameter order
    grid: Callable[[Dict[str, Any], int], tuple]  # (constexprs, size) -> grid
    tilec_flags: Sequence[str] = ()
    constexprs: Dict[str, Any] = field(default_factory=dict)  # for Triton without metadata
    num_warps: int = 4
    atol: float = 0.0  # 0, 0: bit-exact
    rtol: float = 0.0


def transpose_sample(name, source, dtype, block, size=1008, num_warps=4):
    """The seed's transposes: x is M x N (size x size + 16), y is N x M; unit strides bound."""
    short = {"float16": "fp16", "float32": "fp32"}[dtype]
    return Sample(
        name=name, source=source, kernel="transpose_kernel", ptx=name,
        signature=f"*{short}:16,*{short}:16,i32:16,i32:16,i32:16,1,i32:16,1,{block},{block}",
        tilec_flags=("--num-warps", str(num_warps)),
        size=size,
        inputs=lambda n: {"x": randn((n, n + 16), dtype), "y": empty((n + 16, n), dtype)},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], n, n + 16, n + 16, n],
        grid=lambda meta, n: (cdiv(n, meta["bm"]), cdiv(n + 16, meta["bn"])),
        num_warps=num_warps)


SAMPLES: List[Sample] = [
    Sample(
        name="vector_add", source="samples/vector_add.tl", kernel="add_kernel", ptx="vector_add",
        signature="*fp32:16,*fp32:16,*fp32:16,i32,1024", size=98432 + 13,
        inputs=lambda n: {"x": randn(n), "y": randn(n), "output": empty(n)},
        outputs=["output"],
        args=lambda t, n: [t["x"], t["y"], t["output"], n],
        grid=lambda meta, n: (cdiv(n, meta["BLOCK_SIZE"]),)),
    Sample(
        name="copy", source="samples/copy.tl", kernel="copy_k", ptx="copy",
        signature="*fp32:16,*fp32:16,i32,1024", size=10**6 + 7,
        inputs=lambda n: {"x": randn(n), "z": empty(n)},
        outputs=["z"],
        args=lambda t, n: [t["x"], t["z"], n],
        grid=lambda meta, n: (cdiv(n, meta["bs"]),)),
    Sample(
        name="matrix_add", source="samples/matrix_add.tl", kernel="matrix_add_kernel",
        ptx="matrix_add", signature="*fp32:16,*fp32:16,*fp32:16,i32,i32:16,32,128", size=1008,
        inputs=lambda n: {"a": randn(n * n), "b": randn(n * n), "c": empty(n * n)},
        outputs=["c"],
        args=lambda t, n: [t["a"], t["b"], t["c"], n, n],
        grid=lambda meta, n: (cdiv(n, meta["bs0"]), cdiv(n, meta["bs1"]))),
    Sample(
        name="rgb2grey", source="samples/rgb2grey.tl", kernel="rgb2grey_k", ptx="rgb2grey",
        signature="*u8:16,*u8:16,i32,i32:16,32,128", size=1008,
        inputs=lambda n: {
            "x": torch.randint(0, 256, (3 * n * n,), device="cuda", dtype=torch.uint8),
            "out": torch.empty(n * n, device="cuda", dtype=torch.uint8)},
        outputs=["out"],
        args=lambda t, n: [t["x"], t["out"], n, n],
        grid=lambda meta, n: (cdiv(n, meta["bs0"]), cdiv(n, meta["bs1"])),
        atol=1.0),  # fma contraction may move a pixel across an integer boundary
    Sample(
        name="softmax", source="samples/softmax.tl", kernel="softmax_kernel", ptx="softmax",
        signature="*fp32:16,*fp32:16,i32:16,i32:16,i32,4096", tilec_flags=("--num-warps", "8"),
        size=2500,
        inputs=lambda n: {"x": randn(512 * 2512), "y": empty(512 * 2512)},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], 2512, 2512, n],
        grid=lambda meta, n: (512,), num_warps=8, atol=1e-7, rtol=1e-5),
    Sample(
        name="softmax_online", source="samples/softmax.tl", kernel="softmax_kernel_large",
        ptx="softmax_online", signature="*fp32:16,*fp32:16,i32:16,i32:16,i32,1024", size=2500,
        inputs=lambda n: {"x": randn(512 * 2512), "y": empty(512 * 2512)},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], 2512, 2512, n],
        grid=lambda meta, n: (512,), atol=1e-7, rtol=1e-5),
    Sample(
        name="layernorm", source="samples/layernorm.tl", kernel="layernorm_kernel",
        ptx="layernorm",
        signature="*fp16:16,*fp16:16,*fp16:16,*fp16:16,None,None,i32:16,i32,fp32,4096",
        tilec_flags=("--num-warps", "8"), size=4000,
        inputs=lambda n: {"x": randn(512 * 4000, "float16"), "y": empty(512 * 4000, "float16"),
                          "w": randn(n, "float16"), "b": randn(n, "float16")},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], t["w"], t["b"], n, n, 1e-5],
        grid=lambda meta, n: (512,), num_warps=8, atol=1e-2, rtol=1e-2),
    Sample(
        name="layernorm_welford", source="samples/layernorm.tl",
        kernel="layernorm_kernel_welford", ptx="layernorm_welford",
        signature="*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16,i32,fp32,1024", size=4000,
        inputs=lambda n: {"x": randn(512 * 4000, "float16"), "y": empty(512 * 4000, "float16"),
                          "w": randn(n, "float16"), "b": randn(n, "float16")},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], t["w"], t["b"], n, n, 1e-5],
        grid=lambda meta, n: (512,), atol=1e-2, rtol=1e-2),
    # The seed's transposes: tl.trans, and the stride trick (load along dim 0, store along dim 1).
    transpose_sample("transpose_fp16", "samples/transpose.tl", "float16", 64),
    transpose_sample("transpose_fp32", "samples/transpose.tl", "float32", 64),
    transpose_sample("transpose_fp32_32", "samples/transpose.tl", "float32", 32),
    transpose_sample("transpose_strides_fp16", "samples/transpose_strides.tl", "float16", 64),
    transpose_sample("transpose_strides_fp32", "samples/transpose_strides.tl", "float32", 64),
    # tl.dot on the CUDA cores (FMA) against Triton's tensor cores: m = 500 exercises the masks.
    Sample(
        name="matmul_fp16", source="samples/matmul.tl", kernel="matmul_kernel", ptx="matmul_fp16",
        signature="*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,1,i32:16,1,i32:16,1,32,32,32",
        size=500,
        inputs=lambda m: {"a": randn((m, 512), "float16"), "b": randn((512, 512), "float16"),
                          "c": empty((m, 512), "float16")},
        outputs=["c"],
        args=lambda t, m: [t["a"], t["b"], t["c"], m, 512, 512, 512, 512, 512],
        grid=lambda meta, m: (cdiv(m, meta["bm"]), cdiv(512, meta["bn"])),
        atol=6e-2, rtol=1e-2),
]


def check(sample: Sample, ptx_dir: str, verbose: bool) -> bool:
    ptx = os.path.join(ptx_dir, sample.ptx + ".ptx")
    metadata = os.path.join(ptx_dir, sample.ptx + ".json")
    try:
        tilec = bench.TilecKernel(ptx, metadata, sample.kernel)
        # Triton compiles what tilec compiled: the metadata's constexprs and num_warps.
        constexprs, num_warps = tilec.constexprs, tilec.info["num_warps"]
        torch.manual_seed(0)
        tensors = sample.inputs(sample.size)
        ours = bench.fresh_outputs(sample, tensors)
        tilec.launcher(sample.args(ours, sample.size), sample.grid(constexprs, sample.size))()
        theirs = bench.fresh_outputs(sample, tensors)
        bench.triton_launcher(sample, constexprs, num_warps, theirs, sample.size)()
        torch.cuda.synchronize()
    except Exception as error:  # one line per kernel, whatever failed
        if verbose:
            traceback.print_exc()
        print(f"FAIL      {sample.name}: {type(error).__name__}: {error}", flush=True)
        return False
    problems, worst = [], 0.0
    for key in sample.outputs:
        problem = bench.compare(f"{key}", ours[key], theirs[key], sample.atol, sample.rtol)
        if problem:
            problems.append(problem)
        a, b = ours[key].double(), theirs[key].double()
        # Equal values (the same infinity, or padding neither kernel writes) differ by 0, not NaN.
        same = (a == b) | (a.isnan() & b.isnan())
        difference = (a - b).abs().masked_fill(same, 0).nan_to_num(nan=float("inf"))
        worst = max(worst, difference.max().item() if difference.numel() else 0.0)
    exact = "bit-exact" if sample.atol == 0 and sample.rtol == 0 else \
        f"atol {sample.atol:g} rtol {sample.rtol:g}"
    if problems:
        print(f"MISMATCH  {sample.name} ({exact}): {'; '.join(problems)}", flush=True)
        return False
    print(f"ok        {sample.name} ({exact}, max abs diff {worst:g})", flush=True)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ptx-dir", help="directory of <ptx>.ptx + <ptx>.json from tilec")
    parser.add_argument("--compile", metavar="TILEC",
                        help="compile every entry with this tilec into --ptx-dir and exit")
    parser.add_argument("--kernels", nargs="*", help="only these SAMPLES entries (by name)")
    parser.add_argument("--list", action="store_true", help="list the entries and exit")
    parser.add_argument("--verbose", action="store_true", help="print tracebacks of failures")
    args = parser.parse_args(argv)

    if args.list:
        for s in SAMPLES:
            print(f"{s.name}: {s.source}:{s.kernel} -s {s.signature} {' '.join(s.tilec_flags)}")
        return 0
    selected = [s for s in SAMPLES if not args.kernels or s.name in args.kernels]
    if args.kernels and len(selected) != len(set(args.kernels)):
        parser.error(f"unknown kernels; known: {', '.join(s.name for s in SAMPLES)}")
    if not args.ptx_dir:
        parser.error("--ptx-dir is required")
    if args.compile:
        return bench.compile_with_tilec(args.compile, selected, args.ptx_dir)

    global torch
    import cupy
    import numpy
    import torch as torch_module
    import triton  # noqa: F401  (bench.triton_launcher needs it imported)
    torch = torch_module
    bench.torch, bench.cupy, bench.numpy, bench.triton = torch, cupy, numpy, triton
    if not torch.cuda.is_available():
        print("check_samples.py: no CUDA device", file=sys.stderr)
        return 77
    print(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}, "
          f"triton {triton.__version__}, cupy {cupy.__version__}; PTX from "
          f"{os.path.abspath(args.ptx_dir)}", flush=True)
    failed = [s.name for s in selected if not check(s, args.ptx_dir, args.verbose)]
    print(f"check_samples.py: {len(selected) - len(failed)} of {len(selected)} kernels match "
          f"Triton" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
