import triton
import triton.language as tl

from kernels import IS_HOPPER

NUM_WARPS = [2, 4] if IS_HOPPER else [2, 4, 8]


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=w) for w in NUM_WARPS], key=[])
@triton.jit
def tuned_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
