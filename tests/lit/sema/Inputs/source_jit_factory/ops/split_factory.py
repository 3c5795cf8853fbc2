# A source-jit factory whose class calls a helper imported from a sibling module to write the
# kernel's source (the helper, not the class, holds the "@triton.jit" text), with the kernels
# in the same file as the factory.
import framework_that_is_not_installed
import triton.language as tl

from .emit import kernel_file_text as emit_source


class Generated:
    def __init__(self, fn, key):
        self.fn = fn
        self.key = key

    def __getitem__(self, grid):
        def launch(*args):
            with open("/tmp/generated.py", "w") as out:
                out.write(emit_source(self.fn))

        return launch


def generated_kernel(key=[]):
    def wrap(fn):
        return Generated(fn, key)

    return wrap


@generated_kernel(key=["n"])
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)
