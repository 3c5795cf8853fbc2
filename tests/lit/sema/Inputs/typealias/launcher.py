# A host library in Python 3.12's style, which the kernel file imports: type alias statements
# (their values evaluated lazily, by Python too) next to the @triton.jit helper the kernel uses.
from typing import Any, Callable, Mapping

import triton
import triton.language as tl

type Grid = int | tuple[int] | tuple[int, int] | tuple[int, int, int]
type ValueOrFn[T] = T | Callable[[Mapping[str, Any]], T]
type Pair[*Ts, **P, K: int = int] = tuple[K, K]

# `type` stays a name elsewhere.
type = 3
SCALE = type + 1


@triton.jit
def scaled(x):
    return x * SCALE
