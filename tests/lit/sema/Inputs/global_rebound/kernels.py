import triton
import triton.language as tl

import mode
from mode import pick

# Import time: the binding the module's own statements make (nobody called set_scale yet).
SCALE = mode.scale


@triton.autotune(configs=pick([triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})]),
                 key=["n"])
@triton.jit
def tuned_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)


@triton.jit
def launch_kernel(x_ptr):
    # Read when Triton compiles the kernel, after the program may have called set_scale.
    tl.store(x_ptr, mode.scale)


ONE = mode.remember()


@triton.jit
def remember_kernel(x_ptr):
    tl.store(x_ptr, ONE)
