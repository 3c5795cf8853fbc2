#!/usr/bin/env python3
"""Checks bench/tensormap.py: the arguments of cuTensorMapEncodeTiled that it computes from a
kernel's metadata and a launch's parameter values (the same cases as the C++ runtime's
runtime/tests/TensorMapTest.cpp), and the errors for descriptors TMA cannot describe. Standard
library only (CI has no numpy, torch or GPU): ctest `bench.tensormap`.

With --gpu it also encodes maps with the real driver (libcuda.so.1, a CUDA context made current
through ctypes): a valid one, and one the driver refuses; and where CuPy and torch import, it runs
the TMA kernels of tests/gpu/runtime_tma.ptx.in through bench.py's TilecKernel (maps built from
the arguments, launched with cupy.cuda.driver.launchKernel) and checks the boxes they load.
Exits 77 there without a GPU.
"""

import ctypes
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensormap  # noqa: E402

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print(f"FAILED: {what}")


def params_of(name, dtype, rank):
    return ([{"name": f"{name}.base", "type": "*" + dtype}]
            + [{"name": f"{name}.shape.{d}", "type": "i64"} for d in range(rank)]
            + [{"name": f"{name}.strides.{d}", "type": "i64"} for d in range(rank)]
            + [{"name": f"{name}.padding_nan", "type": "i1"}])


# `def k(x, a, b)` with -s "*fp32,tensordesc<fp16[64, 32]>,tensordesc<fp32[2, 8, 16]>".
KERNEL = {
    "name": "k",
    "params": [{"name": "x", "type": "*fp32"}] + params_of("a", "fp16", 2) + params_of("b", "fp32", 3),
    "tensor_descriptors": [
        {"name": "a", "dtype": "fp16", "block_shape": [64, 32], "first_param": 1},
        {"name": "b", "dtype": "fp32", "block_shape": [2, 8, 16], "first_param": 7}],
    "tensor_maps": [
        {"descriptor": 0, "box": [64, 32], "swizzle": 64, "element": "fp16", "fill": "zero"},
        {"descriptor": 1, "box": [1, 8, 16], "swizzle": 0, "element": "fp32", "fill": "nan"}],
}
# x, then a (100 x 72, row stride 80), then b (3 x 10 x 40, strides 512 and 48).
VALUES = [0x1000, 0x20000, 100, 72, 80, 1, False, 0x30000, 3, 10, 40, 512, 48, 1, True]


class Tensor:
    """Stands for a torch tensor: the base may be anything with data_ptr()."""

    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


def error_of(values, index):
    try:
        tensormap.encode_args(KERNEL, index, values)
    except ValueError as error:
        return str(error)
    return "(no error)"


def check_args():
    a = tensormap.encode_args(KERNEL, 0, VALUES)
    check(a.data_type == 6 and a.rank == 2 and a.address == 0x20000, f"a: {a}")
    check(a.dims == [72, 100] and a.strides == [160] and a.box == [32, 64], f"a dims: {a}")
    check(a.element_strides == [1, 1] and a.interleave == 0, f"a: {a}")
    check(a.swizzle == 2 and a.l2_promotion == 2 and a.fill == 0, f"a: {a}")
    b = tensormap.encode_args(KERNEL, 1, VALUES)
    check(b.data_type == 7 and b.rank == 3 and b.address == 0x30000, f"b: {b}")
    check(b.dims == [40, 10, 3] and b.strides == [192, 2048] and b.box == [16, 8, 1], f"b: {b}")
    check(b.swizzle == 0 and b.fill == 1, f"b: {b}")
    values = list(VALUES)
    values[1] = Tensor(0x40000)
    check(tensormap.encode_args(KERNEL, 0, values).address == 0x40000, "a base with data_ptr()")

    types = {"fp16": 6, "bf16": 9, "fp32": 7, "fp64": 8, "fp8e4nv": 0, "fp8e5": 0, "i8": 0,
             "u8": 0, "i16": 1, "u16": 1, "i32": 3, "u32": 2, "i64": 5, "u64": 4}
    for element, data_type in types.items():
        kernel = {"name": "k", "params": params_of("a", element, 1),
                  "tensor_descriptors": [{"name": "a", "block_shape": [128], "first_param": 0}],
                  "tensor_maps": [{"descriptor": 0, "box": [128], "swizzle": 0,
                                   "element": element, "fill": "zero"}]}
        args = tensormap.encode_args(kernel, 0, [0x10000, 1000, 1, False])
        check(args.data_type == data_type and args.dims == [1000] and args.strides == []
              and args.box == [128], f"{element}: {args}")

    # Without "fill" (what the compiler writes) the descriptor's padding_nan decides: NaN for
    # fp16, bf16, fp32 and fp64 when it is true, zero otherwise (integers and fp8 always zero).
    for element in types:
        kernel = {"name": "k", "params": params_of("a", element, 1),
                  "tensor_descriptors": [{"name": "a", "block_shape": [128], "first_param": 0}],
                  "tensor_maps": [{"descriptor": 0, "box": [128], "swizzle": 0, "element": element}]}
        nan = 1 if element in ("fp16", "bf16", "fp32", "fp64") else 0
        check(tensormap.encode_args(kernel, 0, [0x10000, 1000, 1, True]).fill == nan,
              f"{element} without fill, padding_nan true")
        check(tensormap.encode_args(kernel, 0, [0x10000, 1000, 1, False]).fill == 0,
              f"{element} without fill, padding_nan false")
        for fill, code in tensormap.FILLS.items():  # "fill" overrides the flag
            if fill == "nan" and not nan:
                continue
            kernel["tensor_maps"][0]["fill"] = fill
            for flag in (False, True):
                check(tensormap.encode_args(kernel, 0, [0x10000, 1000, 1, flag]).fill == code,
                      f"{element} with fill {fill}, padding_nan {flag}")


def check_errors():
    def with_value(index, value):
        values = list(VALUES)
        values[index] = value
        return values

    check(error_of(VALUES, 0) == "(no error)", "the good values")
    check(error_of(with_value(1, 0x20008), 0) ==
          "k: argument 1 (a.base: *fp16) is 0x20008; the kernel was compiled to load tensor "
          "descriptor a with TMA, which needs a 16-byte aligned base", "misaligned base")
    check(error_of(with_value(3, 0), 0) ==
          "k: argument 3 (a.shape.1: i64) is 0; the kernel was compiled to load tensor descriptor "
          "a with TMA, and a TMA-loaded descriptor cannot have an empty dimension (each must be at "
          "least 1)", "empty dimension")
    check("is -5;" in error_of(with_value(2, -5), 0), "negative dimension")
    check("at most 2^32 elements" in error_of(with_value(2, (1 << 32) + 1), 0), "huge dimension")
    check(error_of(with_value(2, 1 << 32), 0) == "(no error)", "2^32 elements")
    check(error_of(with_value(4, 81), 0) ==
          "k: argument 4 (a.strides.0: i64) is 81 (162 bytes); the kernel was compiled to load "
          "tensor descriptor a with TMA, which needs every stride but the last a multiple of 16 "
          "bytes", "stride not a multiple of 16 bytes")
    check("cannot describe negative strides" in error_of(with_value(4, -8), 0), "negative stride")
    check("below 2^40 bytes" in error_of(with_value(4, 1 << 39), 0), "stride of 2^40 bytes")
    check(error_of(with_value(4, (1 << 39) - 8), 0) == "(no error)", "stride below 2^40 bytes")
    check("argument 12 (b.strides.1: i64) is 50 (200 bytes)" in error_of(with_value(12, 50), 1),
          "b's middle stride")


def check_gpu():
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as error:
        print(f"tensormap_check.py --gpu: SKIPPED (no driver: {error})")
        return 77
    count = ctypes.c_int()
    if lib.cuInit(0) != 0 or lib.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        print("tensormap_check.py --gpu: SKIPPED (no device)")
        return 77
    device, context = ctypes.c_int(), ctypes.c_void_p()
    check(lib.cuDeviceGet(ctypes.byref(device), 0) == 0, "cuDeviceGet")
    check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0, "retain")
    check(lib.cuCtxSetCurrent(context) == 0, "cuCtxSetCurrent")
    memory = ctypes.c_uint64()
    lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    check(lib.cuMemAlloc_v2(ctypes.byref(memory), 1 << 20) == 0, "cuMemAlloc")
    values = list(VALUES)
    values[1] = values[7] = memory.value
    for i in range(2):
        m = tensormap.encode(tensormap.encode_args(KERNEL, i, values), f"map {i}")
        check(m.address % 64 == 0 and any(m.bytes()), f"map {i} encoded")
    bad = tensormap.encode_args(KERNEL, 0, values)._replace(box=[300, 64])
    try:
        tensormap.encode(bad, "a box of 300")
        check(False, "the driver refuses a box of 300")
    except RuntimeError as error:
        print(f"error as expected: {error}")
        check("cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE" in str(error), str(error))
    check_launcher()
    return 0


def check_launcher():
    """The hand-written TMA kernels of gpu.runtime_tma through bench.TilecKernel."""
    try:
        import cupy
        import numpy
        import torch
    except ImportError as error:
        print(f"TilecKernel launches not checked: {error}")
        return
    import bench
    bench.torch, bench.cupy, bench.numpy = torch, cupy, numpy
    gpu_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "gpu")
    directory = tempfile.mkdtemp(prefix="tensormap-check-")
    ptx = os.path.join(directory, "runtime_tma.ptx")
    shutil.copyfile(os.path.join(gpu_dir, "runtime_tma.ptx.in"), ptx)
    rows, cols, stride = 20, 24, 32
    tensor = torch.full((rows, stride), -7.0, device="cuda")
    tensor[:, :cols] = (torch.arange(rows, device="cuda")[:, None] * 100
                        + torch.arange(cols, device="cuda")[None, :]).float()
    # tma_copy_swizzle's map has no "fill": padding_nan (math.isnan(fill) below) decides.
    cases = [("tma_copy_zero", 0.0, False), ("tma_copy_nan", math.nan, False),
             ("tma_copy_swizzle", 0.0, True), ("tma_copy_swizzle", math.nan, True)]
    for name, fill, swizzled in cases:
        kernel = bench.TilecKernel(ptx, os.path.join(gpu_dir, "runtime_tma.json"), name)
        for row0, col0 in [(0, 0), (16, 16), (-3, -4), (15, 12)]:
            out = torch.full((128,), -1.0, device="cuda")
            kernel.launcher([out, tensor, rows, cols, stride, 1, math.isnan(fill), row0, col0], (1,))()
            torch.cuda.synchronize()
            got, wrong = out.tolist(), 0
            for s in range(128):
                offset = s * 4
                if swizzled:  # 64-byte swizzle: 16-byte chunk c of 128-byte line l is at c ^ (l % 4)
                    offset ^= ((offset >> 7) & 3) << 4
                row, col = row0 + offset // 4 // 16, col0 + offset // 4 % 16
                expected = float(row * 100 + col) if 0 <= row < rows and 0 <= col < cols else fill
                same = math.isnan(got[s]) if math.isnan(expected) else got[s] == expected
                wrong += not same
            check(wrong == 0, f"{name} at ({row0}, {col0}) through TilecKernel: {wrong} wrong elements")
    print(f"TilecKernel launches checked: {len(cases)} kernels and fills")


def main():
    check_args()
    check_errors()
    status = check_gpu() if "--gpu" in sys.argv[1:] else 0
    print(f"tensormap_check.py: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else status


if __name__ == "__main__":
    sys.exit(main())
