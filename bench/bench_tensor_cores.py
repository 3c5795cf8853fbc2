#!/usr/bin/env python3
"""tl.dot on the tensor cores: tilec against Triton, same .tl source, same constexprs, num_warps and
num_stages, in one process (TFLOP/s, and the ratio).

Two steps, on two machines (as bench.py):
  bench_tensor_cores.py --compile path/to/tilec --ptx-dir DIR [--arch sm_80]
      compiles every configuration with tilec into DIR (the machine with the compiler);
  bench_tensor_cores.py --ptx-dir DIR
      on the GPU machine: checks each tilec kernel against Triton and an fp32 PyTorch reference,
      then times both with triton.testing.do_bench_cudagraph (median) and prints the table.

Rows: bench/kernels/matmul.tl (the tutorial's GEMM) in fp16 and bf16, M=N=K 512..8192 and LLM
shapes M = 16/64/128 with N = K = 4096/8192, over the tutorial's configs; the same shapes in fp8
(sm_90a), tf32 and int8 (b stored N x K and K x N); the seeds' flash attention
(samples/flash_attention.tl) at B4 H16 L 1024..16384, D 64 and 128.
"""

import argparse
import itertools
import json
import os
import re
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, "bench"))

GEMM_SOURCE = "bench/kernels/matmul.tl"
TMA_SOURCE = "bench/kernels/matmul_tma.tl"
FLASH_SOURCE = "samples/flash_attention.tl"
# (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, num_stages): the tutorial's CUDA configs.
GEMM_CONFIGS = [(128, 256, 64, 8, 8, 3), (64, 256, 32, 8, 4, 4), (128, 128, 32, 8, 4, 4),
                (128, 64, 32, 8, 4, 4), (64, 128, 32, 8, 4, 4), (128, 32, 32, 8, 4, 4),
                (64, 32, 32, 8, 2, 5), (32, 64, 32, 8, 2, 5)]
# 64-row tiles on 8 warps: on sm_90a Triton's wgmma grid puts the two warpgroups side by side
# along N (each n = BLOCK_N / 2); a common autotune config (--quick runs the first one too).
GEMM_WARPS_ALONG_N_CONFIGS = [(64, 128, 64, 8, 8, 3), (64, 256, 64, 8, 8, 3)]
SQUARE = [512, 1024, 2048, 4096, 8192]
LLM = [(m, nk, nk) for m in (16, 64, 128) for nk in (4096, 8192)]
# (BLOCK_M, BLOCK_N, num_warps, num_stages) for flash attention; BLOCK_K is the head dimension.
# 64 x 64 on 8 warps: on sm_90a the first product on warps 8 x 1 (the second warpgroup computing
# copies), the second on 4 x 2, as Triton's grids.
FLASH_CONFIGS = [(128, 64, 8, 3), (64, 64, 4, 3), (64, 64, 8, 3)]
FLASH_LENGTHS = [1024, 4096, 16384]
SHORT = {"float16": "fp16", "bfloat16": "bf16"}
# fp8 (e4m3) GEMMs, the tutorial's fp8 configs for Hopper: a is M x K, b is stored N x K (wgmma
# reads fp8 tiles along K only, Triton's tutorial transposes b likewise), c is fp16. sm_90a only.
FP8_CONFIGS = [(128, 256, 128, 8, 8, 3), (128, 128, 128, 8, 4, 4), (64, 128, 128, 8, 8, 3)]
# tf32 (fp32 inputs, the default input_precision) and int8 GEMMs, with b stored N x K ("nk":
# contiguous along K, a linear layer's weight) and K x N ("kn"). The tutorial's 128x256x64 config
# needs more shared memory in fp32 than an SM has, so these are configs that fit (Triton's too).
TF32_CONFIGS = [(128, 128, 32, 8, 4, 3), (128, 256, 32, 8, 8, 3), (64, 256, 32, 8, 4, 3)]
INT8_CONFIGS = [(128, 128, 64, 8, 4, 3), (128, 256, 64, 8, 8, 3), (128, 256, 128, 8, 8, 3)]
# The tutorial's configs of four warps or more (wgmma), for the GEMM with tensor descriptors (TMA
# on sm_90a); and a shape no block divides (but 16 does: the signature's promise), where TMA
# fills the edges with zeros.
TMA_CONFIGS = [c for c in GEMM_CONFIGS if c[4] >= 4]
TMA_EDGE_SHAPE = (1008, 1008, 1008)
WIDE_KINDS = {"tf32": ("fp32", "fp32", "matmul_kernel", TF32_CONFIGS),
              "i8": ("i8", "i32", "matmul_int8_kernel", INT8_CONFIGS)}


def config_tag(config):
    """BMxBNxBK_wWARPS_sSTAGES, the part of an entry's name its config gives."""
    bm, bn, bk, group, warps, stages = config
    return f"{bm}x{bn}x{bk}_w{warps}_s{stages}"


def gemm_name(dtype, config):
    return f"gemm_{SHORT[dtype]}_{config_tag(config)}"


def gemm_signature(dtype, config):
    bm, bn, bk, group, _, _ = config
    t = SHORT[dtype]
    # As Triton's JIT specialises: sizes and leading dimensions divisible by 16, unit strides 1.
    return (f"*{t}:16,*{t}:16,*{t}:16,i32:16,i32:16,i32:16,i32:16,1,i32:16,1,i32:16,1,"
            f"{bm},{bn},{bk},{group}")


def fp8_name(config):
    return f"gemm_fp8e4_{config_tag(config)}"


def fp8_signature(config):
    bm, bn, bk, group, _, _ = config
    return (f"*fp8e4nv:16,*fp8e4nv:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,1,1,i32:16,i32:16,1,"
            f"{bm},{bn},{bk},{group}")


def tma_name(dtype, config):
    return f"gemm_tma_{SHORT[dtype]}_{config_tag(config)}"


def tma_signature(dtype, config):
    bm, bn, bk, group, _, _ = config
    t = SHORT[dtype]
    # a: M x K, b: N x K, c: M x N, each a TensorDescriptor of its block; sizes divisible by 16.
    return (f"tensordesc<{t}[{bm}, {bk}]>,tensordesc<{t}[{bn}, {bk}]>,tensordesc<{t}[{bm}, {bn}]>,"
            f"i32:16,i32:16,i32:16,{bm},{bn},{bk},{group}")


def device_tma_name(dtype, config):
    return f"gemm_dtma_{SHORT[dtype]}_{config_tag(config)}"


def device_tma_signature(dtype, config):
    bm, bn, bk, group, _, _ = config
    t = SHORT[dtype]
    # Plain pointers: matmul_device_tma_kernel makes the descriptors itself.
    return f"*{t}:16,*{t}:16,*{t}:16,i32:16,i32:16,i32:16,{bm},{bn},{bk},{group}"


def wide_name(kind, b_layout, config):
    return f"gemm_{kind}_{b_layout}_{config_tag(config)}"


def wide_signature(kind, b_layout, config):
    bm, bn, bk, group, _, _ = config
    t, c, _, _ = WIDE_KINDS[kind]
    b_strides = "1,i32:16" if b_layout == "nk" else "i32:16,1"
    return (f"*{t}:16,*{t}:16,*{c}:16,i32:16,i32:16,i32:16,i32:16,1,{b_strides},i32:16,1,"
            f"{bm},{bn},{bk},{group}")


def wide_entries():
    for kind, (_, _, kernel, configs) in WIDE_KINDS.items():
        for b_layout, config in itertools.product(("nk", "kn"), configs):
            yield (wide_name(kind, b_layout, config), GEMM_SOURCE, kernel,
                   wide_signature(kind, b_layout, config), config[4], config[5])


def flash_name(d, config):
    bm, bn, warps, stages = config
    return f"flash_d{d}_{bm}x{bn}_w{warps}_s{stages}"


def flash_signature(d, config):
    bm, bn, _, _ = config
    strides = "i32:16,i32:16,i32:16,1"
    return ("*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16," + ",".join([strides] * 4) +
            ",i32:16,i32:16,1,i32,i32:16,i32:16,i32:16,i32:16,fp32," + f"{bm},{bn},{d}")


def entries():
    for dtype, config in itertools.product(SHORT, GEMM_CONFIGS + GEMM_WARPS_ALONG_N_CONFIGS):
        yield gemm_name(dtype, config), GEMM_SOURCE, "matmul_kernel", gemm_signature(dtype, config), config[4], config[5]
    for d, config in itertools.product((64, 128), FLASH_CONFIGS):
        yield flash_name(d, config), FLASH_SOURCE, "flash_attention_kernel", flash_signature(d, config), config[2], config[3]


def compile_all(tilec, ptx_dir, arch):
    os.makedirs(ptx_dir, exist_ok=True)
    failed = 0
    fp8 = [] if arch != "sm_90a" else [
        (fp8_name(c), GEMM_SOURCE, "matmul_kernel", fp8_signature(c), c[4], c[5])
        for c in FP8_CONFIGS]
    tma = [] if arch != "sm_90a" else [
        (tma_name(dtype, c), TMA_SOURCE, "matmul_tma_kernel", tma_signature(dtype, c), c[4], c[5])
        for dtype, c in itertools.product(SHORT, TMA_CONFIGS)]
    tma += [] if arch != "sm_90a" else [
        (device_tma_name(dtype, c), TMA_SOURCE, "matmul_device_tma_kernel",
         device_tma_signature(dtype, c), c[4], c[5])
        for dtype, c in itertools.product(SHORT, TMA_CONFIGS)]
    for name, source, kernel, signature, warps, stages in (list(entries()) + fp8 + tma +
                                                           list(wide_entries())):
        command = [os.path.abspath(tilec), source, "-k", kernel, "-s", signature, "--num-warps",
                   str(warps), "--num-stages", str(stages), "--arch", arch,
                   "-o", os.path.join(os.path.abspath(ptx_dir), name + ".ptx")]
        if subprocess.call(command, cwd=REPO_ROOT) != 0:
            print(f"bench_tensor_cores.py: tilec failed on {name}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def gemm_mismatch(c_tilec, c_triton, ref, tolerance):
    """None when tilec's product is within tolerance * max|ref| of the reference `ref` (compared in
    ref's dtype), else the row's message, with Triton's error beside tilec's."""
    scale = ref.abs().max().item()
    err_t = (c_tilec.to(ref.dtype) - ref).abs().max().item()
    err_r = (c_triton.to(ref.dtype) - ref).abs().max().item()
    if not err_t <= tolerance * scale:
        return f"MISMATCH max err {err_t:g} (Triton {err_r:g}, scale {scale:g})"
    return None


def run(ptx_dir, quick, only):
    import torch
    import triton
    import bench

    bench.torch = torch
    bench.triton = triton
    import cupy
    import numpy
    bench.cupy, bench.numpy = cupy, numpy
    print(f"GPU {torch.cuda.get_device_name()}, Triton {triton.__version__}, "
          f"PyTorch {torch.__version__}", flush=True)

    def timed(fn):
        return triton.testing.do_bench_cudagraph(fn, rep=50 if quick else 100, return_mode="median")

    def kernel_pair(name, source, kernel_name):
        tilec = bench.TilecKernel(os.path.join(ptx_dir, name + ".ptx"),
                                  os.path.join(ptx_dir, name + ".json"), kernel_name)
        return tilec, bench.triton_kernel(source, kernel_name)

    rows = []

    def row(kind, name, shape, flops, tilec_fn, triton_fn, check):
        try:
            error = check()
        except Exception as exc:  # a failed launch is a failed row, not a failed table
            error = f"{type(exc).__name__}: {exc}"
        t_ms = timed(tilec_fn)
        r_ms = timed(triton_fn)
        tf_t, tf_r = flops / t_ms * 1e-9, flops / r_ms * 1e-9
        rows.append((kind, name, shape, tf_t, tf_r, tf_t / tf_r, error or "ok"))
        print(f"{kind:5} {name:34} {shape:20} tilec {tf_t:7.1f} TFLOP/s  triton {tf_r:7.1f}  "
              f"ratio {tf_t / tf_r:5.3f}  {error or 'ok'}", flush=True)

    # GEMMs
    shapes = [(s, s, s) for s in SQUARE] + LLM
    if quick:
        shapes = [(4096, 4096, 4096), (16, 4096, 4096)]
    configs = GEMM_CONFIGS + GEMM_WARPS_ALONG_N_CONFIGS
    if quick:
        configs = GEMM_CONFIGS[:1] + GEMM_WARPS_ALONG_N_CONFIGS[:1]
    for dtype, config in itertools.product(SHORT, configs):
        name = gemm_name(dtype, config)
        if only and not re.search(only, name):
            continue
        tilec, tri = kernel_pair(name, GEMM_SOURCE, "matmul_kernel")
        bm, bn, bk, group, warps, stages = config
        for m, n, k in shapes:
            torch_dtype = getattr(torch, dtype)
            a = torch.randn(m, k, device="cuda").to(torch_dtype)
            b = torch.randn(k, n, device="cuda").to(torch_dtype)
            c_tilec = torch.empty(m, n, device="cuda", dtype=torch_dtype)
            c_triton = torch.empty_like(c_tilec)
            grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
            launch = tilec.launcher([a, b, c_tilec, m, n, k, k, n, n], grid)

            def tri_launch(c=c_triton):
                tri[grid](a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                          GROUP_M=group, num_warps=warps, num_stages=stages)

            def check():
                c_tilec.fill_(float("nan"))
                launch()
                tri_launch()
                torch.cuda.synchronize()
                return gemm_mismatch(c_tilec, c_triton, a.float() @ b.float(),
                                     1e-2 if dtype == "float16" else 3e-2)

            row("gemm", name, f"{m}x{n}x{k}", 2.0 * m * n * k, launch, tri_launch, check)
            del a, b, c_tilec, c_triton
    # fp8 GEMMs, where compiled (sm_90a).
    for config in FP8_CONFIGS:
        name = fp8_name(config)
        if (only and not re.search(only, name)) or \
                not os.path.exists(os.path.join(ptx_dir, name + ".ptx")):
            continue
        tilec, tri = kernel_pair(name, GEMM_SOURCE, "matmul_kernel")
        bm, bn, bk, group, warps, stages = config
        for m, n, k in shapes:
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()  # K x N, K-major
            c_tilec = torch.empty(m, n, device="cuda", dtype=torch.float16)
            c_triton = torch.empty_like(c_tilec)
            grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
            launch = tilec.launcher([a, b, c_tilec, m, n, k, k, k, n], grid)

            def tri_launch(c=c_triton):
                tri[grid](a, b, c, m, n, k, k, 1, 1, k, n, 1, BLOCK_M=bm, BLOCK_N=bn,
                          BLOCK_K=bk, GROUP_M=group, num_warps=warps, num_stages=stages)

            def check():
                c_tilec.fill_(float("nan"))
                launch()
                tri_launch()
                torch.cuda.synchronize()
                return gemm_mismatch(c_tilec, c_triton, a.float() @ b.float(), 1e-2)

            row("gemm", name, f"{m}x{n}x{k}", 2.0 * m * n * k, launch, tri_launch, check)
            del a, b, c_tilec, c_triton
    # The GEMM with tensor descriptors (TMA on sm_90a), where compiled: descriptor arguments
    # (Triton gets TensorDescriptor objects, tilec their parameters: base, shape, strides,
    # padding flag), then descriptors made in the kernel from plain pointers (both compilers
    # write the TMA maps in global scratch: Triton's from the allocator set here, tilec's from
    # the launcher).
    from triton.tools.tensor_descriptor import TensorDescriptor
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))

    def descriptor_args(a, b, c, m, n, k, config):
        bm, bn, bk = config[:3]
        return ([a, m, k, k, 1, False, b, n, k, k, 1, False, c, m, n, n, 1, False, m, n, k],
                [TensorDescriptor(a, [m, k], [k, 1], [bm, bk]),
                 TensorDescriptor(b, [n, k], [k, 1], [bn, bk]),
                 TensorDescriptor(c, [m, n], [n, 1], [bm, bn]), m, n, k])

    def pointer_args(a, b, c, m, n, k, config):
        return [a, b, c, m, n, k], [a, b, c, m, n, k]

    for name_of, kernel_name, args_of in ((tma_name, "matmul_tma_kernel", descriptor_args),
                                          (device_tma_name, "matmul_device_tma_kernel",
                                           pointer_args)):
        for dtype, config in itertools.product(SHORT, TMA_CONFIGS):
            name = name_of(dtype, config)
            if (only and not re.search(only, name)) or \
                    not os.path.exists(os.path.join(ptx_dir, name + ".ptx")):
                continue
            tilec, tri = kernel_pair(name, TMA_SOURCE, kernel_name)
            bm, bn, bk, group, warps, stages = config
            for m, n, k in shapes + ([TMA_EDGE_SHAPE] if not quick else []):
                torch_dtype = getattr(torch, dtype)
                a = torch.randn(m, k, device="cuda").to(torch_dtype)
                b = torch.randn(n, k, device="cuda").to(torch_dtype)  # N x K
                c_tilec = torch.empty(m, n, device="cuda", dtype=torch_dtype)
                c_triton = torch.empty_like(c_tilec)
                grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
                launch = tilec.launcher(args_of(a, b, c_tilec, m, n, k, config)[0], grid)
                triton_args = args_of(a, b, c_triton, m, n, k, config)[1]

                def tri_launch(triton_args=triton_args):
                    tri[grid](*triton_args, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group,
                              num_warps=warps, num_stages=stages)

                def check(a=a, b=b, c_tilec=c_tilec, c_triton=c_triton, launch=launch,
                          tri_launch=tri_launch):
                    c_tilec.fill_(float("nan"))
                    launch()
                    tri_launch()
                    torch.cuda.synchronize()
                    return gemm_mismatch(c_tilec, c_triton, a.float() @ b.float().t(),
                                         1e-2 if dtype == "float16" else 3e-2)

                row("gemm", name, f"{m}x{n}x{k}", 2.0 * m * n * k, launch, tri_launch, check)
                del a, b, c_tilec, c_triton
    # tf32 and int8 GEMMs, b stored N x K or K x N. int8 results must be equal; tf32 ones within
    # the rounding of the inputs to tf32.
    for kind, (_, _, kernel, configs) in WIDE_KINDS.items():
        for b_layout, config in itertools.product(("nk", "kn"), configs):
            name = wide_name(kind, b_layout, config)
            if only and not re.search(only, name):
                continue
            tilec, tri = kernel_pair(name, GEMM_SOURCE, kernel)
            bm, bn, bk, group, warps, stages = config
            for m, n, k in shapes:
                if kind == "tf32":
                    a = torch.randn(m, k, device="cuda")
                    b = torch.randn(n, k, device="cuda")
                    c_tilec = torch.empty(m, n, device="cuda")
                else:
                    a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
                    b = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8)
                    c_tilec = torch.empty(m, n, device="cuda", dtype=torch.int32)
                b = b.t() if b_layout == "nk" else b.t().contiguous()  # K x N either way
                c_triton = torch.empty_like(c_tilec)
                grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
                ldb = b.stride(1) if b_layout == "nk" else b.stride(0)
                launch = tilec.launcher([a, b, c_tilec, m, n, k, k, ldb, n], grid)

                def tri_launch(c=c_triton, b=b):
                    tri[grid](a, b, c, m, n, k, k, 1, b.stride(0), b.stride(1), n, 1, BLOCK_M=bm,
                              BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group, num_warps=warps,
                              num_stages=stages)

                def check(a=a, b=b, c_tilec=c_tilec, c_triton=c_triton, launch=launch,
                          tri_launch=tri_launch):
                    c_tilec.fill_(-1)
                    launch()
                    tri_launch()
                    torch.cuda.synchronize()
                    ref = a.double() @ b.double()
                    if kind == "i8":
                        if not torch.equal(c_tilec.double(), ref):
                            return "MISMATCH (int8: not exact)"
                        return None
                    return gemm_mismatch(c_tilec, c_triton, ref, 1e-2)

                row("gemm", name, f"{m}x{n}x{k}", 2.0 * m * n * k, launch, tri_launch, check)
                del a, b, c_tilec, c_triton
    # Flash attention (non-causal): 4 * B * H * L * L * D flops.
    for d, config in itertools.product((64, 128), FLASH_CONFIGS):
        name = flash_name(d, config)
        if only and not re.search(only, name):
            continue
        tilec, tri = kernel_pair(name, FLASH_SOURCE, "flash_attention_kernel")
        bm, bn, warps, stages = config
        for length in (FLASH_LENGTHS if not quick else [4096]):
            batch, heads = 4, 16
            q, k, v = (torch.randn(batch, heads, length, d, device="cuda", dtype=torch.float16)
                       for _ in range(3))
            out_t, out_r = torch.empty_like(q), torch.empty_like(q)
            lse_t = torch.empty(batch, heads, length, device="cuda")
            lse_r = torch.empty_like(lse_t)
            scale = d ** -0.5
            grid = (triton.cdiv(length, bm), heads, batch)

            def args(out, lse):
                return ([q, k, v, out, lse] + list(q.stride()) + list(k.stride()) + list(v.stride())
                        + list(out.stride()) + list(lse.stride()) + [batch, heads, length, length, d,
                                                                     scale])

            # tilec's signature binds the unit strides to 1: they are not run-time arguments.
            tilec_args = [q, k, v, out_t, lse_t]
            for t in (q, k, v, out_t):
                tilec_args += list(t.stride()[:3])
            tilec_args += list(lse_t.stride()[:2]) + [batch, heads, length, length, d, scale]
            launch = tilec.launcher(tilec_args, grid)

            def tri_launch():
                tri[grid](*args(out_r, lse_r), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=d, num_warps=warps,
                          num_stages=stages)

            def check():
                out_t.fill_(float("nan"))
                launch()
                tri_launch()
                torch.cuda.synchronize()
                err = (out_t.float() - out_r.float()).abs().max().item()
                if not err <= 1e-2:
                    return f"MISMATCH vs Triton: max err {err:g}"
                return None

            row("flash", name, f"B4H16L{length}D{d}", 4.0 * batch * heads * length * length * d,
                launch, tri_launch, check)
            del q, k, v, out_t, out_r, lse_t, lse_r
    print()
    print("| kind | config | shape | tilec TFLOP/s | Triton TFLOP/s | tilec/Triton | check |")
    print("|---|---|---|---|---|---|---|")
    for kind, name, shape, t, r, ratio, status in rows:
        print(f"| {kind} | {name} | {shape} | {t:.1f} | {r:.1f} | {ratio:.3f} | {status} |")
    bad = [r for r in rows if r[6] != "ok"]
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compile", metavar="TILEC", help="compile the kernels with this tilec")
    parser.add_argument("--ptx-dir", required=True)
    parser.add_argument("--arch", default="sm_80", help="tilec's --arch (default sm_80: mma.sync)")
    parser.add_argument("--quick", action="store_true", help="a few rows only")
    parser.add_argument("--only", metavar="REGEX", help="only the configurations whose name matches")
    parser.add_argument("--flash-configs", metavar="LIST",
                        help="flash attention configs instead of the default ones, e.g. "
                             "128x64w8s3,64x64w4s3 (BLOCK_M x BLOCK_N, num_warps, num_stages)")
    parser.add_argument("--flash-lengths", metavar="LIST",
                        help="sequence lengths instead of 1024,4096,16384, e.g. 16384")
    parser.add_argument("--gemm-shapes", metavar="LIST",
                        help="GEMM shapes instead of the default ones, e.g. 1024,4096,128x4096x4096 "
                             "(N for N x N x N, or M x N x K)")
    options = parser.parse_args()
    global FLASH_CONFIGS, FLASH_LENGTHS, SQUARE, LLM
    if options.gemm_shapes:
        SQUARE, LLM = [], []
        for item in options.gemm_shapes.split(","):
            match = re.fullmatch(r"(\d+)(?:x(\d+)x(\d+))?", item.strip())
            if not match:
                parser.error(f"--gemm-shapes: '{item}' is neither N nor MxNxK")
            if match.group(2):
                LLM.append(tuple(int(g) for g in match.groups()))
            else:
                SQUARE.append(int(match.group(1)))
    if options.flash_configs:
        FLASH_CONFIGS = []
        for item in options.flash_configs.split(","):
            match = re.fullmatch(r"(\d+)x(\d+)w(\d+)s(\d+)", item.strip())
            if not match:
                parser.error(f"--flash-configs: '{item}' is not BMxBNwWsS")
            FLASH_CONFIGS.append(tuple(int(g) for g in match.groups()))
    if options.flash_lengths:
        FLASH_LENGTHS = [int(length) for length in options.flash_lengths.split(",")]
    if options.compile:
        return compile_all(options.compile, options.ptx_dir, options.arch)
    return run(options.ptx_dir, options.quick, options.only)


if __name__ == "__main__":
    sys.exit(main())
