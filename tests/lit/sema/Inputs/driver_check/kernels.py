import triton
import triton.language as tl
from detect import CHECKED, USABLE


@triton.jit
def flags_kernel(out_ptr, U: tl.constexpr = USABLE, C: tl.constexpr = CHECKED):
    tl.store(out_ptr, U * 10 + C)
