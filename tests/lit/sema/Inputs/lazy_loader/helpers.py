import triton
import triton.language as tl


@triton.jit
def double(x):
    return x * 2.0


@triton.jit
def add_three(x):
    return x + 3.0
