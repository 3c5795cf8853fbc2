# Probe (GPU machine): the bits of the NaN that Triton's descriptor loads with padding="nan" fill out-of-bounds
# elements with (TMA's fill), for fp32, fp16 and bf16; descriptors made in the kernel and on the host.
import torch, triton, triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

@triton.jit
def device_load(in_ptr, out_ptr, IM, IN, B: tl.constexpr):
    d = tl.make_tensor_descriptor(in_ptr, shape=[IM, IN], strides=[IN, 1], block_shape=[B, B], padding_option="nan")
    v = d.load([0, 0])
    o = tl.arange(0, B)
    tl.store(out_ptr + o[:, None] * B + o[None, :], v)

@triton.jit
def host_load(in_desc, out_ptr, B: tl.constexpr):
    v = in_desc.load([0, 0])
    o = tl.arange(0, B)
    tl.store(out_ptr + o[:, None] * B + o[None, :], v)

triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
for dt, bits in ((torch.float32, torch.int32), (torch.float16, torch.int16), (torch.bfloat16, torch.int16)):
    x = torch.ones((8, 8), dtype=dt, device="cuda")
    for name in ("device", "host"):
        out = torch.zeros((32, 32), dtype=dt, device="cuda")
        if name == "device":
            device_load[(1,)](x, out, 8, 8, 32)
        else:
            host_load[(1,)](TensorDescriptor(x, x.shape, x.stride(), [32, 32], padding="nan"), out, 32)
        torch.cuda.synchronize()
        u = out.view(bits)[out.isnan()].unique()
        print(dt, name, "NaN bit patterns:", [hex(int(v) & (0xFFFFFFFF if bits == torch.int32 else 0xFFFF)) for v in u.tolist()])
