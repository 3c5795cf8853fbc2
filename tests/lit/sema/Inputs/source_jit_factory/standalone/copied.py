import triton.language as tl

from ops.aot import aot_triton


@aot_triton(key=["n"])
def negate(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, -tl.load(x_ptr + offs, mask=mask), mask=mask)
