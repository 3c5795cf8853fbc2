import framework_that_is_not_installed as fw
import triton.language as tl
from framework_that_is_not_installed.base import OpRegistry

from ops.aot import aot_triton, documented, record


@aot_triton(key=["n"])
def scale_rows(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x * 3.0).to(out_ptr.dtype.element_ty), mask=mask)


@record(key=["n"])
def recorded(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)


@documented(key=["n"])
def documented_only(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


def host(x: fw.Tensor):
    if "scale_rows" not in OpRegistry.instance().ops:
        scale_rows[("scale_rows", (x.shape[0],))](x, x, x.shape[0], BLOCK=16)
