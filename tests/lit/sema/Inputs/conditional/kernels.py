# Kernels defined under module-level `if`s and `try`s, as projects guard them (`if has_triton():`
# in torchao): the definition Python binds on the host tilec compiles for is the kernel.
import torch
from torch.utils._triton import has_triton

if has_triton():
    import triton
    import triton.language as tl

    @triton.jit
    def guarded(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 3.0)

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}, num_warps=1),
                              triton.Config({"BLOCK": 32}, num_warps=2)], key=["n"])
    @triton.jit
    def guarded_tuned(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
else:
    def guarded(*args):
        raise RuntimeError("no triton")

# A device test in the condition: tuples compare element by element, as in Python.
if torch.cuda.get_device_capability() >= (9, 0) and (9, 0) < (9, 0, 1) and not (2, 5) <= (2, 4, 9):
    import triton.language as tl  # rebinds tl

    @triton.jit
    def per_arch(x_ptr):
        tl.store(x_ptr, 90.0)
else:
    @triton.jit
    def per_arch(x_ptr):
        tl.store(x_ptr, 80.0)

# Not taken: `tl` keeps the binding of the first `if`, and `newer_only` is no kernel here.
if torch.cuda.get_device_capability() >= (10, 0):
    import triton.language as tl

    @triton.jit
    def newer_only(x_ptr):
        tl.store(x_ptr, 1.0)

try:
    @triton.jit
    def in_try(x_ptr):
        tl.store(x_ptr, 7.0)
except ImportError:
    pass
