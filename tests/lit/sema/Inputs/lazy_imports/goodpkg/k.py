import triton
import triton.language as tl

import goodpkg
import goodpkg.user


@triton.jit
def sub_kernel(out_ptr):
    tl.store(out_ptr, goodpkg.sub.OFFSET)
