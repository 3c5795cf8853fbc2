#!/usr/bin/env python3
"""tilec vs Triton vs PyTorch, on the same .tl source, in one process, timed the same way.

For every kernel of the KERNELS table and every size:
  tilec   the PTX tilec wrote (<ptx-dir>/<stem>.ptx and its metadata <stem>.json), loaded with
          CuPy (cupy.RawModule) and launched with block = 32 * num_warps from the metadata;
  triton  the same .tl file, imported as a Python module, launched with kernel[grid](...) and the
          constexprs and num_warps of the metadata, so both compile the same specialization;
  torch   the PyTorch equivalent.
The three outputs are compared before anything is timed; then each provider is timed with
triton.testing.do_bench_cudagraph (the default: kernel time, no launch overhead) or, with
--timer do_bench, with triton.testing.do_bench (median, L2 flushed between runs, launch
overhead included: CuPy's Python launch path for tilec, Triton's own launcher for Triton).

Prints one table (GB/s per provider, tilec/Triton ratio, the GPU) and writes it as markdown and
CSV (--out). Exit status 1 if any result disagreed or any provider failed.

Specialisation: Triton's JIT specialises integer arguments that are divisible by 16 (and those
equal to 1) when it compiles a kernel. tilec compiles ahead of time, so each entry's signature
makes the same promises (`i32:16`, a literal 1) and every size in the table honours them; both
compilers thus compile the same specialisation.

Adding a kernel is adding one Bench entry to KERNELS. On the machine with the compiler,
`bench.py --compile path/to/tilec --ptx-dir DIR` writes the PTX of every entry into DIR.
"""

import argparse
import ast
import csv
import datetime
import importlib.util
import json
import math
import os
import shutil
import sys
import tempfile
import traceback
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The other modules of bench/ (suite.py, tensormap.py), whether this runs as a script or is
# imported from elsewhere (tests/gpu/check_samples.py, `import bench.bench`).
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensormap  # noqa: E402  (TMA tensor maps of kernels with `tensor_maps`; ctypes only)

# Imported in main(), so that --help and --list work without a GPU stack.
torch = None
triton = None
cupy = None
numpy = None


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


# Where bench.inputs build tensors: "cuda" to run; "meta" (shapes and strides, no memory) for
# --list, --compile and --dry-run, which derive and check signatures without a GPU.
DEVICE = "cuda"


def randn(n: int, dtype: str = "float32"):
    return torch.randn(n, device=DEVICE, dtype=getattr(torch, dtype))


def empty(n: int, dtype: str = "float32"):
    return torch.empty(n, device=DEVICE, dtype=getattr(torch, dtype))


@dataclass
class Bench:
    """One kernel to compare. Tensors live in a dict ("t" below) built by `inputs`."""

    name: str  # row label
    source: str  # the .tl file, relative to the repository root
    kernel: str  # the @triton.jit function
    ptx: str  # <ptx-dir>/<ptx>.ptx and <ptx>.json
    sizes: Sequence[Any]  # an int, or a shape tuple (the suite's entries)
    inputs: Callable[[Any], Dict[str, Any]]  # size -> tensors, outputs included
    outputs: Sequence[str]  # the keys of `inputs` the kernel writes
    args: Callable[[Dict[str, Any], int], List[Any]]  # run-time arguments, in parameter order
    grid: Callable[[Dict[str, Any], int], tuple]  # (constexprs, size) -> grid, as Triton's meta
    torch: Callable[[Dict[str, Any], int], None]  # the PyTorch equivalent, writing the outputs
    bytes: Callable[[int], int]  # bytes read + written, for GB/s
    # How tilec compiles it (--compile): the -s signature, and any other flags.
    signature: str = ""
    tilec_flags: Sequence[str] = ()
    # What Triton compiles when there is no tilec metadata to copy (--providers triton,torch, or
    # tilec's PTX failed to load); with it, Triton gets the metadata's constexprs and num_warps.
    constexprs: Dict[str, Any] = field(default_factory=dict)
    num_warps: int = 4
    atol: float = 0.0  # results must match within atol + rtol * |expected|
    rtol: float = 0.0
    # tilec against Triton: (atol, rtol), or None for atol/rtol above. (0, 0) = bit-identical.
    triton_tol: Optional[Tuple[float, float]] = None
    torch_timed: bool = True  # False: PyTorch's version only checks (not worth timing)
    family: str = ""  # the suite's family (suite.py), for --kernels; "" for the samples' entries


def transpose_bench(name: str, source: str, unit_strides: Sequence[str]) -> Bench:
    """A seed transpose_kernel(x, y, M, N, 4 strides, bm, bn) on an n x n fp16 matrix, its two unit
    strides (named `unit_strides`, 6th and 8th parameters) bound to 1."""
    return Bench(
        name=name,
        source=source,
        kernel="transpose_kernel",
        ptx=name,
        sizes=[1024, 2000, 3008, 4096],
        inputs=lambda n: {"x": randn(n * n, "float16"), "y": empty(n * n, "float16")},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], n, n, n, n],
        grid=lambda meta, n: (cdiv(n, meta["bm"]), cdiv(n, meta["bn"])),
        torch=lambda t, n: t["y"].view(n, n).copy_(t["x"].view(n, n).t()),
        bytes=lambda n: 2 * 2 * n * n,
        signature="*fp16:16,*fp16:16,i32:16,i32:16,i32:16,1,i32:16,1,64,64",
        constexprs={unit_strides[0]: 1, unit_strides[1]: 1, "bm": 64, "bn": 64},
    )


KERNELS: List[Bench] = [
    Bench(
        name="vector_add",
        source="samples/vector_add.tl",
        kernel="add_kernel",
        ptx="bench_vector_add",  # not samples' vector_add.ptx: this one promises n % 16 == 0
        sizes=sorted([2**k for k in range(12, 27)] + [98432, 10**7]),
        inputs=lambda n: {"x": randn(n), "y": randn(n), "output": empty(n)},
        outputs=["output"],
        args=lambda t, n: [t["x"], t["y"], t["output"], n],
        grid=lambda meta, n: (cdiv(n, meta["BLOCK_SIZE"]),),
        torch=lambda t, n: torch.add(t["x"], t["y"], out=t["output"]),
        bytes=lambda n: 3 * 4 * n,
        signature="*fp32:16,*fp32:16,*fp32:16,i32:16,1024",
        constexprs={"BLOCK_SIZE": 1024},
    ),
    Bench(
        name="copy",
        source="samples/copy.tl",
        kernel="copy_k",
        ptx="bench_copy",
        sizes=[2**20, 98432 * 11, 2**24, 10**7, 2**26],
        inputs=lambda n: {"x": randn(n), "z": empty(n)},
        outputs=["z"],
        args=lambda t, n: [t["x"], t["z"], n],
        grid=lambda meta, n: (cdiv(n, meta["bs"]),),
        torch=lambda t, n: t["z"].copy_(t["x"]),
        bytes=lambda n: 2 * 4 * n,
        signature="*fp32:16,*fp32:16,i32:16,1024",
        constexprs={"bs": 1024},
    ),
    # 2-D kernels: the size is the side of a square matrix; sides are multiples of 16 (Triton's JIT
    # specialises such strides as divisible by 16, and the signatures promise it with i32:16).
    Bench(
        name="matrix_add",
        source="samples/matrix_add.tl",
        kernel="matrix_add_kernel",
        ptx="matrix_add",
        sizes=[1024, 2000, 3008, 4096],
        inputs=lambda n: {"a": randn(n * n), "b": randn(n * n), "c": empty(n * n)},
        outputs=["c"],
        args=lambda t, n: [t["a"], t["b"], t["c"], n, n],
        grid=lambda meta, n: (cdiv(n, meta["bs0"]), cdiv(n, meta["bs1"])),
        torch=lambda t, n: torch.add(t["a"], t["b"], out=t["c"]),
        bytes=lambda n: 3 * 4 * n * n,
        signature="*fp32:16,*fp32:16,*fp32:16,i32:16,i32:16,32,128",
        constexprs={"bs0": 32, "bs1": 128},
    ),
    Bench(
        name="rgb2grey",
        source="samples/rgb2grey.tl",
        kernel="rgb2grey_k",
        ptx="rgb2grey",
        sizes=[1024, 2000, 3008, 4096],
        inputs=lambda n: {"x": torch.randint(0, 256, (3 * n * n,), device=DEVICE, dtype=torch.uint8),
                          "out": torch.empty(n * n, device=DEVICE, dtype=torch.uint8)},
        outputs=["out"],
        args=lambda t, n: [t["x"], t["out"], n, n],
        grid=lambda meta, n: (cdiv(n, meta["bs0"]), cdiv(n, meta["bs1"])),
        torch=lambda t, n: t["out"].copy_((0.2989 * t["x"][: n * n] + 0.5870 * t["x"][n * n: 2 * n * n]
                                           + 0.1140 * t["x"][2 * n * n:]).to(torch.uint8)),
        bytes=lambda n: 4 * n * n,
        signature="*u8:16,*u8:16,i32:16,i32:16,32,128",
        constexprs={"bs0": 32, "bs1": 128},
        atol=1.0,  # fma contraction may move a pixel across an integer boundary
    ),
    # The seed's two fp16 transposes of an n x n matrix: tl.trans, and the stride trick. The unit
    # strides are bound to 1 in the signature, as Triton's JIT specialises them.
    transpose_bench("transpose", "samples/transpose.tl", ("stride_xn", "stride_ym")),
    transpose_bench("transpose_strides", "samples/transpose_strides.tl",
                    ("col_stride_x", "col_stride_y")),
    # Row-wise kernels over 4096 rows; the size is the row length (a multiple of 16).
    Bench(
        name="softmax",
        source="samples/softmax.tl",
        kernel="softmax_kernel",
        ptx="softmax",
        sizes=[2512, 3072, 4096],
        inputs=lambda n: {"x": randn(4096 * n), "y": empty(4096 * n)},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], n, n, n],
        grid=lambda meta, n: (4096,),
        torch=lambda t, n: t["y"].view(4096, n).copy_(torch.softmax(t["x"].view(4096, n), dim=1)),
        bytes=lambda n: 2 * 4 * 4096 * n,
        signature="*fp32:16,*fp32:16,i32:16,i32:16,i32:16,4096",
        tilec_flags=("--num-warps", "8"),
        constexprs={"BLOCK_SIZE": 4096},
        num_warps=8,
        atol=1e-7,
        rtol=1e-4,
    ),
    Bench(
        name="softmax_online",
        source="samples/softmax.tl",
        kernel="softmax_kernel_large",
        ptx="softmax_online",
        sizes=[2512, 4096],
        inputs=lambda n: {"x": randn(4096 * n), "y": empty(4096 * n)},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], n, n, n],
        grid=lambda meta, n: (4096,),
        torch=lambda t, n: t["y"].view(4096, n).copy_(torch.softmax(t["x"].view(4096, n), dim=1)),
        bytes=lambda n: 2 * 4 * 4096 * n,
        signature="*fp32:16,*fp32:16,i32:16,i32:16,i32:16,1024",
        constexprs={"BLOCK_SIZE": 1024},
        atol=1e-7,
        rtol=1e-4,
    ),
    Bench(
        name="layernorm",
        source="samples/layernorm.tl",
        kernel="layernorm_kernel",
        ptx="layernorm",
        sizes=[2512, 4096],
        inputs=lambda n: {"x": randn(4096 * n, "float16"), "y": empty(4096 * n, "float16"),
                          "w": randn(n, "float16"), "b": randn(n, "float16")},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], t["w"], t["b"], n, n, 1e-5],
        grid=lambda meta, n: (4096,),
        torch=lambda t, n: t["y"].view(4096, n).copy_(torch.nn.functional.layer_norm(
            t["x"].view(4096, n), (n,), t["w"], t["b"], 1e-5)),
        bytes=lambda n: 2 * 2 * 4096 * n,
        signature="*fp16:16,*fp16:16,*fp16:16,*fp16:16,None,None,i32:16,i32:16,fp32,4096",
        tilec_flags=("--num-warps", "8"),
        constexprs={"mean_ptr": None, "rstd_ptr": None, "BLOCK_SIZE": 4096},
        num_warps=8,
        atol=2e-2,
        rtol=1e-2,
    ),
    Bench(
        name="layernorm_welford",
        source="samples/layernorm.tl",
        kernel="layernorm_kernel_welford",
        ptx="layernorm_welford",
        sizes=[2512, 4096],
        inputs=lambda n: {"x": randn(4096 * n, "float16"), "y": empty(4096 * n, "float16"),
                          "w": randn(n, "float16"), "b": randn(n, "float16")},
        outputs=["y"],
        args=lambda t, n: [t["x"], t["y"], t["w"], t["b"], n, n, 1e-5],
        grid=lambda meta, n: (4096,),
        torch=lambda t, n: t["y"].view(4096, n).copy_(torch.nn.functional.layer_norm(
            t["x"].view(4096, n), (n,), t["w"], t["b"], 1e-5)),
        bytes=lambda n: 2 * 2 * 4096 * n,
        signature="*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,fp32,1024",
        constexprs={"BLOCK_SIZE": 1024},
        atol=2e-2,
        rtol=1e-2,
    ),
]

PROVIDERS = ["tilec", "triton", "torch"]


# --- specialisation: the signature Triton's JIT would pick -------------------------------------

_params_cache: Dict[Tuple[str, str], List[Tuple[str, bool]]] = {}


def kernel_params(source: str, kernel: str) -> List[Tuple[str, bool]]:
    """(name, is annotated tl.constexpr) for each parameter of `kernel`, read from the .tl file
    with Python's own parser (a .tl file is a Python module)."""
    import ast

    key = (source, kernel)
    if key not in _params_cache:
        with open(os.path.join(REPO_ROOT, source)) as f:
            tree = ast.parse(f.read(), source)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == kernel:
                _params_cache[key] = [
                    (a.arg, a.annotation is not None and ast.unparse(a.annotation).endswith("constexpr"))
                    for a in node.args.args]
                break
        else:
            raise RuntimeError(f"{source}: no function {kernel}")
    return _params_cache[key]


TL_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
             "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
             "bool": "i1"}


def arg_spec(value: Any) -> str:
    """The signature entry Triton 3.6's JIT specialises an argument to: a tensor's pointer is
    `:16` when its address is 16-byte aligned, an int is the literal 1 when it equals 1 (a
    constexpr) and `:16` when divisible by 16, None is a constexpr."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int) or (numpy is not None and isinstance(value, numpy.integer)):
        value = int(value)
        if value == 1:
            return "1"
        kind = "i32" if -2**31 <= value < 2**31 else "i64"
        return kind + (":16" if value % 16 == 0 else "")
    if isinstance(value, float):
        return "fp32"
    if hasattr(value, "data_ptr"):  # a tensor
        dtype = TL_DTYPES[str(value.dtype).replace("torch.", "")]
        # Meta tensors have no address; their offset in a 256-byte-aligned allocation decides.
        address = (value.data_ptr() if value.device.type != "meta"
                   else value.storage_offset() * value.element_size())
        return f"*{dtype}" + (":16" if address % 16 == 0 else "")
    raise TypeError(f"no signature entry for a {type(value).__name__}")


def literal(value: Any) -> str:
    return str(value)  # 64, True, None


def derive_signature(params: List[Tuple[str, bool]], values: List[Any],
                     constexprs: Dict[str, Any]) -> Tuple[str, List[int]]:
    """The -s signature for run-time `values` (one per non-constexpr parameter, in order) and the
    tl.constexpr parameters' `constexprs`, and the positions in `values` that Triton turns into
    constexprs (those equal to 1, and None)."""
    runtime = [p for p, is_constexpr in params if not is_constexpr]
    if len(values) != len(runtime):
        raise TypeError(f"{len(values)} run-time arguments for parameters {runtime}")
    entries, literals = [], []
    for name, is_constexpr in params:
        if is_constexpr:
            entries.append(literal(constexprs[name]))
            continue
        i = runtime.index(name)
        entry = arg_spec(values[i])
        if entry in ("1", "None"):
            literals.append(i)
        entries.append(entry)
    return ",".join(entries), literals


def check_signature(bench: "Bench", t: Dict[str, Any], size: Any) -> Optional[str]:
    """None if the entry's signature makes exactly the promises Triton's JIT would make for this
    size's arguments (so both compile the same specialisation), else what differs."""
    params = kernel_params(bench.source, bench.kernel)
    runtime = [p for p, c in params if not c and p not in bench.constexprs]
    values = bench.args(t, size)
    if len(values) != len(runtime):
        return f"signature check: {len(values)} arguments for run-time parameters {runtime}"
    entries = [e.strip() for e in bench.signature.split(",")] if bench.signature else []
    problems = []
    for i, (name, is_constexpr) in enumerate(params):
        if i >= len(entries):
            break  # left to its default
        if is_constexpr:
            continue
        value = bench.constexprs[name] if name in bench.constexprs else values[runtime.index(name)]
        want = arg_spec(value)
        if entries[i] != want:
            problems.append(f"{name}={value if not hasattr(value, 'data_ptr') else 'tensor'}: "
                            f"signature says {entries[i]}, Triton specialises it as {want}")
    return ("signature check: " + "; ".join(problems)) if problems else None


def suite_benches() -> List["Bench"]:
    """The memory-bound suite (suite.py): one Bench per (family, dtype, specialisation)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import suite

    suite.DEVICE = DEVICE
    benches = []
    for fam in suite.FAMILIES:
        params = kernel_params(fam.source, fam.kernel)
        runtime = [p for p, c in params if not c]
        groups: Dict[tuple, List[Any]] = {}
        for dtype, shape in fam.cases:
            t = fam.inputs(shape, dtype)
            constexprs = fam.constexprs(shape, dtype)
            signature, literals = derive_signature(params, fam.args(t, shape), constexprs)
            key = (dtype, signature, tuple(literals), fam.num_warps(shape, dtype),
                   tuple(sorted((k, repr(v)) for k, v in constexprs.items())))
            groups.setdefault(key, []).append(shape)
        seen: Dict[str, int] = {}
        for (dtype, signature, literals, num_warps, _), shapes in groups.items():
            seen[dtype] = seen.get(dtype, 0) + 1
            name = f"{fam.name}_{dtype}" + (f"_v{seen[dtype]}" if seen[dtype] > 1 else "")
            constexprs = dict(fam.constexprs(shapes[0], dtype))
            constexprs.update({runtime[i]: (1 if signature.split(",")[params.index(
                (runtime[i], False))] == "1" else None) for i in literals})
            tol = fam.tol[dtype]
            benches.append(Bench(
                name=name, source=fam.source, kernel=fam.kernel, ptx="suite_" + name,
                sizes=shapes,
                inputs=lambda n, fam=fam, d=dtype: fam.inputs(n, d),
                outputs=fam.outputs,
                args=lambda t, n, fam=fam, drop=set(literals): [
                    v for i, v in enumerate(fam.args(t, n)) if i not in drop],
                grid=fam.grid,
                torch=fam.torch,
                bytes=lambda n, fam=fam, d=dtype: fam.bytes(n, d),
                signature=signature,
                tilec_flags=("--num-warps", str(num_warps)),
                constexprs=constexprs,
                num_warps=num_warps,
                atol=tol[0], rtol=tol[1],
                triton_tol=(0.0, 0.0) if fam.exact else tol,
                torch_timed=fam.torch_timed,
                family=fam.name,
            ))
    return benches


# --- tilec: PTX + metadata through CuPy ------------------------------------------------------


class TilecKernel:
    """A kernel of tilec's PTX, launched the way the C++ runtime does (runtime/src/Runtime.cpp):
    block = threads_per_block, dynamic shared memory = shared_memory_bytes less the static part,
    arguments checked against the metadata's parameters. A kernel with `tensor_maps` (TMA loads of
    tensor descriptors) also gets its CUtensorMaps, built from the arguments (tensormap.py) and
    passed after them through cupy.cuda.driver.launchKernel; callers pass the same arguments."""

    TORCH_DTYPES = {
        "i1": ("bool", "int8", "uint8"),
        "i8": ("int8",),
        "i16": ("int16",),
        "i32": ("int32",),
        "i64": ("int64",),
        "u8": ("uint8",),
        "u16": ("uint16",),
        # u32 also as int32 bits: PyTorch before 2.3 has no uint32 (its semaphores, say).
        "u32": ("uint32", "int32"),
        "u64": ("uint64",),
        "fp16": ("float16",),
        "bf16": ("bfloat16",),
        "fp32": ("float32",),
        "fp64": ("float64",),
        # fp8 also as its raw bytes: PyTorch before 2.1 (Debian's CPU one) has no fp8 dtypes.
        "fp8e4nv": ("float8_e4m3fn", "uint8"),
        "fp8e5": ("float8_e5m2", "uint8"),
        # fp8e4b15 has no PyTorch dtype: its bytes (Triton takes them through triton.reinterpret).
        "fp8e4b15": ("uint8", "int8"),
    }

    def __init__(self, ptx_path: str, metadata_path: str, name: str):
        with open(metadata_path) as f:
            metadata = json.load(f)
        # Version 1, 3 (tensor_maps, which launch() builds) or 4 (global_scratch, which launch()
        # allocates). Version 2 (variants) is not read: an autotuned kernel is given as a file of
        # one variant (check_samples.kernel_metadata).
        version = metadata.get("version")
        if metadata.get("schema") != "tilec-metadata" or version not in (1, 3, 4):
            raise RuntimeError(f"{metadata_path}: not tilec metadata version 1, 3 or 4")
        for k in metadata["kernels"]:
            if version < 3 and any("tensor_maps" in x for x in [k] + k.get("variants", [])):
                raise RuntimeError(f"{metadata_path}: kernel {k.get('name')} has tensor_maps, a "
                                   f"version 3 member, and the file says version {version}")
            if version < 4 and any("global_scratch" in x for x in [k] + k.get("variants", [])):
                raise RuntimeError(f"{metadata_path}: kernel {k.get('name')} has global_scratch, "
                                   f"a version 4 member, and the file says version {version}")
            if "variants" in k:
                raise RuntimeError(f"{metadata_path}: kernel {k.get('name')} is autotuned "
                                   "(variants): give a file of one variant")
        kernels = {k["name"]: k for k in metadata["kernels"]}
        if name not in kernels:
            raise RuntimeError(
                f"{metadata_path}: no kernel {name}; available: {', '.join(kernels) or 'none'}")
        self.info = kernels[name]
        self.compiler = metadata.get("compiler", "?")
        self.constexprs = {c["name"]: parse_constexpr(c["value"])
                           for c in self.info.get("constexprs", [])}
        self.module = cupy.RawModule(path=ptx_path)
        self.function = self.module.get_function(self.info["entry"])
        self.block = (self.info["threads_per_block"], 1, 1)
        static_shared = self.function.shared_size_bytes
        self.dynamic_shared = max(0, self.info["shared_memory_bytes"] - static_shared)
        if self.dynamic_shared > 48 * 1024:
            self.function.max_dynamic_shared_size_bytes = self.dynamic_shared
        self.streams = {}

    def pack(self, args: List[Any]) -> tuple:
        params = self.info["params"]
        if len(args) != len(params):
            raise TypeError(f"{self.info['name']}: expected {len(params)} arguments, got {len(args)}")
        packed = []
        for param, arg in zip(params, args):
            what = f"{self.info['name']}: argument {param['name']} ({param['type']})"
            if param["type"].startswith("*"):
                element = param["type"][1:]
                if not isinstance(arg, torch.Tensor):
                    raise TypeError(f"{what}: expected a tensor, got {type(arg).__name__}")
                if str(arg.dtype).replace("torch.", "") not in self.TORCH_DTYPES[element]:
                    raise TypeError(f"{what}: got a {arg.dtype} tensor")
                alignment = param.get("alignment", 0)
                if alignment and arg.data_ptr() % alignment:
                    raise ValueError(f"{what}: not {alignment}-byte aligned")
                packed.append(numpy.uint64(arg.data_ptr()))
            else:
                divisibility = param.get("divisibility", 0)
                if divisibility and int(arg) % divisibility:
                    raise ValueError(f"{what}: {arg} is not divisible by {divisibility} as promised")
                packed.append(scalar(param["type"], arg, what))
        return tuple(packed)

    def launcher(self, args: List[Any], grid: tuple) -> Callable[[], None]:
        packed = self.pack(args)
        grid = tuple(grid) + (1,) * (3 - len(grid))
        # A kernel that writes its own tensor maps takes global scratch, global_scratch["size"]
        # bytes per program, as its last parameter (docs/metadata.md). Allocated once: every
        # launch of this launcher runs on the current stream, one after the other.
        trailing = ()
        scratch_bytes = self.info.get("global_scratch", {}).get("size", 0)
        if scratch_bytes:
            self.scratch = torch.empty(scratch_bytes * grid[0] * grid[1] * grid[2],
                                       dtype=torch.int8, device="cuda")
            trailing = (numpy.uint64(self.scratch.data_ptr()),)
        if self.info.get("tensor_maps"):
            # Built once: the arguments (so the maps) are the same for every launch.
            params = tensormap.KernelParams(packed, tensormap.build(self.info, args), trailing)
            # get_function gives a RawKernel; its `kernel` is the cupy.cuda.Function (a CUfunction).
            function = getattr(self.function, "kernel", self.function).ptr

            def launch_with_maps():
                cupy.cuda.driver.launchKernel(
                    function, grid[0], grid[1], grid[2], *self.block,
                    self.dynamic_shared, torch.cuda.current_stream().cuda_stream, params.pointer, 0)

            return launch_with_maps

        def launch():
            # On PyTorch's current stream, so that do_bench's events and CUDA graph capture see it.
            pointer = torch.cuda.current_stream().cuda_stream
            stream = self.streams.get(pointer)
            if stream is None:
                stream = self.streams[pointer] = cupy.cuda.ExternalStream(pointer)
            with stream:
                self.function(grid, self.block, packed + trailing, shared_mem=self.dynamic_shared)

        return launch


def scalar(type_name: str, value: Any, what: str):
    """A kernel scalar as the numpy type CuPy passes with the parameter's size."""
    integer_types = {"i1": "bool_", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
                     "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}
    if type_name in integer_types:
        if isinstance(value, float) or not isinstance(value, (int, numpy.integer, bool)):
            raise TypeError(f"{what}: expected an integer, got {type(value).__name__}")
        if type_name != "i1":
            info = numpy.iinfo(integer_types[type_name])
            if not info.min <= int(value) <= info.max:
                raise ValueError(f"{what}: {value} does not fit")
        return getattr(numpy, integer_types[type_name])(value)
    if type_name in ("fp32", "fp64", "fp16"):
        return {"fp32": numpy.float32, "fp64": numpy.float64, "fp16": numpy.float16}[type_name](value)
    if type_name == "bf16":
        bits = torch.tensor([value], dtype=torch.bfloat16).view(torch.int16).item()
        return numpy.int16(bits)
    raise TypeError(f"{what}: scalar type {type_name} is not supported by the benchmark")


def parse_constexpr(text: str):
    # A tuple of literals or a string, as tilec's metadata prints them: (3, -1), 'e4m3'.
    if text.startswith("(") or (len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]):
        return ast.literal_eval(text)
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    return text


# --- Triton: the same .tl file as a Python module --------------------------------------------


_triton_modules: Dict[str, Any] = {}
_module_dir = None


def triton_kernel(source: str, name: str):
    """The @triton.jit function `name` of `source`, imported from a copy named .py."""
    global _module_dir
    if source not in _triton_modules:
        if _module_dir is None:
            _module_dir = tempfile.mkdtemp(prefix="tilec-bench-")
        stem = "tl_" + os.path.splitext(os.path.basename(source))[0]
        path = os.path.join(_module_dir, stem + ".py")
        shutil.copyfile(os.path.join(REPO_ROOT, source), path)
        spec = importlib.util.spec_from_file_location(stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[stem] = module  # Triton reads the source back through the module
        spec.loader.exec_module(module)
        _triton_modules[source] = module
    return getattr(_triton_modules[source], name)


# --- timing and checking ---------------------------------------------------------------------


def time_ms(fn: Callable[[], None], timer: str, warmup: int, rep: int) -> float:
    if timer == "cudagraph":
        return triton.testing.do_bench_cudagraph(fn, rep=rep, return_mode="median")
    return triton.testing.do_bench(fn, warmup=warmup, rep=rep, return_mode="median")


def compare(name: str, got, expected, atol: float, rtol: float) -> Optional[str]:
    """None if `got` matches `expected` (NaN matching NaN), else what differs. With atol = rtol = 0
    the values must be equal."""
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return f"{name}: {got.dtype}{list(got.shape)} vs {expected.dtype}{list(expected.shape)}"
    # fp64 holds every value of the narrower types exactly.
    got, expected = got.double(), expected.double()
    close = torch.isclose(got, expected, atol=atol, rtol=rtol, equal_nan=True)
    if bool(close.all()):
        return None
    wrong = int((~close).sum().item())
    where = ""
    if got.dim() == 1:
        first = int((~close).nonzero()[0].item())
        where = f", first at [{first}]: {got[first].item()!r} vs {expected[first].item()!r}"
    difference = (got - expected).abs().nan_to_num(nan=float("inf")).max().item()
    return f"{name}: {wrong} of {got.numel()} elements differ, max abs diff {difference:g}{where}"


@dataclass
class Row:
    kernel: str
    size: Any
    ms: Dict[str, float] = field(default_factory=dict)
    gbps: Dict[str, float] = field(default_factory=dict)
    copy_gbps: Optional[float] = None  # a device-to-device copy of the same bytes
    check: str = "ok"
    errors: List[str] = field(default_factory=list)

    def ratio(self) -> Optional[float]:
        if "tilec" in self.gbps and "triton" in self.gbps:
            return self.gbps["tilec"] / self.gbps["triton"]
        return None

    def copy_fraction(self) -> Optional[float]:
        if "tilec" in self.gbps and self.copy_gbps:
            return self.gbps["tilec"] / self.copy_gbps
        return None


def size_text(size: Any) -> str:
    return "x".join(str(s) for s in size) if isinstance(size, (tuple, list)) else str(size)


_copy_gbps: Dict[int, float] = {}


def copy_gbps(nbytes: int, args) -> float:
    """GB/s of a device-to-device copy moving `nbytes` (reading and writing nbytes / 2: PyTorch's
    copy_ of contiguous same-dtype tensors, a cudaMemcpyAsync), timed as the kernels are."""
    half = max(16, nbytes // 2 // 16 * 16)
    if half not in _copy_gbps:
        src = torch.empty(half, device="cuda", dtype=torch.uint8)
        dst = torch.empty_like(src)
        ms = time_ms(lambda: dst.copy_(src), args.timer, args.warmup, args.rep)
        _copy_gbps[half] = 2 * half / (ms * 1e-3) / 1e9
        del src, dst
    return _copy_gbps[half]


def fresh_outputs(bench: Bench, tensors: Dict[str, Any]) -> Dict[str, Any]:
    """A copy of `tensors` with new output tensors (NaN-filled, so unwritten elements show)."""
    t = dict(tensors)
    for key in bench.outputs:
        like = tensors[key]
        t[key] = torch.full_like(like, float("nan")) if like.is_floating_point() else torch.zeros_like(like)
    return t


def run_bench(bench: Bench, sizes: Sequence[int], providers: Sequence[str], args) -> List[Row]:
    tilec, setup_errors = None, []
    if "tilec" in providers:
        ptx = os.path.join(args.ptx_dir, bench.ptx + ".ptx")
        metadata = os.path.join(args.ptx_dir, bench.ptx + ".json")
        try:
            tilec = TilecKernel(ptx, metadata, bench.kernel)
            print(f"{bench.name}: tilec {bench.ptx}.ptx ({tilec.compiler}), "
                  f"num_warps {tilec.info['num_warps']}, constexprs {tilec.constexprs}", flush=True)
        except Exception as error:
            setup_errors.append(f"tilec: {type(error).__name__}: {error}")
    # Triton compiles what tilec compiled, so that both run the same specialization.
    constexprs = tilec.constexprs if tilec else bench.constexprs
    num_warps = tilec.info["num_warps"] if tilec else bench.num_warps

    rows = []
    for size in sizes:
        row = Row(bench.name, size, errors=list(setup_errors))
        rows.append(row)
        torch.manual_seed(size if isinstance(size, int) else zlib.crc32(size_text(size).encode()))
        tensors = bench.inputs(size)
        problem = check_signature(bench, tensors, size)
        if problem:  # tilec and Triton would not compile the same specialisation
            row.errors.append(problem)
        launchers, results = {}, {}
        for provider in providers:
            if provider == "tilec" and not tilec:
                continue
            t = fresh_outputs(bench, tensors)
            try:
                if provider == "tilec":
                    fn = tilec.launcher(bench.args(t, size), bench.grid(constexprs, size))
                elif provider == "triton":
                    fn = triton_launcher(bench, constexprs, num_warps, t, size)
                else:
                    fn = (lambda t=t: bench.torch(t, size))
                fn()
                torch.cuda.synchronize()
                launchers[provider], results[provider] = fn, t
            except Exception as error:
                row.errors.append(f"{provider}: {type(error).__name__}: {error}")
                if args.verbose:
                    traceback.print_exc()

        # Check before timing: tilec against Triton and PyTorch, and Triton against PyTorch.
        pairs = [("tilec", "triton"), ("tilec", "torch"), ("triton", "torch")]
        compared = 0
        for got, expected in pairs:
            if got not in results or expected not in results:
                continue
            compared += 1
            atol, rtol = bench.atol, bench.rtol
            if (got, expected) == ("tilec", "triton") and bench.triton_tol is not None:
                atol, rtol = bench.triton_tol
            for key in bench.outputs:
                problem = compare(f"{got} vs {expected} {key}", results[got][key], results[expected][key],
                                  atol, rtol)
                if problem:
                    row.check = "MISMATCH"
                    row.errors.append(problem)
        if compared == 0:
            row.check = "unchecked"

        for provider, fn in launchers.items():
            if provider == "torch" and not bench.torch_timed:
                continue
            try:
                ms = time_ms(fn, args.timer, args.warmup, args.rep)
                row.ms[provider] = ms
                row.gbps[provider] = bench.bytes(size) / (ms * 1e-3) / 1e9
            except Exception as error:
                row.errors.append(f"{provider} timing: {type(error).__name__}: {error}")
        if not args.no_copy:
            try:
                row.copy_gbps = copy_gbps(bench.bytes(size), args)
            except Exception as error:
                row.errors.append(f"copy timing: {type(error).__name__}: {error}")
        print_row(row, providers)
        del tensors, results, launchers
        torch.cuda.empty_cache()
    return rows


def triton_launcher(bench: Bench, constexprs: Dict[str, Any], num_warps: int, t: Dict[str, Any],
                    size: int) -> Callable[[], None]:
    kernel = triton_kernel(bench.source, bench.kernel)
    grid = bench.grid(constexprs, size)
    run_args = bench.args(t, size)
    # By name: constexprs such as layernorm's mean_ptr=None sit between run-time parameters.
    names = [p for p in kernel.arg_names if p not in constexprs]
    if len(names) != len(run_args):
        raise TypeError(f"{bench.kernel}: {len(run_args)} arguments for parameters {names}")
    kwargs = dict(zip(names, run_args))

    def launch():
        kernel[grid](**kwargs, **constexprs, num_warps=num_warps)

    return launch


# --- output ----------------------------------------------------------------------------------


def header(providers: Sequence[str]) -> List[str]:
    columns = ["kernel", "size"] + [f"{p} GB/s" for p in providers]
    if "tilec" in providers and "triton" in providers:
        columns.append("tilec/triton")
    columns.append("copy GB/s")
    if "tilec" in providers:
        columns.append("tilec/copy")
    return columns + ["check"]


def cells(row: Row, providers: Sequence[str]) -> List[str]:
    values = [row.kernel, size_text(row.size)]
    values += [f"{row.gbps[p]:.1f}" if p in row.gbps else "-" for p in providers]
    if "tilec" in providers and "triton" in providers:
        ratio = row.ratio()
        values.append(f"{ratio:.3f}" if ratio is not None else "-")
    values.append(f"{row.copy_gbps:.1f}" if row.copy_gbps else "-")
    if "tilec" in providers:
        fraction = row.copy_fraction()
        values.append(f"{fraction:.2f}" if fraction is not None else "-")
    return values + [row.check if not row.errors or row.check != "ok" else "error"]


def print_row(row: Row, providers: Sequence[str]) -> None:
    widths = [22, 16] + [14] * (len(cells(row, providers)) - 2)
    print("  ".join(f"{c:>{w}}" for c, w in zip(cells(row, providers), widths)), flush=True)
    for error in row.errors:
        print(f"      {error}", flush=True)


def write_outputs(path: str, rows: List[Row], providers: Sequence[str], context: Dict[str, str]):
    stem, extension = os.path.splitext(path)
    if extension not in (".md", ".csv"):
        stem = path
    directory = os.path.dirname(stem)
    if directory:
        os.makedirs(directory, exist_ok=True)

    with open(stem + ".md", "w") as f:
        f.write("# tilec vs Triton vs PyTorch\n\n")
        for key, value in context.items():
            f.write(f"- {key}: {value}\n")
        f.write("\n| " + " | ".join(header(providers)) + " |\n")
        f.write("|" + "---|" * len(header(providers)) + "\n")
        for row in rows:
            f.write("| " + " | ".join(cells(row, providers)) + " |\n")
        errors = [(row, error) for row in rows for error in row.errors]
        if errors:
            f.write("\n## Errors\n\n")
            for row, error in errors:
                f.write(f"- {row.kernel} {size_text(row.size)}: {error}\n")

    with open(stem + ".csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["kernel", "size"] + [f"{p}_ms" for p in providers]
                        + [f"{p}_gbps" for p in providers]
                        + ["tilec_over_triton", "copy_gbps", "tilec_over_copy", "check", "errors"])
        for row in rows:
            ratio, fraction = row.ratio(), row.copy_fraction()
            writer.writerow([row.kernel, size_text(row.size)]
                            + [f"{row.ms[p]:.6f}" if p in row.ms else "" for p in providers]
                            + [f"{row.gbps[p]:.2f}" if p in row.gbps else "" for p in providers]
                            + [f"{ratio:.4f}" if ratio is not None else "",
                               f"{row.copy_gbps:.2f}" if row.copy_gbps else "",
                               f"{fraction:.4f}" if fraction is not None else "", row.check,
                               " | ".join(row.errors)])
    print(f"wrote {stem}.md and {stem}.csv")


def compile_with_tilec(tilec: str, benches: Sequence[Bench], ptx_dir: str) -> int:
    """Writes <ptx_dir>/<ptx>.ptx and .json for each entry (on the machine with the compiler)."""
    import subprocess

    os.makedirs(ptx_dir, exist_ok=True)
    tilec, ptx_dir = os.path.abspath(tilec), os.path.abspath(ptx_dir)
    failed = 0
    for bench in benches:
        # From the repository root, so that the metadata's "source" is the repository path.
        command = [tilec, bench.source, "-k", bench.kernel]
        if bench.signature:
            command += ["-s", bench.signature]
        command += list(bench.tilec_flags) + ["-o", os.path.join(ptx_dir, bench.ptx + ".ptx")]
        print(" ".join(command), flush=True)
        if subprocess.call(command, cwd=REPO_ROOT) != 0:
            print(f"bench.py: tilec failed on {bench.name}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def parse_sizes(text: str) -> List[int]:
    """ "4096,2**20,98432" -> [4096, 1048576, 98432]"""
    sizes = []
    for item in text.split(","):
        base, _, exponent = item.strip().partition("**")
        sizes.append(int(base) ** int(exponent) if exponent else int(base))
    return sizes


def dry_run(benches: Sequence["Bench"], sizes_override, ptx_dir: Optional[str]) -> int:
    """Everything that needs no GPU: every row's inputs (on the meta device), arguments, grid and
    bytes; its signature against Triton's specialisation; with --ptx-dir, tilec's metadata against
    the arguments (count, alignment and divisibility promises), as the launch will check them."""
    problems, rows = [], 0
    for bench in benches:
        info = None
        if ptx_dir:
            path = os.path.join(ptx_dir, bench.ptx + ".json")
            if not os.path.exists(os.path.join(ptx_dir, bench.ptx + ".ptx")) or not os.path.exists(path):
                problems.append(f"{bench.name}: no {bench.ptx}.ptx/.json in {ptx_dir}")
            else:
                with open(path) as f:
                    info = {k["name"]: k for k in json.load(f)["kernels"]}.get(bench.kernel)
                if info is None:
                    problems.append(f"{bench.name}: {path} has no kernel {bench.kernel}")
        for size in sizes_override or bench.sizes:
            rows += 1
            where = f"{bench.name} {size_text(size)}"
            try:
                t = bench.inputs(size)
                problem = check_signature(bench, t, size)
                if problem:
                    problems.append(f"{where}: {problem}")
                values = bench.args(t, size)
                grid = bench.grid(dict(bench.constexprs), size)
                if not all(isinstance(g, int) and 0 < g < 2**31 for g in grid) or len(grid) > 3 \
                        or any(g >= 65536 for g in grid[1:]):
                    problems.append(f"{where}: bad grid {grid}")
                if bench.bytes(size) <= 0:
                    problems.append(f"{where}: no bytes")
                if info is not None:
                    params = info["params"]
                    if len(params) != len(values):
                        problems.append(f"{where}: {len(values)} arguments, the PTX has {len(params)}")
                    for param, value in zip(params, values):
                        promised = param.get("alignment") or param.get("divisibility") or 0
                        if promised and arg_spec(value).endswith(":16") is False:
                            problems.append(f"{where}: {param['name']} breaks the PTX's promise")
                    for i in range(len(info.get("tensor_maps", []))):
                        tensormap.encode_args(info, i, values)  # raises for what TMA refuses
            except Exception as error:
                problems.append(f"{where}: {type(error).__name__}: {error}")
    for problem in problems:
        print(f"dry-run: {problem}")
    kernels = {(b.source, b.kernel) for b in benches}
    print(f"dry-run: {len(kernels)} kernels, {len(benches)} entries (PTX files), {rows} rows, "
          f"{len(problems)} problems")
    return 1 if problems else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ptx-dir", required=False, help="directory of <stem>.ptx + <stem>.json from tilec")
    parser.add_argument("--out", help="write the table to OUT.md and OUT.csv (OUT may end in .md or .csv)")
    parser.add_argument("--kernels", nargs="*",
                        help="only these entries, by entry name (softmax_rows_fp16) or family name "
                             "(softmax_rows: all its dtypes and specialisations)")
    parser.add_argument("--set", choices=["all", "samples", "suite"], default="all",
                        help="samples: the seed kernels' entries; suite: the memory-bound suite "
                             "(suite.py); all: both (default)")
    parser.add_argument("--sizes", type=parse_sizes,
                        help="comma-separated sizes instead of each entry's, e.g. 2**20,98432")
    parser.add_argument("--providers", default=",".join(PROVIDERS),
                        help=f"comma-separated subset of {','.join(PROVIDERS)}")
    # CUDA graphs by default: the table compares the compiled kernels, and with plain do_bench
    # the smallest sizes (a few microseconds) measure the launchers instead: CuPy's Python path
    # for tilec's PTX against Triton's C launcher.
    parser.add_argument("--timer", choices=["do_bench", "cudagraph"], default="cudagraph",
                        help="triton.testing.do_bench_cudagraph (default: kernel time, no launch "
                             "overhead) or do_bench (launch overhead included)")
    parser.add_argument("--warmup", type=int, default=25, help="do_bench warm-up, ms")
    # do_bench_cudagraph replays a graph of `rep` ms of launches 10 times: 20 ms (its default)
    # keeps the whole table near 5 minutes; do_bench's median wants more samples.
    parser.add_argument("--rep", type=int, default=None,
                        help="repetition time, ms (default 20 for cudagraph, 100 for do_bench)")
    parser.add_argument("--no-copy", action="store_true",
                        help="skip the device-to-device copy baseline (the copy GB/s column)")
    parser.add_argument("--list", action="store_true", help="list the entries and exit")
    parser.add_argument("--dry-run", action="store_true",
                        help="check every row without a GPU (signatures, arguments, grids; with "
                             "--ptx-dir, tilec's metadata) and exit")
    parser.add_argument("--compile", metavar="TILEC",
                        help="compile every entry with this tilec binary into --ptx-dir and exit "
                             "(on the machine with the compiler; needs no GPU)")
    parser.add_argument("--verbose", action="store_true", help="print tracebacks of failures")
    args = parser.parse_args(argv)
    if args.rep is None:
        args.rep = 20 if args.timer == "cudagraph" else 100

    global torch, triton, cupy, numpy, DEVICE
    import numpy
    import torch

    # The suite's entries are derived from its arguments, built on the meta device (no GPU).
    DEVICE = "meta"
    benches = []
    if args.set in ("all", "samples"):
        benches += KERNELS
    if args.set in ("all", "suite"):
        benches += suite_benches()

    selected = [b for b in benches if not args.kernels or b.name in args.kernels
                or b.family in args.kernels]
    if args.kernels:
        known = {b.name for b in benches} | {b.family for b in benches}
        unknown = [k for k in args.kernels if k not in known]
        if unknown:
            parser.error(f"unknown kernels {unknown}; known: {', '.join(sorted(known - {''}))}")
    if args.list:
        for bench in selected:
            print(f"{bench.name}: {bench.source}:{bench.kernel} -s \"{bench.signature}\" "
                  f"{' '.join(bench.tilec_flags)}, PTX {bench.ptx}.ptx, "
                  f"sizes {', '.join(size_text(s) for s in bench.sizes)}")
        print(f"{len({(b.source, b.kernel) for b in selected})} kernels, {len(selected)} entries, "
              f"{sum(len(b.sizes) for b in selected)} rows")
        return 0
    if args.compile:
        if not args.ptx_dir:
            parser.error("--compile needs --ptx-dir")
        return compile_with_tilec(args.compile, selected, args.ptx_dir)
    if args.dry_run:
        return dry_run(selected, args.sizes, args.ptx_dir)
    providers = [p for p in args.providers.split(",") if p]
    unknown = set(providers) - set(PROVIDERS)
    if unknown:
        parser.error(f"unknown providers: {', '.join(sorted(unknown))}")
    if "tilec" in providers and not args.ptx_dir:
        parser.error("--ptx-dir is required to run tilec")

    import triton
    import triton.testing
    if "tilec" in providers:
        import cupy
    if not torch.cuda.is_available():
        print("bench.py: no CUDA device", file=sys.stderr)
        return 77
    torch.cuda.init()
    DEVICE = "cuda"
    sys.modules["suite"].DEVICE = "cuda"

    context = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "GPU": torch.cuda.get_device_name(),
        "versions": f"torch {torch.__version__}, triton {triton.__version__}"
        + (f", cupy {cupy.__version__}" if cupy else ""),
        "timer": f"{args.timer} (median), rep {args.rep} ms"
        + (f", warmup {args.warmup} ms" if args.timer == "do_bench" else ""),
        "copy": "torch copy_ (cudaMemcpyAsync) moving the same bytes: half read, half written",
        "ptx": os.path.abspath(args.ptx_dir) if args.ptx_dir else "-",
    }
    for key, value in context.items():
        print(f"{key}: {value}")
    print("  ".join(f"{c:>14}" for c in header(providers)))

    rows: List[Row] = []
    for bench in selected:
        rows += run_bench(bench, args.sizes or bench.sizes, providers, args)

    failed = [r for r in rows if r.errors or r.check == "MISMATCH"]
    summary = []
    suite_names = {b.name for b in selected if b.family}
    for label, subset in (("all", rows), ("suite", [r for r in rows if r.kernel in suite_names])):
        ratios = [r.ratio() for r in subset if r.ratio()]
        if ratios:
            geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            line = (f"tilec/triton geometric mean ({label}, {len(ratios)} rows): {geomean:.3f}, "
                    f"min {min(ratios):.3f}, rows below 0.95: {sum(r < 0.95 for r in ratios)}")
            print(line)
            summary.append(line)
    context["summary"] = "; ".join(summary) or "-"
    if args.out:
        write_outputs(args.out, rows, providers, context)
    print(f"bench.py: {len(rows)} rows, {len(failed)} with errors or mismatches")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
