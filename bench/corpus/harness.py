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
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import logging
import os
import signal
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
        return arguments


def install_tilec_diff(tilec, out, explicit_tilec_diff=None):
    """Imports tilec_diff, adapts it (below) and installs its launch hook: every Triton launch from
    now on is compiled by `tilec` too and compared; results go to `out`. Returns the module."""
    path = find_tilec_diff(explicit_tilec_diff)
    sys.path.insert(0, os.path.dirname(path))
    import tilec_diff as td
    import torch
    # tilec_diff's dtype table predates fp8 tensors; the signature syntax has them (`*fp8e4nv`).
    for tname, sig in (("float8_e4m3fn", "fp8e4nv"), ("float8_e5m2", "fp8e5")):
        if isinstance(getattr(torch, tname, None), torch.dtype):
            td.DT.setdefault(getattr(torch, tname), sig)
    # tilec_diff copies each tensor argument with empty_strided + copy_, which torch refuses for a
    # view whose elements overlap (an expanded tensor with a zero stride, as unsloth's cross-entropy
    # backward passes); copy the memory span the view covers instead, keeping its exact layout.
    td.copy_like = copy_span
    # tilec_diff compares the bits through view(torch.uint8), which torch refuses for a 0-d tensor
    # (Liger's poly norm passes a scalar weight): compare those as 1-element tensors.
    compare = td.compare
    td.compare = lambda a, b: compare(a.reshape(1), b.reshape(1)) if a.dim() == 0 else compare(a, b)
    # Tuple arguments: a tuple entry of tilec's signature syntax for each, each element specialised
    # as Triton's JIT specialises it (a 1 is the literal, an aligned pointer `:16`...); the
    # elements are passed to tilec's kernel by their names (_TupleElementsInspect).
    sig_entry = td.sig_entry

    def tuple_sig_entry(name, value, is_constexpr, nospec):
        if not isinstance(value, tuple) or is_constexpr:
            return sig_entry(name, value, is_constexpr, nospec)
        elements = [tuple_sig_entry(name, v, False, nospec) for v in value]
        return "(" + ",".join(elements) + ("," if len(elements) == 1 else "") + ")"

    td.sig_entry = tuple_sig_entry
    td.inspect = _TupleElementsInspect()
    # A kernel that writes its own TMA tensor maps (descriptors made in the kernel; metadata
    # member global_scratch, docs/metadata.md) takes global scratch as a last parameter, which
    # tilec_diff's launch does not pass: allocate it (size per program times the grid) and append it.
    compile_and_load = td.tilec_launch

    def tilec_launch(path, name, sig, warps, stages, bound, grid):
        t = compile_and_load(path, name, sig, warps, stages, bound, grid)
        size = t["k"].get("global_scratch", {}).get("size", 0) if t.get("compiled") else 0
        if size and torch.cuda.is_available():  # (the pre-check launches nothing)
            import numpy
            programs = 1
            for g in grid:
                programs *= g
            scratch = torch.empty(size * programs, dtype=torch.int8, device="cuda")
            launch = t["fn"]

            def launch_with_scratch(g, block, argv, **kwargs):
                return launch(g, block, tuple(argv) + (numpy.uint64(scratch.data_ptr()),), **kwargs)

            t["fn"] = launch_with_scratch
        return t

    td.tilec_launch = tilec_launch
    os.makedirs(out, exist_ok=True)
    td.install(tilec, os.path.abspath(out))
    return td


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
