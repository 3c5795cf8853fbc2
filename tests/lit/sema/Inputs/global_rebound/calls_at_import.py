import triton
import triton.language as tl

import mode

mode.set_mode(True)


@triton.autotune(configs=mode.pick([triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})]),
                 key=[])
@triton.jit
def picked_kernel(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
