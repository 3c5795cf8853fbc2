# Module-level code that asks for the GPU's name, which differs between GPUs of one
# architecture: known only where the other side of an `or`/`and` decides the result.
import torch
import triton
import triton.language as tl

NAME = torch.cuda.get_device_name(0)
MAJOR = torch.cuda.get_device_capability()[0]
IS_HOPPER = "NVIDIA H" in NAME or MAJOR >= 9
IS_A100 = NAME.startswith("NVIDIA A100") and MAJOR == 8
WARPS = 4 if IS_HOPPER else 8
NOT_HOPPER = not IS_HOPPER


@triton.jit
def warps_kernel(x_ptr):
    tl.store(x_ptr, WARPS)


@triton.jit
def a100_kernel(x_ptr):
    tl.store(x_ptr, IS_A100)


@triton.jit
def not_kernel(x_ptr):
    if NOT_HOPPER:
        tl.store(x_ptr, 1)


@triton.jit
def length_kernel(x_ptr):
    tl.store(x_ptr, len(NAME))


SMS = torch.cuda.get_device_properties(0).multi_processor_count
PROGRAMS = max(SMS, 1)


@triton.jit
def sms_kernel(x_ptr):
    tl.store(x_ptr, PROGRAMS)
