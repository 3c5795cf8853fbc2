"""What the corpus drivers share: arguments, tilec_diff, stubs of missing modules, one op at a time.

A driver (run_liger.py, run_unsloth.py) lists its ops as `(name, function)` pairs; `main()` sets up the
environment, installs tilec_diff's launch hook, runs every op under its own label in try/except (one
failing op does not stop the run), then writes tilec_diff's report plus ops.tsv (each op's outcome).

Two modes:
- GPU (default): the real Triton launches every kernel; tilec_diff compiles the same specialisation
  with tilec, runs it through CuPy on copies of the inputs and compares.
- `--precheck`: no GPU, no Triton, no CuPy.  The stand-in `triton` of fake_triton/ is put first on
  sys.path, CuPy is replaced by a module whose RawModule refuses to load, and the ops run on CPU
  tensors: each launch is recorded by the same tilec_diff hook and compiled by tilec, nothing runs.
"""
import argparse
import enum
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import logging
import os
import signal
import subprocess
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

PRECHECK_NOT_RUN = "precheck: compiled, not run (no GPU)"
tilec_diff = None
args = None
ops_log = []   # (op, outcome, seconds)


def parse_args(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("project", help="checkout of the public project (outside this repository)")
    p.add_argument("--out", required=True, help="folder for results.json, manifest.tsv, ops.tsv and tilec's PTX")
    p.add_argument("--tilec", required=True, help="the tilec binary")
    p.add_argument("--tilec-diff", default=None,
                   help="tilec_diff.py (default: $TILEC_DIFF, shared/tools/ in the repository, /work/shared/tools)")
    p.add_argument("--precheck", action="store_true",
                   help="no GPU: stand-in triton, CPU tensors, compile only")
    p.add_argument("--only", default=None, help="comma-separated substrings: run only ops whose name has one")
    p.add_argument("--op-timeout", type=int, default=120, help="seconds one op may take (default 120)")
    p.add_argument("--include-dir", action="append", default=[], metavar="DIR",
                   help="a folder tilec searches for imported modules (its -I), e.g. an unsloth-zoo "
                        "checkout; repeat for several")
    p.add_argument("--shard", default="0/1",
                   help="K/N: run every N-th op starting at the K-th (several processes share the work)")
    return p.parse_args()


def find_tilec_diff(explicit):
    candidates = [explicit, os.environ.get("TILEC_DIFF"), os.path.join(REPO, "shared/tools/tilec_diff.py"),
                  "/work/shared/tools/tilec_diff.py"]
    for c in candidates:
        if c and os.path.exists(c):
            return os.path.abspath(c)
    sys.exit("tilec_diff.py not found: pass --tilec-diff")


class _StubClass:
    """A name from a module that is not installed (transformers, unsloth_zoo).

    The kernels never need these: the host files import loggers, base classes to subclass and
    decorators.  Called on one function it returns the function (a decorator such as
    unsloth_zoo's `torch_compile`); otherwise it is an inert object or a base class.
    """

    def __new__(cls, *a, **k):
        if cls is _StubClass and len(a) == 1 and callable(a[0]) and not k:
            return a[0]
        return object.__new__(cls)

    def __init__(self, *a, **k):
        pass

    def __bool__(self):
        # `is_torch_npu_available()` and the like must answer no.
        return False


def _stub_attr(module_name, name, provides):
    if name not in provides.get(module_name, ()):
        # `from transformers.x import Name` inside try/except takes the except path, as when the
        # library is not installed; only the names the kernels' modules need exist.
        raise AttributeError(name)
    if name == "logger":
        return logging.getLogger(module_name)
    if name == "Version":
        return _version_class()
    return type(name, (_StubClass,), {"__module__": module_name})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Creates the modules of `provides` ({dotted name: attribute names}) and their parents;
    any other module under those top-level names is not found, as when not installed."""

    def __init__(self, provides):
        self.provides = provides
        self.known = {".".join(m.split(".")[:i + 1]) for m in provides for i in range(m.count(".") + 1)}

    def find_spec(self, fullname, path, target=None):
        if fullname in self.known:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = types.ModuleType(spec.name)
        m.__path__ = []

        def getattr_(name, _module=spec.name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _stub_attr(_module, name, self.provides)

        m.__getattr__ = getattr_
        return m

    def exec_module(self, module):
        pass


def _version_class():
    try:
        from packaging.version import Version
        return Version
    except ImportError:
        return _SimpleVersion


class _SimpleVersion:
    """Release-number comparison, for machines without `packaging` (`2.4.0.dev1+cu121` -> (2, 4, 0))."""

    def __init__(self, s):
        parts = []
        for p in str(s).split("+")[0].split("."):
            digits = "".join(c for c in p if c.isdigit()) if p[:1].isdigit() else ""
            if not digits:
                break
            parts.append(int(digits))
            if not p.isdigit():
                break
        self.release = tuple(parts)

    def _key(self, other):
        other = other if isinstance(other, _SimpleVersion) else _SimpleVersion(other)
        n = max(len(self.release), len(other.release))
        return self.release + (0,) * (n - len(self.release)), other.release + (0,) * (n - len(other.release))

    def __lt__(self, o): a, b = self._key(o); return a < b
    def __le__(self, o): a, b = self._key(o); return a <= b
    def __gt__(self, o): a, b = self._key(o); return a > b
    def __ge__(self, o): a, b = self._key(o); return a >= b
    def __eq__(self, o): a, b = self._key(o); return a == b
    def __hash__(self): return hash(self.release)


def stub_missing_modules(provides):
    """Stubs the modules of `provides` ({dotted module: attribute names}) whose top-level package is
    not installed, each giving only those attributes (loggers, `Version`, base classes, decorators).
    `packaging`, when missing, gets a working Version."""
    if importlib.util.find_spec("packaging") is None:
        pkg, ver = types.ModuleType("packaging"), types.ModuleType("packaging.version")
        ver.Version, ver.parse, pkg.version, pkg.__path__ = _SimpleVersion, _SimpleVersion, ver, []
        sys.modules.update({"packaging": pkg, "packaging.version": ver})
    missing = {m: set(names) for m, names in provides.items()
               if importlib.util.find_spec(m.split(".")[0]) is None}
    if missing:
        sys.meta_path.insert(0, _StubFinder(missing))
    return sorted(missing)


def _setup_precheck():
    sys.path.insert(0, os.path.join(HERE, "fake_triton"))
    cupy = types.ModuleType("cupy")

    class Function:
        shared_size_bytes = 0

        def __call__(self, *a, **k):
            raise RuntimeError(PRECHECK_NOT_RUN)

    class RawModule:
        # Loading succeeds so that tilec_diff records the compile; the launch refuses.
        def __init__(self, *a, **k):
            pass

        def get_function(self, name):
            return Function()

    cupy.RawModule = RawModule
    sys.modules["cupy"] = cupy
    import torch
    # tilec_diff waits for the GPU after each launch; nothing runs here.
    torch.cuda.synchronize = lambda *a, **k: None
    torch.cuda.get_device_name = lambda *a, **k: "none (precheck: compiled only)"
    # The local CPU torch may be older than the projects expect (1.13 here); these are the names their
    # host code touches at import, none of which matters when no kernel runs.
    if not hasattr(torch, "_disable_dynamo"):
        torch._disable_dynamo = lambda fn=None, recursive=True: fn if fn is not None else (lambda f: f)
    try:
        torch.no_grad(lambda: None)
    except TypeError:
        _no_grad = torch.no_grad

        class no_grad(_no_grad):
            # `@torch.no_grad` without parentheses (torch >= 2.0).
            def __new__(cls, fn=None):
                return _no_grad()(fn) if fn is not None else super().__new__(cls)

            def __init__(self, fn=None):
                super().__init__()

        torch.no_grad = no_grad

        _inference_mode = torch.inference_mode

        class inference_mode(_inference_mode):
            # `@torch.inference_mode` without parentheses (torch >= 2.0).
            def __new__(cls, mode=True):
                return _inference_mode()(mode) if callable(mode) else super().__new__(cls)

            def __init__(self, mode=True):
                super().__init__(mode if isinstance(mode, bool) else True)

        torch.inference_mode = inference_mode
    if not hasattr(torch.distributed, "tensor"):
        torch.distributed.tensor = types.SimpleNamespace(DTensor=type("DTensor", (), {}))
    # Host code sizes per-SM buffers from the device's properties; answer as the H200 would.
    torch.cuda.get_device_properties = lambda *a, **k: types.SimpleNamespace(
        name="NVIDIA H200", multi_processor_count=132, total_memory=141 << 30, major=9, minor=0,
        warp_size=32, max_threads_per_multi_processor=2048, L2_cache_size=60 << 20)
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    if not hasattr(torch, "compiler"):
        torch.compiler = types.SimpleNamespace(disable=lambda fn=None, recursive=True: fn if fn else (lambda f: f),
                                               is_compiling=lambda: False)
    if not hasattr(torch, "float8_e4m3fn"):
        # Only compared against (`W.dtype == torch.float8_e4m3fn`); ops that make fp8 tensors are
        # GPU-only in the pre-check on such a torch.
        torch.float8_e4m3fn = torch.float8_e5m2 = object()
    if not hasattr(torch, "xpu"):
        torch.xpu = types.SimpleNamespace(is_available=lambda: False, device_count=lambda: 0)


def tilec_command(options):
    """The tilec that tilec_diff runs: the binary itself, or, with --include-dir, a script in the
    output folder that runs it with those -I folders (tilec_diff takes one executable)."""
    tilec = os.path.abspath(options.tilec)
    if not options.include_dir:
        return tilec
    wrapper = os.path.join(os.path.abspath(options.out), "tilec-with-includes.sh")
    includes = " ".join(f"-I '{os.path.abspath(d)}'" for d in options.include_dir)
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec '{tilec}' \"$@\" {includes}\n")
    os.chmod(wrapper, 0o755)
    return wrapper


class _TupleElementsInspect:
    """The `inspect` module, but with the elements of tuple arguments also bound by name.

    tilec_diff binds a launch's arguments with inspect.signature(fn).bind(...) and passes each
    parameter of tilec's metadata by its name. tilec takes a tuple argument's run-time elements
    as parameters named after their position (`strides.0`, `ptrs.1.0`), so the bound arguments
    here also hold every element under that name: tilec_diff then finds them, and copies and
    compares the tensors among them like any other tensor argument."""

    def __getattr__(self, name):
        return getattr(inspect, name)

    def signature(self, fn):
        return _TupleElementsSignature(inspect.signature(fn))


class _TupleElementsSignature:
    def __init__(self, signature):
        self.parameters = signature.parameters
        self._signature = signature

    def bind(self, *args, **kwargs):
        return _TupleElementsBound(self._signature.bind(*args, **kwargs))


class _TupleElementsBound:
    def __init__(self, bound):
        self._bound = bound

    def apply_defaults(self):
        self._bound.apply_defaults()

    @property
    def original_arguments(self):
        """The arguments as launched: TensorWrappers still wrapped, for the signature (a wrapper of
        fp8e4b15, which torch lacks, is only bytes once unwrapped)."""
        return dict(self._bound.arguments)

    @property
    def arguments(self):
        arguments = dict(self._bound.arguments)

        def add_elements(name, value):
            for i, element in enumerate(value):
                arguments[f"{name}.{i}"] = element
                if isinstance(element, tuple):
                    add_elements(f"{name}.{i}", element)

        for name, value in self._bound.arguments.items():
            if isinstance(value, tuple):
                add_elements(name, value)
            tensor = wrapped_tensor(value)
            if tensor is not None:
                arguments[name] = tensor
            if is_host_descriptor(value):
                arguments.update(descriptor_parameters(name, value))
        return arguments


# Triton's TensorWrapper (what `triton.reinterpret` and Triton's tests' `to_triton` give for the
# unsigned and fp8 types) seen as the torch dtype of the same name, where torch has one.
_WRAPPED_DTYPES = {"uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
                   "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
                   "fp8e5": "float8_e5m2", "fp8e4nv": "float8_e4m3fn", "fp16": "float16",
                   "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}


def wrapped_tensor(value):
    """A TensorWrapper's memory as a torch tensor of its dtype (None for anything else, or for a
    dtype torch lacks); fp8e4b15, which no torch has, as its bytes (see signature_dtype)."""
    if type(value).__name__ != "TensorWrapper" or not hasattr(value, "base"):
        return None
    import torch
    if isinstance(value.dtype, torch.dtype):  # triton.reinterpret(t, torch.float32)
        return value.base.view(value.dtype)
    if str(value.dtype) == "fp8e4b15":
        return value.base.view(torch.uint8)
    dtype = getattr(torch, _WRAPPED_DTYPES.get(str(value.dtype), ""), None)
    if not isinstance(dtype, torch.dtype):
        return None
    return value.base.view(dtype)


def signature_dtype(value, tensor, dtypes):
    """The signature's element type of a tensor argument (`tensor`, the torch tensor that
    `value` is or wraps): Triton's own dtype for a TensorWrapper of fp8e4b15."""
    if type(value).__name__ == "TensorWrapper" and str(value.dtype) == "fp8e4b15":
        return "fp8e4b15"
    return dtypes[tensor.dtype]


def descriptor_base(desc):
    """A host TensorDescriptor's base as a torch tensor (Triton's tests make descriptors of the
    TensorWrappers their to_triton gives for unsigned types)."""
    tensor = wrapped_tensor(desc.base)
    return desc.base if tensor is None else tensor


def is_host_descriptor(value):
    return type(value).__name__ == "TensorDescriptor" and hasattr(value, "block_shape")


def descriptor_parameters(name, desc):
    """The parameters tilec's kernel takes for a host TensorDescriptor argument (docs/metadata.md,
    "Tensor descriptors"): base, shape, strides, padding flag."""
    parameters = {f"{name}.base": descriptor_base(desc)}
    for d, n in enumerate(desc.shape):
        parameters[f"{name}.shape.{d}"] = int(n)
    for d, n in enumerate(desc.strides):
        parameters[f"{name}.strides.{d}"] = int(n)
    parameters[f"{name}.padding_nan"] = getattr(desc, "padding", "zero") == "nan"
    return parameters


def install_tilec_diff(tilec, out, explicit_tilec_diff=None):
    """Imports tilec_diff, adapts it (below) and installs its launch hook: every Triton launch from
    now on is compiled by `tilec` too and compared; results go to `out`. Returns the module."""
    path = find_tilec_diff(explicit_tilec_diff)
    sys.path.insert(0, os.path.dirname(path))
    import tilec_diff as td
    import torch
    # tilec_diff's dtype table predates fp8 tensors; the signature syntax has them (`*fp8e4nv`).
    for tname, sig in (("float8_e4m3fn", "fp8e4nv"), ("float8_e5m2", "fp8e5"), ("uint16", "u16"),
                       ("uint32", "u32"), ("uint64", "u64")):
        if isinstance(getattr(torch, tname, None), torch.dtype):
            td.DT.setdefault(getattr(torch, tname), sig)
    # tilec_diff copies each tensor argument with empty_strided + copy_, which torch refuses for a
    # view whose elements overlap (an expanded tensor with a zero stride, as unsloth's cross-entropy
    # backward passes); copy the memory span the view covers instead, keeping its exact layout.
    td.copy_like = copy_span
    # tilec_diff compares the bits through view(torch.uint8), which torch refuses for a 0-d tensor
    # (Liger's poly norm passes a scalar weight): compare those as 1-element tensors.
    compare = td.compare
    signed = {getattr(torch, u, None): getattr(torch, i) for u, i in
              (("uint16", "int16"), ("uint32", "int32"), ("uint64", "int64"))}

    def compare_any(a, b):
        if a.dim() == 0:
            a, b = a.reshape(1), b.reshape(1)
        if a.stride(-1) != 1 or b.stride(-1) != 1:
            # view(torch.uint8) needs a unit last stride (vLLM's causal_conv1d passes a state
            # cache sliced along its last dimension; torchao a [M, 1] column whose contiguous()
            # keeps its stride): compare fresh row-major copies.
            fresh = lambda t: torch.empty(t.shape, dtype=t.dtype, device=t.device).copy_(t)
            a, b = fresh(a), fresh(b)
        if a.dtype in signed:
            a, b = a.view(signed[a.dtype]), b.view(signed[b.dtype])
        return compare(a, b)

    td.compare = compare_any
    # Tuple arguments: a tuple entry of tilec's signature syntax for each, each element specialised
    # as Triton's JIT specialises it (a 1 is the literal, an aligned pointer `:16`...); the
    # elements are passed to tilec's kernel by their names (_TupleElementsInspect).
    sig_entry = td.sig_entry

    def tuple_sig_entry(name, value, is_constexpr, nospec):
        tensor = wrapped_tensor(value)
        if tensor is not None and not is_constexpr:
            return ("*" + signature_dtype(value, tensor, td.DT) +
                    (":16" if tensor.data_ptr() % 16 == 0 else ""))
        if is_host_descriptor(value) and not is_constexpr:
            base = descriptor_base(value)
            return (f"tensordesc<{signature_dtype(value.base, base, td.DT)}"
                    f"[{', '.join(str(int(b)) for b in value.block_shape)}]>")
        if isinstance(value, enum.Enum) and isinstance(value, (int, float)) and not isinstance(value, bool):
            # An IntEnum member (lmdeploy's QuantPolicy.TURBO_QUANT): Triton's JIT takes it as the
            # number it is.
            number = int(value) if isinstance(value, int) else float(value)
            return tuple_sig_entry(name, number, is_constexpr, nospec)
        if type(value).__name__ == "constexpr" and hasattr(value, "value"):
            return sig_entry(name, value.value, True, nospec)  # tl.constexpr(4) in a tuple
        if function_text(value) is not None and not isinstance(value, tuple):
            # A function is a constexpr, in a tuple too (a namedtuple of a function and its
            # arguments, Triton's test_namedtuple).
            return function_text(value)
        # A typing.NamedTuple is written with its class: Class(e0,e1,...).
        prefix = type(value).__name__ if isinstance(value, tuple) and hasattr(type(value), "_fields") else ""
        if is_constexpr and isinstance(value, (tuple, list)):
            # A constexpr tuple (torch.Size included) is a tuple of literals.
            elements = [tuple_sig_entry(name, v, True, nospec) for v in value]
            return prefix + "(" + ",".join(elements) + ("," if len(elements) == 1 else "") + ")"
        if isinstance(value, int) and not isinstance(value, bool) and not is_constexpr and value >= 2**63:
            # Triton's JIT types an integer argument of 2**63 or more as u64.
            return "u64" + (":16" if value % 16 == 0 and not nospec else "")
        if not isinstance(value, tuple) or is_constexpr:
            return sig_entry(name, value, is_constexpr, nospec)
        elements = [tuple_sig_entry(name, v, False, nospec) for v in value]
        return prefix + "(" + ",".join(elements) + ("," if len(elements) == 1 else "") + ")"

    td.sig_entry = tuple_sig_entry
    td.inspect = _TupleElementsInspect()
    # A kernel that writes its own TMA tensor maps (descriptors made in the kernel; metadata
    # member global_scratch, docs/metadata.md) takes global scratch as a last parameter, which
    # tilec_diff's launch does not pass: allocate it (size per program times the grid) and append it.
    os.makedirs(out, exist_ok=True)
    td.install(tilec, os.path.abspath(out))
    from triton.runtime.jit import JITFunction
    JITFunction.run = lambda self, *a, **k: hooked_run(td, self, *a, **k)
    return td


def hooked_run(td, self, *args, grid, warmup, **kwargs):
    """tilec_diff's launch hook, for the kernel exactly as Triton launches it (compile_and_load):
    Triton runs, then tilec's kernel for the same specialisation runs on copies of the pre-launch
    tensors, and every tensor argument is compared."""
    import numpy as np
    import torch
    if warmup:
        return td.orig_run(self, *args, grid=grid, warmup=warmup, **kwargs)
    names = list(inspect.signature(self.fn).parameters)
    call_kwargs = {k: v for k, v in kwargs.items() if k in names}
    ba = td.inspect.signature(self.fn).bind(*args, **call_kwargs)
    ba.apply_defaults()
    bound = dict(ba.arguments)
    launched = getattr(ba, "original_arguments", bound)
    warps = kwargs.get("num_warps", 4) or 4
    stages = kwargs.get("num_stages", 3) or 3
    cexpr = {p.name for p in self.params if p.is_constexpr}
    nospec = {p.name for p in self.params if getattr(p, "do_not_specialize", False)}
    annotated = {p.name: p for p in self.params if getattr(p, "annotation_type", "")}
    try:
        sig = ",".join(annotated_sig_entry(annotated[n], launched[n], n in nospec)
                       if n in annotated and n not in cexpr
                       else td.sig_entry(n, launched[n], n in cexpr, n in nospec) for n in names)
    except Exception:
        sig = None
    path = self.fn.__code__.co_filename
    source = kernel_source_file(self, path)
    key = (os.path.basename(source), self.fn.__name__, sig, warps, stages)
    # The grid first: a grid function may fill the kernel's inputs (vLLM's causal_conv1d writes its
    # program-to-sequence tables while it counts the programs), and Triton's launch calls it
    # before its kernel runs too.
    g = grid(bound | dict(kwargs)) if callable(grid) else grid
    g = tuple(g) + (1,) * (3 - len(g))
    tensors = {n: v for n, v in bound.items() if isinstance(v, torch.Tensor)}
    pre = {n: td.copy_like(v) for n, v in tensors.items()}
    shared = shared_storages(tensors)  # views of one tensor under several dtypes or shapes
    ret = td.orig_run(self, *args, grid=grid, warmup=warmup, **kwargs)
    if key in td.results:
        return ret
    if sig is None:
        td.results[key] = {"op": td.current_op[0], "compiled": False, "error": "harness: unsupported argument"}
        return ret
    torch.cuda.synchronize()
    rec = {"op": td.current_op[0]}
    td.results[key] = rec
    try:
        debug = bool(kwargs.get("debug", getattr(self, "debug", None)))  # a launch's debug=True
        t = compile_and_load(td, self, source, sig, warps, stages, g, debug=debug)
        rec.update({k: v for k, v in t.items() if k in ("compiled", "ms", "error", "cmd")})
        if not t["compiled"]:
            return ret
        mine, by_view = {}, {}  # arguments that alias one tensor in Triton's launch alias one copy here too
        for n, v in tensors.items():
            key = v.untyped_storage().data_ptr() if shared else None
            if key in shared:  # the pre-launch snapshot serves this one launch: no second copy
                mine[n] = view_of_storage(shared[key], v)
                continue
            view = (v.data_ptr(), tuple(v.size()), tuple(v.stride()), v.dtype)
            if view not in by_view:
                by_view[view] = td.copy_like(pre[n])
            mine[n] = by_view[view]
        argv = []
        for p in t["k"]["params"]:
            v = mine[p["name"]] if p["name"] in mine else bound[p["name"]]
            ty = p["type"]
            if ty.startswith("*"):
                argv.append(np.uint64(v.data_ptr()))
            elif ty in ("i32", "i1", "u32", "i16", "i8", "u8", "u16"):
                argv.append(np.int32(v) if ty != "u32" else np.uint32(v))
            elif ty in ("i64", "u64"):
                argv.append(np.int64(v) if ty == "i64" else np.uint64(v))
            elif ty == "fp32":
                argv.append(np.float32(v))
            elif ty == "fp64":
                argv.append(np.float64(v))
            else:
                raise ValueError(ty)
        # A grid with no program (TritonBench's `src.shape[0] // BLOCK_SIZE` with BLOCK_SIZE above the
        # size) launches nothing in Triton; CUDA would refuse or run the launch, so tilec's is skipped too.
        if min(g) > 0:
            t["fn"](g, (32 * warps, 1, 1), tuple(argv), shared_mem=t["dyn"])
        torch.cuda.synchronize()
        worst = {"same_bits": True, "bad": 0, "maxdiff": 0.0}
        differing = []  # which arguments differ, and where: the first lead when results are only close
        for n, v in tensors.items():
            sb, bad, md = td.compare(mine[n], v)
            worst["same_bits"] &= sb
            worst["bad"] += bad
            worst["maxdiff"] = max(worst["maxdiff"], md)
            if not sb:
                differing.append(describe_difference(n, mine[n], v, md))
        rec.update(worst)
        if differing:
            rec["differing"] = differing
            if os.environ.get("TILEC_CORPUS_RECHECK") == "1":
                rec["recheck"] = recheck(td, self, grid, kwargs, launched, pre, tensors, mine, t, g, argv, warps)
            if os.environ.get("TILEC_CORPUS_DUMP") and os.environ["TILEC_CORPUS_DUMP"] in self.fn.__name__:
                rec["dump"] = dump_launch(td, self, source, sig, warps, stages, g, bound, pre, tensors, mine, t)
        rec["ran"] = True
    except Exception as e:
        rec["ran"] = False
        rec["run_error"] = f"{type(e).__name__}: {e}"[:300]
    return ret


def annotated_sig_entry(param, value, nospec):
    """The signature entry of a runtime parameter annotated with a type (`M: tl.int64`, torchao's
    jagged scales): Triton's JIT types it by the annotation, and specialises an integer's
    divisibility (not its being 1) and a pointer's alignment, a float or a bool not at all
    (create_function_from_signature)."""
    ty = param.annotation_type
    if not isinstance(ty, str) or ty == "u1" or ty[:2] in ("fp", "bf") or isinstance(value, bool) or nospec:
        return ty
    if isinstance(value, int):
        return ty + (":16" if value != 1 and value % 16 == 0 else "")
    if hasattr(value, "data_ptr"):
        return ty + (":16" if value.data_ptr() % 16 == 0 else "")
    return ty


def recheck(td, jit, grid, kwargs, launched, pre, theirs, mine, loaded, grid3, argv, warps):
    """For a launch whose results differ: both compilers run once more, each on fresh copies of the
    pre-launch tensors, so that the record says whether each result is reproducible and whether the
    difference is (a nondeterministic kernel, or a harness that did not see Triton's launch as
    tilec's replay of it, shows here). TILEC_CORPUS_RECHECK=1 turns it on. Unlike the first
    run, arguments that alias one tensor get separate copies here: for such kernels only the
    reproducibility columns are meaningful. Triton is called with the arguments as launched
    (`launched`: a TensorDescriptor whole, where `bound` has its parts), fresh copies in place of
    the tensors among them; a descriptor's tensor is not copied again."""
    import numpy as np
    import torch
    torch.cuda.synchronize()
    again = {n: td.copy_like(v) for n, v in pre.items()}
    call = dict(kwargs)
    call.update({n: again.get(n, v) for n, v in launched.items()})
    td.orig_run(jit, grid=grid, warmup=False, **call)
    mine_again = {n: td.copy_like(v) for n, v in pre.items()}
    replaced = [np.uint64(mine_again[p["name"]].data_ptr()) if p["name"] in mine_again and p["type"].startswith("*")
                else a for p, a in zip(loaded["k"]["params"], argv)]
    if min(grid3) > 0:
        loaded["fn"](grid3, (32 * warps, 1, 1), tuple(replaced), shared_mem=loaded["dyn"])
    torch.cuda.synchronize()
    same = lambda a, b: td.compare(a, b)[0]
    return {n: {"triton_reproducible": same(again[n], theirs[n]), "tilec_reproducible": same(mine_again[n], mine[n]),
                "tilec_vs_triton_again": same(mine[n], again[n])} for n in theirs if n in launched}


def dump_launch(td, jit, source, sig, warps, stages, grid3, bound, pre, theirs, mine, loaded):
    """Saves a launch whose results differ (TILEC_CORPUS_DUMP=<part of the kernel's name>) for
    bench/corpus/replay.py: the pre-launch tensors, the other arguments, both results, tilec's
    PTX and command, and the TRITON_* environment Triton compiled under. Returns the file."""
    import torch
    path = os.path.join(td.OUT, f"dump_{jit.fn.__name__}_{abs(hash(sig)) % 10**6}.pt")
    torch.save({"source": source, "kernel": jit.fn.__name__, "sig": sig, "warps": warps, "stages": stages,
                "grid": grid3, "pre": {n: v.cpu() for n, v in pre.items()},
                "scalars": {n: v for n, v in bound.items() if n not in pre and isinstance(v, (int, float, bool, str, type(None)))},
                "triton": {n: v.cpu() for n, v in theirs.items()}, "tilec": {n: v.cpu() for n, v in mine.items()},
                "ptx": open(loaded["ptx"]).read(), "meta": loaded["k"], "cmd": loaded["cmd"],
                "env": {k: v for k, v in os.environ.items() if k.startswith(("TRITON", "FLA", "TILEC"))}}, path)
    return path


def describe_difference(name, mine, theirs, maxdiff):
    """Argument `name`'s elements whose bits differ between tilec's result and Triton's: how many,
    the first few flat indices, and both values there."""
    import torch
    a = mine.reshape(-1).clone()
    b = theirs.reshape(-1).clone()
    width = a.element_size()
    differs = (a.view(torch.uint8).view(-1, width) != b.view(torch.uint8).view(-1, width)).any(1)
    first = differs.nonzero().view(-1)[:6].tolist()
    return {"arg": name, "dtype": str(theirs.dtype), "shape": list(theirs.shape),
            "elements": int(differs.sum()), "maxdiff": maxdiff, "first": first,
            "tilec": [float(a[i]) for i in first], "triton": [float(b[i]) for i in first]}


def kernel_source_file(jit, path):
    """The file tilec compiles for the JITFunction `jit` defined in `path`: `path` itself, unless
    the launched source differs from the file's (Triton's tests patch a template kernel's source
    before launching it, `GENERATE_TEST_HERE` replaced by the expression under test): then a copy of
    the file, next to it (so that its imports resolve), with the function's text replaced."""
    import textwrap
    fn = getattr(jit, "fn", None)
    src = getattr(jit, "src", None)
    if fn is None or src is None:
        return path
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return path
    import re
    original = textwrap.dedent("".join(lines))
    match = re.search(r"^def\s+\w+\s*\(", original, re.MULTILINE)  # where Triton's src starts
    if match is None or original[match.start():] == src:
        return path
    def_index = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    indent = lines[def_index][:len(lines[def_index]) - len(lines[def_index].lstrip())]
    with open(path) as f:
        text = f.readlines()
    begin = first - 1 + def_index
    end = first - 1 + len(lines)
    patched = [indent + line if line.strip() else line for line in src.splitlines(True)]
    if patched and not patched[-1].endswith("\n"):
        patched[-1] += "\n"
    text[begin:end] = patched
    import hashlib
    digest = hashlib.sha1("".join(patched).encode()).hexdigest()[:10]
    copy = os.path.join(os.path.dirname(path), f"_tilec_patched_{digest}_{os.path.splitext(os.path.basename(path))[0]}_py.py")
    if not os.path.exists(copy):
        with open(copy + ".tmp", "w") as f:
            f.writelines(text)
        os.replace(copy + ".tmp", copy)
    return copy


def function_text(value):
    """A function passed for a tl.constexpr (tl.extra.cuda.globaltimer, a @triton.jit activation)
    as tilec names it: MODULE.QUALNAME, its __module__ and __qualname__ (README, "Using tilec");
    None for any other value."""
    fn = getattr(value, "fn", value)  # a JITFunction wraps the Python function
    if not callable(fn) or isinstance(fn, type):
        return None
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else None


def _define_text(value):
    """A closure value as tilec's -D NAME=VALUE takes it, or None when it has no such spelling."""
    import triton.language as tl
    if type(value).__name__ == "constexpr" and hasattr(value, "value"):
        value = value.value
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tl.dtype):
        return "tl." + str(value).replace("fp8e4nv", "float8e4nv").replace("fp8e5", "float8e5")
    return function_text(value)


def closure_defines(jit):
    """-D bindings for the variables a nested kernel reads from its enclosing function (and those
    its nested @triton.jit helpers read), where the value has a -D spelling."""
    defines, seen = {}, set()

    def visit(fn):
        if fn is None or id(fn) in seen:
            return
        seen.add(id(fn))
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if hasattr(value, "fn") and hasattr(value, "src"):
                visit(value.fn)  # a @triton.jit helper of the enclosing function
                continue
            text = _define_text(value)
            if text is not None:
                defines.setdefault(name, text)

    visit(getattr(jit, "fn", None))
    return defines


def _triton_libdevice():
    """The libdevice.10.bc in Triton's wheel, which Triton links (its erf, tanh... differ in the last
    bit from the CUDA toolkit's copy tilec links by default), or None."""
    try:
        import triton
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "lib", "libdevice.10.bc")
    return path if os.path.exists(path) else None


def compile_and_load(td, jit, source, sig, warps, stages, grid, debug=False):
    """tilec_diff's compile-and-load, for the kernel exactly as launched: a kernel nested in a
    function is named by its qualified name (Triton's tests define several `kernel`s in one file),
    the enclosing function's variables it reads are given with -D, and a patched source is compiled
    from a patched copy of the file. Host TensorDescriptor kernels whose loads use TMA get their
    tensor maps built per launch (bench/tensormap.py). `debug`: the launch is in Triton's debug
    mode (device assertions kept): tilec gets --debug (TRITON_DEBUG reaches it through the
    environment, @triton.jit(debug=True) through the source)."""
    import cupy as cp
    import torch
    name = jit.fn.__name__
    qualname = jit.fn.__qualname__
    key_file = os.path.join(td.OUT, f"{name}_{abs(hash((sig, qualname, source, debug))) % 10**8}_{warps}_{stages}")
    cmd = [td.TILEC, source, "-k", qualname if "<locals>" in qualname else name, "-s", sig,
           "--num-warps", str(warps), "--num-stages", str(stages), "--arch", "sm_90a",
           "-o", key_file + ".ptx"] + (["--debug"] if debug else [])
    for define, text in (closure_defines(jit).items() if "<locals>" in qualname else ()):
        cmd += ["-D", f"{define}={text}"]
    if _triton_libdevice():
        cmd += ["--libdevice", _triton_libdevice()]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    ms = (time.time() - t0) * 1e3
    if r.returncode != 0:
        err = [l for l in r.stderr.splitlines() if "error" in l][:1]
        return {"compiled": False, "ms": ms, "cmd": " ".join(cmd),
                "error": (err[0] if err else r.stderr[-200:]).split(": error: ")[-1]}
    with open(key_file + ".json") as f:
        meta = json.load(f)
    k = [k for k in meta["kernels"] if k["name"] == name][0]
    mod = cp.RawModule(path=key_file + ".ptx")
    fn = mod.get_function(k["entry"])
    dyn = max(0, k.get("shared_memory_bytes", 0) - fn.shared_size_bytes)
    if dyn > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = dyn
    if k.get("tensor_maps"):
        fn = _launcher_with_tensor_maps(k, fn)
    # A kernel that writes its own TMA tensor maps (descriptors made in the kernel; metadata
    # member global_scratch, docs/metadata.md) takes global scratch as a last parameter:
    # allocate it (size per program times the grid) and append it.
    size = k.get("global_scratch", {}).get("size", 0)
    if size and torch.cuda.is_available():  # (the pre-check launches nothing)
        import numpy
        programs = grid[0] * grid[1] * grid[2]
        scratch = torch.empty(size * programs, dtype=torch.int8, device="cuda")
        launch = fn

        def fn(g, block, argv, _launch=launch, _scratch=scratch, **kwargs):
            return _launch(g, block, tuple(argv) + (numpy.uint64(_scratch.data_ptr()),), **kwargs)
    return {"compiled": True, "ms": ms, "fn": fn, "k": k, "dyn": dyn, "mod": mod, "cmd": " ".join(cmd),
            "ptx": key_file + ".ptx"}


def _launcher_with_tensor_maps(info, function):
    """A launch(grid, block, argv, shared_mem=) that appends the kernel's CUtensorMaps, built from
    the descriptor parameters in argv, as hidden parameters (CuPy cannot pass 128-byte structs)."""
    bench = os.path.join(REPO, "bench")
    if bench not in sys.path:  # (once, not at every compile)
        sys.path.insert(0, bench)
    import tensormap
    import cupy as cp
    import torch

    def launch(grid, block, argv, shared_mem=0):
        packed, trailing = argv[:len(info["params"])], tuple(argv[len(info["params"]):])
        maps = tensormap.build(info, [int(v) for v in packed])
        params = tensormap.KernelParams(packed, maps, trailing)
        cp.cuda.driver.launchKernel(getattr(function, "kernel", function).ptr, grid[0], grid[1], grid[2],
                                    *block, shared_mem, torch.cuda.current_stream().cuda_stream,
                                    params.pointer, 0)

    return launch


def setup(description):
    """Parses the arguments, prepares the mode, installs tilec_diff; returns the device for tensors."""
    global tilec_diff, args
    args = parse_args(description)
    if args.precheck:
        _setup_precheck()
    os.makedirs(args.out, exist_ok=True)
    tilec_diff = install_tilec_diff(tilec_command(args), args.out, args.tilec_diff)
    return "cpu" if args.precheck else "cuda"


class OpTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise OpTimeout(f"op took longer than {args.op_timeout} s")


def shared_storages(tensors):
    """For each storage that several of the arguments view differently (lmdeploy's FP8 cache, passed
    as e4m3, bf16 and uint8 views of one buffer), a byte copy of the whole storage before the launch:
    tilec's kernel then writes through views of one copy, as Triton's writes through views of one
    buffer, and each view compares what both wrote through any of them."""
    import torch
    if not hasattr(torch.Tensor, "untyped_storage"):
        return {}  # an old CPU torch (the pre-check): nothing runs there anyway
    views = {}
    for v in tensors.values():
        key = v.untyped_storage().data_ptr()
        views.setdefault(key, set()).add((v.data_ptr(), tuple(v.size()), tuple(v.stride()), v.dtype))
    snapshots = {}
    for v in tensors.values():
        key = v.untyped_storage().data_ptr()
        if len(views[key]) > 1 and key not in snapshots:
            whole = torch.empty(0, dtype=torch.uint8, device=v.device).set_(v.untyped_storage())
            snapshots[key] = whole.clone()
    return snapshots


def view_of_storage(storage_bytes, like):
    """The view `like` is of its storage, on `storage_bytes` (a uint8 copy of that storage)."""
    import torch
    return torch.empty(0, dtype=like.dtype, device=like.device).set_(
        storage_bytes.untyped_storage(), like.storage_offset(), like.size(), like.stride())


def copy_span(t):
    """A copy of `t` with the same sizes, strides and overlaps: the memory its view spans, copied."""
    span = 1 + sum((n - 1) * st for n, st in zip(t.size(), t.stride())) if t.numel() else 0
    base = t.new_empty(span)
    if span:
        base.copy_(t.as_strided((span,), (1,)))
    return base.as_strided(t.size(), t.stride())


def run_ops(ops, gpu_only=None):
    """Runs each op under its label.  `gpu_only` maps op names to why the pre-check cannot run them
    (host code that sizes its work from what the kernels computed, a dtype the local torch lacks)."""
    gpu_only = gpu_only or {}
    only = args.only.split(",") if args.only else None
    shard, shards = (int(x) for x in args.shard.split("/"))
    signal.signal(signal.SIGALRM, _on_alarm)
    for index, (name, fn) in enumerate(ops):
        if index % shards != shard:
            continue
        if only and not any(o in name for o in only):
            continue
        skip = [why for g, why in gpu_only.items() if name.startswith(g + "/") or name == g]
        if args.precheck and skip:
            ops_log.append((name, f"skipped in the pre-check: {skip[0]}", 0.0))
            print(f"op {name:48s} skipped: {skip[0]}", flush=True)
            continue
        tilec_diff.label(name)
        t0 = time.time()
        signal.alarm(args.op_timeout)
        try:
            fn()
            outcome = "ok"
        except Exception as e:
            outcome = f"error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
            traceback.print_exc(limit=-3)
        finally:
            signal.alarm(0)
        dt = time.time() - t0
        ops_log.append((name, outcome, dt))
        print(f"op {name:48s} {dt:6.1f}s {outcome}", flush=True)
        _write_results()


def _write_results():
    # tilec_diff writes results.json only in report(); keep a copy current so that a run cut
    # short (a timeout on the GPU machine) still leaves what it saw.
    rows = [{"file": f, "kernel": k, "sig": s, "warps": w, "stages": st, **r}
            for (f, k, s, w, st), r in tilec_diff.results.items()]
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)


def finish():
    tilec_diff.report()
    with open(os.path.join(args.out, "ops.tsv"), "w") as f:
        f.write("# op\toutcome\tseconds\n")
        for name, outcome, dt in ops_log:
            f.write(f"{name}\t{outcome}\t{dt:.2f}\n")
    failed = [o for o in ops_log if o[1] != "ok"]
    print(f"ops: {len(ops_log)} run, {len(failed)} raised in the host code")
