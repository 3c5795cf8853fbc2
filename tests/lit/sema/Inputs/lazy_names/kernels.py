import settings
from settings import SCALE
from shim import aggregate, tl, triton


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, S: tl.constexpr = SCALE):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * S + settings.OFFSET, mask=mask)


@triton.jit
def probe_kernel(out_ptr, P: tl.constexpr = settings.PROBE):
    tl.store(out_ptr, P)


@triton.jit
def missing_kernel(out_ptr, M: tl.constexpr = settings.MISSING):
    tl.store(out_ptr, M)


@triton.jit
def aggregate_kernel(out_ptr, A: tl.constexpr = aggregate):
    tl.store(out_ptr, 1)
