import triton
import triton.language as tl

import probe

erf = probe.math_lib.erf


@triton.autotune(configs=probe.get_tuned_config("scale"), key=["n"])
@triton.jit
def tuned_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@triton.heuristics(probe.get_heuristic_config("scale"))
@triton.jit
def heuristic_kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)
    else:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@triton.jit
def erf_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, erf(tl.load(x_ptr + offs)))


from probe import math_lib  # noqa: E402


@triton.jit
def library_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, math_lib.erf(tl.load(x_ptr + offs)))
