# A project's wrapper around triton: it imports Triton names that tilec does not support
# (_aggregate) whether or not the kernels use them, as Python does.
from importlib.util import find_spec
from typing import TYPE_CHECKING

HAS_TRITON = find_spec("triton") is not None

if TYPE_CHECKING or HAS_TRITON:
    import triton
    import triton.language as tl
    from triton.language.core import _aggregate as aggregate
else:
    triton = None
    tl = None
    aggregate = None
