import triton
import triton.language as tl

SHIFT = 5


@triton.jit
def shifted(x):
    return x + SHIFT
