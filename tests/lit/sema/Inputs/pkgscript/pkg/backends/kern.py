import triton
import triton.language as tl

# A neighbour imported by bare name: this file was written to run with its folder on sys.path.
import neighbour
from pkg.utils.helper import SCALE


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * SCALE + neighbour.OFFSET)
