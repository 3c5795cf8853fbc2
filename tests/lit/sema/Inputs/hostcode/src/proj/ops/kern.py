import triton
import triton.language as tl

from proj import LOOP
from proj.utils import block_for, is_accelerator_available, ordinary, unguarded

if not is_accelerator_available():
    from triton.language.extra.libdevice import rsqrt
else:
    from triton.language.math import rsqrt

BLOCK = block_for(ordinary(6) * 32)
WIDTH = unguarded()


@triton.jit
def k(X):
    # rsqrt(4) * BLOCK: 64 when BLOCK = 128.
    tl.store(X + tl.arange(0, 2), rsqrt(tl.full((2,), 4.0, tl.float32)) * BLOCK)


@triton.jit
def k_width(X):
    tl.store(X, WIDTH)


@triton.jit
def k_call_in_kernel(X):
    tl.store(X, ordinary(3))


@triton.jit
def k_loop(X):
    tl.store(X, LOOP)
