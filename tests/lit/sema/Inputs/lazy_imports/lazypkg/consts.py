import triton.language as tl

SCALE = 3.0
BLOCK: tl.constexpr = 64
