import triton
import triton.language as tl


@triton.jit
def triple(x):
    return x * 3


@triton.jit
def plus_offset(x):
    return x + OFFSET


OFFSET: tl.constexpr = 100
