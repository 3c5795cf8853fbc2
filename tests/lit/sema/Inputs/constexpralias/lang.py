# A project's own name for Triton's constexpr class, bound under a try as a project guards its
# Triton import (the handler's None is for hosts without Triton).
try:
    import triton.language as tl

    const = tl.constexpr
except ImportError:
    const = None
