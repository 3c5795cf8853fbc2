# Probe (GPU machine): a 3-D tensor descriptor made in the kernel stores a [10, 50, 119] block; where do Triton and
# tilec write outside the shape? Usage: python3 probe_descriptor_store_bounds.py TILEC. Session 20 on an H200:
# Triton writes column 119 of every row (the innermost extent rounded up to 16 bytes), tilec writes none.
import os, sys, json, subprocess
import numpy as np, torch, triton, triton.language as tl, cupy as cp

@triton.jit
def store3d(out_ptr, a_ptr, M, N, K, stride_m, stride_n, stride_k, MB: tl.constexpr, NB: tl.constexpr, KB: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N, K], strides=[stride_m, stride_n, stride_k],
                                     block_shape=[MB, NB, KB])
    pm, pn, pk = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    offs = pm * MB, pn * NB, pk * KB
    im = offs[0] + tl.arange(0, MB)[:, None, None]
    inn = offs[1] + tl.arange(0, NB)[None, :, None]
    ik = offs[2] + tl.arange(0, KB)[None, None, :]
    mask = (im < M) & (inn < N) & (ik < K)
    block = tl.load(a_ptr + im * N * K + inn * K + ik, mask)
    desc.store(offs, block)

triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
tilec = sys.argv[1]
src = os.path.abspath(__file__)
for dtype, KB in ((torch.int16, 64), (torch.bfloat16, 16)):
    inp = (torch.arange(10 * 50 * 119, device="cuda") % 1000).to(dtype).reshape(10, 50, 119)
    out_t = torch.full((10, 64, 128), -7, dtype=dtype, device="cuda")
    out_c = out_t.clone()
    grid = (triton.cdiv(10, 8), triton.cdiv(50, 8), triton.cdiv(119, KB))
    store3d[grid](out_t, inp, 10, 50, 119, *out_t.stride(), 8, 8, KB)
    tn = {torch.int16: "i16", torch.bfloat16: "bf16"}[dtype]
    sig = f"*{tn}:16,*{tn}:16,i32,i32,i32,i32:16,i32:16,1,8,8,{KB}"
    subprocess.run([tilec, src, "-k", "store3d", "-s", sig, "-o", "/tmp/s3.ptx"], check=True)
    meta = json.load(open("/tmp/s3.json"))["kernels"][0]
    mod = cp.RawModule(path="/tmp/s3.ptx")
    fn = mod.get_function(meta["entry"])
    args = [np.uint64(out_c.data_ptr()), np.uint64(inp.data_ptr()), np.int32(10), np.int32(50), np.int32(119),
            np.int32(8192), np.int32(128)]
    extra = ()
    if meta.get("global_scratch"):
        scratch = torch.empty(meta["global_scratch"]["size"] * grid[0] * grid[1] * grid[2], dtype=torch.int8, device="cuda")
        args.append(np.uint64(scratch.data_ptr()))
    fn(grid, (128, 1, 1), tuple(args), shared_mem=meta.get("shared_memory_bytes", 0))
    torch.cuda.synchronize()
    ref = torch.full_like(out_t, -7); ref[:, :50, :119] = inp
    for name, o in (("triton", out_t), ("tilec", out_c)):
        bad = (o != ref).nonzero()
        print(dtype, KB, name, "differs from reference at", len(bad), "places; first:", bad[:8].tolist(),
              "values", [o[tuple(i)].item() for i in bad[:8].tolist()], [ref[tuple(i)].item() for i in bad[:8].tolist()])
