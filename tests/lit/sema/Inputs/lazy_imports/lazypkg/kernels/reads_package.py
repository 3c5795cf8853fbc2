import triton
import triton.language as tl

import lazypkg


@triton.jit
def reads_package_kernel(out_ptr):
    tl.store(out_ptr, lazypkg.SCALE)
