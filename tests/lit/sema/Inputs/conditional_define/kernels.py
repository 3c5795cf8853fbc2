# The flag comes from a library tilec does not have; -D binds it.
from some_probe_library import feature_available

import triton
import triton.language as tl

HAVE_FEATURE = feature_available("triton")

if HAVE_FEATURE:

    @triton.jit
    def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(x_ptr + offs, x * 5.0, mask=offs < n)

else:

    @triton.jit
    def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.zeros((BLOCK,), tl.float32) - 1.0, mask=offs < n)
