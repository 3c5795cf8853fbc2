import torch
import triton
import triton.language as tl

torch.set_float32_matmul_precision("high")


@triton.heuristics({"PREC": lambda args: torch.get_float32_matmul_precision()})
@triton.jit
def pick(out_ptr, PREC: tl.constexpr):
    if PREC == "high":
        tl.store(out_ptr, 2)
