import triton
import triton.language as tl

from pkg.ops.scale import FACTOR


@triton.jit
def scaled(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.full([16], FACTOR, tl.float32))
