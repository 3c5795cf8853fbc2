"""native-sparse-attention-triton (XunhaoLai's NSA) through its own host functions, every Triton launch checked
by tilec_diff (harness.py): flash attention (varlen, causal and not), average and weighted pooling, linear
compression, compressed attention feeding top-k sparse attention, and decoding, forward and backward.

    python3 bench/corpus/run_nsa.py NSA_DIR --tilec TILEC --out OUT [--tilec-diff F] [--only flash]

NSA_DIR is a checkout of https://github.com/XunhaoLai/native-sparse-attention-triton (its package
`native_sparse_attention` is imported from there; it needs einops). Its own tests compare against flash-attn's CUDA
kernels, which the machines here lack; tilec_diff compares each launch with Triton's instead.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

DEV = harness.setup(__doc__.splitlines()[0])
ROOT = os.path.abspath(harness.args.project)
sys.path.insert(0, ROOT)

import torch  # noqa: E402

torch.manual_seed(0)


def seqs(lens):
    s = torch.tensor(lens, dtype=torch.int32, device=DEV)
    cu = torch.cat([torch.zeros(1, dtype=torch.int32, device=DEV), torch.cumsum(s, 0)]).to(torch.int32)
    return cu, int(s.max().item())


def u(*shape, dtype=torch.float16):
    return torch.empty(*shape, device=DEV).uniform_(-1, 1).to(dtype).requires_grad_()


def flash(causal, dim, lens):
    from native_sparse_attention.ops import flash_attention_varlen
    cu, mx = seqs(lens)
    n = int(cu[-1])
    q, k, v = u(n, 8, dim), u(n, 4, dim), u(n, 4, dim)
    o = flash_attention_varlen(q, k, v, cu, cu, mx, mx, causal=causal)
    o.backward(torch.randn_like(o))


def compress_pool(weighted, lens):
    from native_sparse_attention.ops import avgpool_compress, weightedpool_compress
    cu, _ = seqs(lens)
    n = int(cu[-1])
    x = u(n, 4, 64)
    if weighted:
        y, _ = weightedpool_compress(x, u(4, 32), cu, 32, 16)
    else:
        y, _ = avgpool_compress(x, None, cu, 32, 16)
    y.backward(torch.randn_like(y))


def compress_linear(lens, dtype):
    from native_sparse_attention.ops import linear_compress
    cu, _ = seqs(lens)
    n = int(cu[-1])
    x, w, pe = u(n, 2, 64, dtype=dtype), u(2, 32 * 64, 64, dtype=dtype), u(2, 32, 64, dtype=dtype)
    y, _ = linear_compress(x, w, cu, 32, 16, pe)
    y.backward(torch.randn_like(y))


def compressed_then_topk(lens, dim):
    from native_sparse_attention.ops import avgpool_compress, compressed_attention, topk_sparse_attention
    cu, mx = seqs(lens)
    n = int(cu[-1])
    q, k, v = u(n, 16, dim), u(n, 4, dim), u(n, 4, dim)
    ck, ck_cu = avgpool_compress(k, None, cu, 32, 16)
    cv, _ = avgpool_compress(v, None, cu, 32, 16)
    ck_max = int((ck_cu[1:] - ck_cu[:-1]).max().item())
    o, topk_idx = compressed_attention(q, ck, cv, 32, 16, 64, 4, cu, ck_cu, mx, ck_max)
    o.backward(torch.randn_like(o), retain_graph=False)
    q2, k2, v2 = (t.detach().clone().requires_grad_() for t in (q, k, v))
    o2 = topk_sparse_attention(q2, k2, v2, topk_idx, 64, cu)
    o2.backward(torch.randn_like(o2))


def decode(dim):
    from native_sparse_attention.ops import flash_attention_decode
    b, heads, length = 3, 8, 300
    q = torch.randn(b, heads, dim, device=DEV, dtype=torch.float16)
    k = torch.randn(b, length, 2, dim, device=DEV, dtype=torch.float16)
    v = torch.randn(b, length, 2, dim, device=DEV, dtype=torch.float16)
    flash_attention_decode(q, k, v, torch.tensor([100, 257, 300], dtype=torch.int32, device=DEV))


LENS = [100, 384, 1000]
OPS = [
    ("flash/causal/d64", lambda: flash(True, 64, LENS)),
    ("flash/full/d128", lambda: flash(False, 128, LENS)),
    ("flash/causal/d96", lambda: flash(True, 96, [77, 300])),
    ("avgpool", lambda: compress_pool(False, LENS)),
    ("weightedpool", lambda: compress_pool(True, LENS)),
    ("linear_compress/fp16", lambda: compress_linear(LENS, torch.float16)),
    ("linear_compress/bf16", lambda: compress_linear(LENS, torch.bfloat16)),
    ("compressed+topk/d64", lambda: compressed_then_topk([500, 1100], 64)),
    ("compressed+topk/d96", lambda: compressed_then_topk([700], 96)),
    ("decode/d64", lambda: decode(64)),
    ("decode/d128", lambda: decode(128)),
]

if __name__ == "__main__":
    harness.run_ops(OPS)
    harness.finish()
