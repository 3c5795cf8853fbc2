import triton
import triton.language as tl

from mathlib import find_function, first_long_name

rsqrt = find_function("rsqrt")
WORD, WORD_LENGTH = first_long_name(("ab", "abc", "abcdef", "x"))


@triton.jit
def uses_found(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(WORD_LENGTH == 6)
    tl.static_assert(len("h\u00e9llo") == 5 and len("héllo") == 5)
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, rsqrt(tl.load(x_ptr + offs)))


@triton.jit
def walrus_in_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if (y := tl.load(x_ptr + offs)) is not None:
        tl.store(x_ptr + offs, y)


def host_lambda():
    return (lambda v: v)(3)


THREE = host_lambda()


@triton.jit
def uses_lambda(x_ptr):
    tl.store(x_ptr, THREE)
