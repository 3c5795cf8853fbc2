import triton
import triton.language as tl

from tuning import Config, autotune, heuristics


def block_configs():
    return [Config({"BLOCK": b}, num_warps=w) for b, w in ((16, 2), (64, 4))]


def get_tuner(configs=block_configs(), key=["n"]):
    tuner = autotune(configs=configs, key=key, prune_configs_by={"top_k": 1})
    return tuner


def get_heuristics():
    return heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0, "SCALE": lambda args: 3})


@triton.jit
def _scale_kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, SCALE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * SCALE)
    else:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)


_tuner = get_tuner()
_heuristics = get_heuristics()
scale = _tuner(_heuristics(_scale_kernel))


def triton_tuner(configs):
    return triton.autotune(configs=configs, key=["n"])


@triton.jit
def _shift_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


shift = triton_tuner([triton.Config({"BLOCK": 32}, num_warps=8), triton.Config({"BLOCK": 128})])(
    _shift_kernel
)


@triton_tuner([triton.Config({"BLOCK": 256}, num_warps=8)])
@triton.jit
def direct(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) - 1, mask=offs < n)
