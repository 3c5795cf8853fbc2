"""`triton.language` of the stand-in: the dtypes and `constexpr` that host code and signatures use.

Kernel bodies never run here, so any other name (`tl.load`, `tl.sum`, ...) is a placeholder that can
be referenced at import time (default arguments, module-level aliases) but does nothing.
"""
from . import core, extra, math  # noqa: F401
from .core import (  # noqa: F401
    PropagateNan, block_type, constexpr, dtype, pointer_type, tensor, pi32_t, void, int1, int8, int16, int32,
    int64, uint8, uint16, uint32, uint64, float8e5, float8e5b16, float8e4nv, float8e4b8, float8e4b15, float16,
    bfloat16, float32, float64)


def __getattr__(name):
    return core.placeholder(name)
