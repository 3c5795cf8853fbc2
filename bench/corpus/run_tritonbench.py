"""TritonBench-G's kernels through their own test code, every Triton launch checked by tilec_diff.

    python3 bench/corpus/run_tritonbench.py TRITONBENCH_DIR --tilec TILEC --out OUT [--precheck]

TRITONBENCH_DIR is a checkout of https://github.com/thunlp/TritonBench.  Its `data/TritonBench_G_v1`
holds 184 files, each a kernel collected from a public GitHub project together with its host wrapper
and a test that calls the wrapper on CUDA tensors at import (`result_gold = test_x()`).  Each file is
one op here: it runs as a script (`runpy`, `__name__ == "__main__"`), and a `test_*` function that the
file defines but never calls is called afterwards.  Files written for older Triton versions (the
removed `triton.ops`, `tl.dot(trans_b=)`) raise in Triton itself; ops.tsv says so, and they do not
count against tilec.

Each file runs in a process of its own (OUT/<file>/), TRITONBENCH_JOBS at a time (default 4), for at
most --op-timeout seconds: some tests index past their tensors (lightllm's token attention reads
`Req_to_tokens` beyond a row the test shortened), and the illegal address that can follow ends that
process's CUDA context, which would fail every file after it.  Then the table of all of them.

`--precheck` (no GPU): the stand-in triton of fake_triton/, and every `device="cuda"` the tests ask for
made a CPU tensor, so that each launch is compiled by tilec and nothing runs.
"""
import ast
import os
import runpy
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import harness

DEV = harness.setup(__doc__.splitlines()[0])
ROOT = os.path.join(os.path.abspath(harness.args.project), "data", "TritonBench_G_v1")

import torch  # noqa: E402


def _cuda_as_cpu():
    """The pre-check's torch: tensors asked for on "cuda" are made on the CPU (the tests name the
    device in every factory call and `.cuda()`/`.to("cuda")`)."""
    import functools

    def cpu(device):
        if isinstance(device, torch.device):
            return torch.device("cpu") if device.type == "cuda" else device
        if isinstance(device, str) and device.startswith("cuda"):
            return "cpu"
        if isinstance(device, int):
            return "cpu"
        return device

    def factory(fn):
        @functools.wraps(fn)
        def wrapped(*a, **k):
            if "device" in k:
                k["device"] = cpu(k["device"])
            return fn(*a, **k)
        return wrapped

    for name in ("tensor", "empty", "zeros", "ones", "full", "rand", "randn", "randint", "arange", "linspace",
                 "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like",
                 "empty_strided", "eye", "randperm", "as_tensor", "tril_indices", "triu_indices"):
        if hasattr(torch, name):
            setattr(torch, name, factory(getattr(torch, name)))
    tensor_to = torch.Tensor.to

    def to(self, *a, **k):
        a = tuple(cpu(x) if isinstance(x, (str, torch.device)) else x for x in a)
        if "device" in k:
            k["device"] = cpu(k["device"])
        return tensor_to(self, *a, **k)

    torch.Tensor.to = to
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.cuda.is_available = lambda: True
    torch.cuda.current_device = lambda: 0
    torch.cuda.set_device = lambda *a, **k: None
    torch.cuda.manual_seed = lambda *a, **k: None
    torch.cuda.manual_seed_all = lambda *a, **k: None
    torch.cuda.empty_cache = lambda: None
    torch.cuda.device = lambda *a, **k: __import__("contextlib").nullcontext()


if harness.args.precheck:
    _cuda_as_cpu()


def uncalled_tests(path):
    """The `test_*` functions a file defines at its top level and never calls there."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    called = {n.func.id for stmt in tree.body if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef))
              for n in ast.walk(stmt) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return [name for name in defined if name not in called]


def run_file(path):
    torch.manual_seed(0)
    namespace = runpy.run_path(path, run_name="__main__")
    for name in uncalled_tests(path):
        namespace[name]()
    if torch.cuda.is_available() and not harness.args.precheck:
        torch.cuda.synchronize()


def file_op(path):
    return lambda: run_file(path)


OPS = [(os.path.splitext(name)[0], file_op(os.path.join(ROOT, name)))
       for name in sorted(os.listdir(ROOT)) if name.endswith(".py")]



def run_each_file_apart():
    """The parent: one child process per file (this script again, TRITONBENCH_FILE naming it)."""
    out = os.path.abspath(harness.args.out)
    argv = [a for a in sys.argv[1:]]
    if "--out" in argv:
        i = argv.index("--out")
        del argv[i:i + 2]
    jobs = int(os.environ.get("TRITONBENCH_JOBS", "4"))
    names = [name for name, _ in OPS]
    only = harness.args.only.split(",") if harness.args.only else None
    if only:
        names = [n for n in names if any(o in n for o in only)]
    start = time.time()

    def run_one(name):
        folder = os.path.join(out, "tb." + name)  # table.py: the project is the name before the dot
        os.makedirs(folder, exist_ok=True)
        env = dict(os.environ, TRITONBENCH_FILE=name)
        t0 = time.time()
        with open(os.path.join(folder, "run.log"), "w") as log:
            try:
                rc = subprocess.call([sys.executable, os.path.abspath(__file__), *argv, "--out", folder],
                                     stdout=log, stderr=subprocess.STDOUT, env=env,
                                     timeout=harness.args.op_timeout + 60)
            except subprocess.TimeoutExpired:
                rc = "timeout"
        print(f"file {name:40s} {time.time() - t0:6.1f}s exit {rc}", flush=True)

    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(run_one, names))
    print(f"{len(names)} files in {time.time() - start:.0f} s", flush=True)
    folders = sorted(os.path.join(out, "tb." + n) for n in names)
    here = os.path.dirname(os.path.abspath(__file__))
    for markdown, path in ((False, "table.txt"), (True, "table.md")):
        with open(os.path.join(out, path), "w") as f:
            subprocess.call([sys.executable, os.path.join(here, "table.py"), *folders]
                            + (["--markdown"] if markdown else []), stdout=f)


if __name__ == "__main__":
    # Files import their siblings rarely, but their own folder is where Python would look first.
    sys.path.insert(0, ROOT)
    chosen = os.environ.get("TRITONBENCH_FILE")
    if chosen is None:
        run_each_file_apart()
    else:
        harness.run_ops([op for op in OPS if op[0] == chosen])
        harness.finish()
