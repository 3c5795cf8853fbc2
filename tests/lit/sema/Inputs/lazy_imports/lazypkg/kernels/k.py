import triton
import triton.language as tl

import lazypkg.consts as consts
from lazypkg.kernels.ops import twice


@triton.jit
def lazy_kernel(x_ptr, out_ptr, n):
    offs = tl.arange(0, consts.BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, twice(x), mask=offs < n)
