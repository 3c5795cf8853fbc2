import triton
import triton.language as tl

from tuning import not_tuned, tuned, tuned_by_keyword


@tuned(
    configs=[
        triton.Config({"BLOCK": 16}, num_warps=2),
        triton.Config({"BLOCK": 64}, num_warps=4),
    ],
    key=["n"],
    warmup=5,
)
@triton.jit
def scaled(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


@tuned_by_keyword([triton.Config({"BLOCK": 128}, num_warps=8)], ["n"])
@triton.jit
def shifted(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


@not_tuned([triton.Config({"BLOCK": 128})], ["n"])
@triton.jit
def plain(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def extended_configs():
    configs = [triton.Config({"BLOCK": 16}, num_warps=2)]
    for config in configs:
        config.kwargs["EXTRA"] = 1
    return configs


@tuned(configs=extended_configs(), key=["n"])
@triton.jit
def extended(x_ptr, n, BLOCK: tl.constexpr, EXTRA: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + EXTRA, mask=offs < n)
