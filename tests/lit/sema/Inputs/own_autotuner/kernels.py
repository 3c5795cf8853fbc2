import triton
import triton.language as tl

import own_tune

SMALL = [triton.Config({"BLOCK": 16}, num_warps=1), triton.Config({"BLOCK": 32}, num_warps=2)]


@triton.jit
def add_one_impl(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


# Two tuned kernels made by call from one definition, through the module's own autotuner.
add_one_small = own_tune.autotune(configs=SMALL, key=["n"], nearest_power_of_two=True)(add_one_impl)
add_one_large = own_tune.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=4)], key=["n"]
)(add_one_impl)


@own_tune.autotune(configs=SMALL, key=["n"])
@triton.jit
def add_two(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 2, mask=offs < n)
