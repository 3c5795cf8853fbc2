"""A stand-in for the `triton` package, used only by bench/corpus/precheck.py.

It has what the host code of Triton projects touches at import and launch time, so that their ops
can be driven on CPU tensors without a GPU: `kernel[grid](...)` runs nothing.  The pre-check installs
tilec_diff's hook over `JITFunction.run`, which records each launch's specialisation and compiles it
with tilec.  Nothing outside the pre-check may put this folder on `sys.path`.
"""

__version__ = "3.6.0"

from . import compiler, language, runtime, testing, tools  # noqa: E402,F401
from .runtime.autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: E402,F401
from .runtime.errors import OutOfResources  # noqa: E402,F401
from .runtime.jit import JITFunction, KernelInterface, jit  # noqa: E402,F401


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def set_allocator(allocator):
    # Only kernels that use tensor descriptors allocate scratch memory; nothing runs here.
    pass
