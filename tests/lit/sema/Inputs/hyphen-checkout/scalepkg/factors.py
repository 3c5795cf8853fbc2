import triton
import triton.language as tl

FACTOR = 3


@triton.jit
def triple(x):
    return x * FACTOR
