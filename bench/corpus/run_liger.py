"""Liger-Kernel's ops through their own host code, every Triton launch checked by tilec_diff.

    python3 bench/corpus/run_liger.py LIGER_DIR --tilec TILEC --out OUT [--precheck] [--only rms,rope]

Each op's torch.autograd.Function (imported from its own module, so the default Triton implementation,
never a backend replacement) runs forward and backward on small random inputs: fp32 and bf16 where the op
takes them, a power-of-two and a non-power-of-two hidden size.  LIGER_DIR is a checkout of
https://github.com/linkedin/Liger-Kernel (its `src/` goes on sys.path).
"""
import functools
import os
import sys

import harness

DEV = harness.setup(__doc__.splitlines()[0])
# Liger's fused MoE autotunes each of its GEMMs over 16-36 configs, every one compiled and checked
# on a new key: its own switch keeps one config per kernel, so that the run stays within minutes.
os.environ.setdefault("LIGER_FUSED_MOE_AUTOTUNE", "0")
sys.path.insert(0, os.path.join(os.path.abspath(harness.args.project), "src"))
harness.stub_missing_modules({})

import torch  # noqa: E402

if harness.args.precheck:
    # Liger picks per-device settings (SM counts, block sizes) from infer_device(); on the pre-check's
    # CPU tensors it must still answer as on the GPU machine so that the same kernels launch.
    import liger_kernel.utils  # noqa: E402
    liger_kernel.utils.infer_device = lambda: "cuda"

torch.manual_seed(0)
import ops  # noqa: E402
from ops import DTYPES, ROWS_HIDDEN, fwd_bwd, rand, variants  # noqa: E402,F401

ops.DEVICE = DEV


# --- norms -------------------------------------------------------------------------------------------------

def rms_norm(dt, rows, hidden, casting_mode="llama", offset=0.0, in_place=True):
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, offset, casting_mode, in_place),
            rand(rows, hidden, dtype=dt), rand(hidden, dtype=dt))


def rms_norm_3d_block(dt, rows, hidden):
    # row_mode=False with many rows takes the blocked kernels.
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    fwd_bwd(lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False, False),
            rand(4, 64, hidden, dtype=dt), rand(hidden, dtype=dt))


def fused_add_rms_norm(dt, rows, hidden):
    from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction
    fwd_bwd(lambda x, r, w: LigerFusedAddRMSNormFunction.apply(x, r, w, 1e-6, 0.0, "llama", False),
            rand(rows, hidden, dtype=dt), rand(rows, hidden, dtype=dt), rand(hidden, dtype=dt))


def modulated_rms_norm(dt, rows, hidden):
    from liger_kernel.ops.modulated_rms_norm import LigerModulatedRMSNormFunction
    fwd_bwd(lambda x, w, s, b: LigerModulatedRMSNormFunction.apply(x, w, s, b, 1e-6, 0.0, "llama", False),
            rand(rows, hidden, dtype=dt), rand(hidden, dtype=dt), rand(1, hidden, dtype=dt),
            rand(1, hidden, dtype=dt))


def layer_norm(dt, rows, hidden):
    from liger_kernel.ops.layer_norm import LigerLayerNormFunction
    fwd_bwd(lambda x, w, b: LigerLayerNormFunction.apply(x, w, b, 1e-6),
            rand(rows, hidden, dtype=dt), rand(hidden, dtype=dt), rand(hidden, dtype=dt))


def poly_norm(dt, rows, hidden):
    from liger_kernel.ops.poly_norm import LigerPolyNormFunction
    fwd_bwd(lambda x, w, b: LigerPolyNormFunction.apply(x, w, b, 1e-6, False),
            rand(rows, hidden, dtype=dt), rand(3, dtype=dt), rand((), dtype=dt))


def group_norm(dt, rows, hidden):
    from liger_kernel.ops.group_norm import LigerGroupNormFunction
    channels, groups = 8, 4
    fwd_bwd(lambda x, w, b: LigerGroupNormFunction.apply(x, w, b, channels, groups, 1e-6),
            rand(rows, channels, hidden, dtype=dt), rand(channels, dtype=dt), rand(channels, dtype=dt))


def dyt(dt, rows, hidden):
    from liger_kernel.ops.dyt import LigerDyTFunction
    fwd_bwd(LigerDyTFunction.apply, rand(rows, hidden, dtype=dt), rand(1, dtype=dt), rand(hidden, dtype=dt),
            rand(hidden, dtype=dt))


# --- activations -------------------------------------------------------------------------------------------

def swiglu(dt, rows, hidden):
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    fwd_bwd(LigerSiLUMulFunction.apply, rand(rows, hidden, dtype=dt), rand(rows, hidden, dtype=dt))


def fused_gate_up_swiglu(dt, rows, hidden):
    from liger_kernel.ops.swiglu import LigerFusedGateUpSiLUMulFunction
    fwd_bwd(LigerFusedGateUpSiLUMulFunction.apply, rand(rows, 2 * hidden, dtype=dt))


def geglu(dt, rows, hidden):
    from liger_kernel.ops.geglu import LigerGELUMulFunction
    fwd_bwd(LigerGELUMulFunction.apply, rand(rows, hidden, dtype=dt), rand(rows, hidden, dtype=dt))


def relu_squared(dt, rows, hidden):
    from liger_kernel.ops.relu_squared import LigerReLUSquaredFunction
    fwd_bwd(LigerReLUSquaredFunction.apply, rand(rows, hidden, dtype=dt))


def softmax(dt, rows, hidden):
    from liger_kernel.ops.softmax import LigerSoftmaxFunction
    fwd_bwd(LigerSoftmaxFunction.apply, rand(rows, hidden, dtype=dt))


def sparsemax(dt, rows, hidden):
    from liger_kernel.ops.sparsemax import LigerSparsemaxFunction
    fwd_bwd(lambda x: LigerSparsemaxFunction.apply(x, -1), rand(rows, hidden, dtype=dt))


# --- rotary embeddings -------------------------------------------------------------------------------------

def rope(dt, rows, head_dim):
    from liger_kernel.ops.rope import LigerRopeFunction
    bsz, seq, hq, hk = 2, rows, 4, 2
    q, k = rand(bsz, hq, seq, head_dim, dtype=dt), rand(bsz, hk, seq, head_dim, dtype=dt)
    cos, sin = rand(1, seq, head_dim, dtype=dt, grad=False), rand(1, seq, head_dim, dtype=dt, grad=False)
    fwd_bwd(lambda q, k: LigerRopeFunction.apply(q, k, cos, sin), q, k)


def qwen2vl_mrope(dt, rows, head_dim):
    from liger_kernel.ops.qwen2vl_mrope import LigerQwen2VLMRopeFunction
    bsz, seq, hq, hk = 2, rows, 4, 2
    q, k = rand(bsz, hq, seq, head_dim, dtype=dt), rand(bsz, hk, seq, head_dim, dtype=dt)
    cos, sin = rand(3, bsz, seq, head_dim, dtype=dt, grad=False), rand(3, bsz, seq, head_dim, dtype=dt, grad=False)
    half = head_dim // 2
    section = [half - 2 * (half // 4), half // 4, half // 4]
    fwd_bwd(lambda q, k: LigerQwen2VLMRopeFunction.apply(q, k, cos, sin, section), q, k)


def llama4_rope(dt, rows, head_dim):
    from liger_kernel.ops.llama4_rope import LigerLlama4RopeFunction
    bsz, seq, hq, hk = 2, rows, 4, 2
    q, k = rand(bsz, seq, hq, head_dim, dtype=dt), rand(bsz, seq, hk, head_dim, dtype=dt)
    freqs = rand(seq, head_dim // 2, 2, grad=False)    # the real view of complex frequencies
    fwd_bwd(lambda q, k: LigerLlama4RopeFunction.apply(q, k, freqs), q, k)


# --- losses ------------------------------------------------------------------------------------------------

def targets(rows, vocab, ignore=True):
    t = torch.randint(0, vocab, (rows,), device=DEV)
    if ignore:
        t[::4] = -100
    return t


def cross_entropy(dt, rows, vocab, reduction="mean", label_smoothing=0.0, softcap=None, z_loss=False):
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    fwd_bwd(lambda x: LigerCrossEntropyFunction.apply(x, targets(rows, vocab), None, -100, 1e-4 if z_loss else 0.0,
                                                      label_smoothing, reduction, softcap, z_loss)[0],
            rand(rows, vocab, dtype=dt))


def cross_entropy_weighted(dt, rows, vocab):
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
    w = torch.rand(vocab, device=DEV)
    fwd_bwd(lambda x: LigerCrossEntropyFunction.apply(x, targets(rows, vocab), w, -100, 0.0, 0.1, "sum", 30.0)[0],
            rand(rows, vocab, dtype=dt))


def fused_linear_cross_entropy(dt, rows, hidden, vocab=500):
    from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction
    fwd_bwd(lambda x, w, b: LigerFusedLinearCrossEntropyFunction.apply(x, w, targets(rows, vocab), b)[0],
            rand(rows, hidden, dtype=dt), rand(vocab, hidden, dtype=dt, scale=0.05), rand(vocab, dtype=dt))


def jsd(dt, rows, vocab):
    from liger_kernel.ops.jsd import LigerJSDFunction
    x = torch.log_softmax(torch.randn(rows, vocab), -1).to(DEV, dt).requires_grad_()
    y = torch.log_softmax(torch.randn(rows, vocab), -1).to(DEV, dt)
    fwd_bwd(lambda x: LigerJSDFunction.apply(x, y, targets(rows, vocab), 0.5), x)


def fused_linear_jsd(dt, rows, hidden, vocab=500):
    from liger_kernel.ops.fused_linear_jsd import LigerFusedLinearJSDFunction
    fwd_bwd(lambda x, w: LigerFusedLinearJSDFunction.apply(x, w, rand(rows, hidden, dtype=dt, grad=False),
                                                           rand(vocab, hidden, dtype=dt, grad=False, scale=0.05),
                                                           None, 0.5, -100, 1.0),
            rand(rows, hidden, dtype=dt), rand(vocab, hidden, dtype=dt, scale=0.05))


def kl_div(dt, rows, vocab, reduction="batchmean", log_target=False):
    from liger_kernel.ops.kl_div import LigerKLDivLossFunction
    x = torch.log_softmax(torch.randn(rows, vocab), -1).to(DEV, dt).requires_grad_()
    y = torch.softmax(torch.randn(rows, vocab), -1).to(DEV, dt)
    fwd_bwd(lambda x: LigerKLDivLossFunction.apply(x, y, reduction, log_target, 1e-10), x)


def tvd(dt, rows, vocab):
    from liger_kernel.ops.tvd import LigerTVDLossFunction
    p = torch.softmax(torch.randn(rows, vocab), -1).to(DEV, dt).requires_grad_()
    q = torch.softmax(torch.randn(rows, vocab), -1).to(DEV, dt)
    fwd_bwd(lambda p: LigerTVDLossFunction.apply(p, q, targets(rows, vocab), "batchmean", -100), p)


def grpo_loss(dt, rows, vocab, loss_type="grpo", level="token"):
    from liger_kernel.ops.grpo_loss import GrpoLossFunction
    B, L = 2, rows
    logits = rand(B, L + 1, vocab, dtype=dt)
    ids = torch.randint(0, vocab, (B, L), device=DEV)
    old = torch.randn(B, L, device=DEV) - 2
    ref = torch.randn(B, L, device=DEV) - 2
    adv = torch.randn(B, device=DEV)
    mask = torch.ones(B, L, dtype=torch.int32, device=DEV)
    mask[:, -2:] = 0
    fwd_bwd(lambda x: GrpoLossFunction.apply(x, old, ref, ids, adv, mask, 0.9, 0.04, 0.2, 0.2, False, loss_type,
                                             None, True, level)[0], logits)


# --- the rest ----------------------------------------------------------------------------------------------

def embedding(dt, rows, hidden):
    from liger_kernel.ops.experimental.embedding import LigerEmbeddingFunction
    fwd_bwd(LigerEmbeddingFunction.apply, rand(100, hidden, dtype=dt),
            torch.randint(0, 100, (2, rows), device=DEV))


def attn_res(dt, rows, hidden):
    from liger_kernel.ops.attn_res import LigerAttnResFunction
    fwd_bwd(lambda v, q, n: LigerAttnResFunction.apply(v, q, n, 1e-6), rand(4, 2, rows, hidden, dtype=dt),
            rand(hidden, dtype=dt, scale=0.02), rand(hidden, dtype=dt))


def multi_token_attention(dt, rows, hidden, sparse=False):
    from liger_kernel.ops.multi_token_attention import LigerMultiTokenAttentionFunction
    B, C, L = 2, 4, rows
    fwd_bwd(lambda s, w, b: LigerMultiTokenAttentionFunction.apply(s, w, b, 1, 1, 1, 1, sparse),
            rand(B, C, L, L, dtype=dt), rand(C, C, 3, 3, dtype=dt, scale=0.1), rand(C, dtype=dt))


def neighborhood_attention(dt, rows, head_dim):
    from liger_kernel.ops.fused_neighborhood_attention import LigerFusedNeighborhoodAttentionFunction
    B, H, L = 2, 2, rows
    fwd_bwd(lambda q, k, v: LigerFusedNeighborhoodAttentionFunction.apply(q, k, v, 7, 1, None),
            rand(B, H, L, head_dim, dtype=dt), rand(B, H, L, head_dim, dtype=dt), rand(B, H, L, head_dim, dtype=dt))


def mhc(dt, rows, hidden):
    from liger_kernel.ops.mhc import LigerMHCCoeffsFunction, LigerMHCPostResFunction, LigerMHCPreFunction
    HC, C = 4, hidden
    x = rand(2, rows, HC, C, dtype=dt)
    phi = rand(HC * C, HC * HC + 2 * HC, scale=0.02)
    b = rand(HC * HC + 2 * HC, scale=0.1)
    alphas = [rand((), scale=0.5) for _ in range(3)]
    h_pre, h_post, h_res = LigerMHCCoeffsFunction.apply(x, phi, b, *alphas, dt == torch.float32, 4, 1e-6, 1e-4,
                                                         1e-6, 2.0)
    layer_in = fwd_bwd(LigerMHCPreFunction.apply, x.detach().requires_grad_(), h_pre.detach().requires_grad_())
    f_out = rand(*layer_in.shape, dtype=dt)
    fwd_bwd(LigerMHCPostResFunction.apply, x.detach().requires_grad_(), f_out, h_post.detach().requires_grad_(),
            h_res.detach().requires_grad_())
    torch.autograd.backward([h_pre, h_post, h_res], [torch.randn_like(h) for h in (h_pre, h_post, h_res)])


def fused_moe(dt, rows, hidden):
    from liger_kernel.ops.fused_moe import LigerFusedMoEFunction
    T, E, K, inter = rows * 4, 8, 2, 128
    logits = torch.randn(T, E)
    w, idx = torch.topk(torch.softmax(logits, -1), K, dim=-1)
    fwd_bwd(lambda x, gu, d, w: LigerFusedMoEFunction.apply(x, gu, d, idx.to(DEV, torch.int32), w),
            rand(T, hidden, dtype=dt), rand(E, 2 * inter, hidden, dtype=dt, scale=0.02),
            rand(E, hidden, inter, dtype=dt, scale=0.02), w.to(DEV, dt).requires_grad_())


def mlp_swiglu_gemm(dt, rows, hidden):
    from liger_kernel.ops.mlp import LigerMLPFunction
    inter = 256
    fwd_bwd(LigerMLPFunction.apply, rand(rows, hidden, dtype=dt), rand(inter, hidden, dtype=dt, scale=0.05),
            rand(inter, hidden, dtype=dt, scale=0.05), rand(hidden, inter, dtype=dt, scale=0.05))


HIDDEN = ((16, 64), (15, 1000))
VOCAB = ((16, 512), (15, 1000))
HEAD = ((16, 64), (15, 96))
BF16 = (torch.bfloat16,)

OPS = (
    variants("rms_norm", rms_norm, shapes=HIDDEN)
    + variants("rms_norm_gemma", functools.partial(rms_norm, casting_mode="gemma", offset=1.0, in_place=False),
               shapes=HIDDEN[1:])
    + variants("rms_norm_block", rms_norm_3d_block, shapes=HIDDEN[1:])
    + variants("fused_add_rms_norm", fused_add_rms_norm, shapes=HIDDEN)
    + variants("modulated_rms_norm", modulated_rms_norm, shapes=HIDDEN)
    + variants("layer_norm", layer_norm, shapes=HIDDEN)
    + variants("poly_norm", poly_norm, shapes=HIDDEN)
    + variants("group_norm", group_norm, shapes=HIDDEN)
    # DyT is autotuned over 18 configs, each launched (and checked) once per key: two keys only.
    + variants("dyt", dyt, dtypes=(torch.float32,), shapes=HIDDEN[1:])
    + variants("dyt", dyt, dtypes=BF16, shapes=HIDDEN[:1])
    + variants("swiglu", swiglu, shapes=HIDDEN)
    + variants("fused_gate_up_swiglu", fused_gate_up_swiglu, shapes=HIDDEN)
    + variants("geglu", geglu, shapes=HIDDEN)
    + variants("relu_squared", relu_squared, shapes=HIDDEN)
    + variants("softmax", softmax, shapes=HIDDEN)
    + variants("sparsemax", sparsemax, shapes=HIDDEN)
    + variants("rope", rope, shapes=HEAD)
    + variants("qwen2vl_mrope", qwen2vl_mrope, shapes=HEAD)
    + variants("llama4_rope", llama4_rope, shapes=HEAD)
    + variants("cross_entropy", cross_entropy, shapes=VOCAB)
    + variants("cross_entropy_sum_smooth_softcap_zloss",
               functools.partial(cross_entropy, reduction="sum", label_smoothing=0.1, softcap=30.0, z_loss=True),
               shapes=VOCAB[1:])
    + variants("cross_entropy_weighted", cross_entropy_weighted, shapes=VOCAB[1:])
    + variants("fused_linear_cross_entropy", fused_linear_cross_entropy, shapes=HIDDEN)
    + variants("jsd", jsd, shapes=VOCAB)
    + variants("fused_linear_jsd", fused_linear_jsd, shapes=HIDDEN)
    + variants("kl_div", kl_div, shapes=VOCAB)
    + variants("kl_div_sum_logtarget", functools.partial(kl_div, reduction="sum", log_target=True), shapes=VOCAB[1:])
    + variants("tvd", tvd, shapes=VOCAB)
    + variants("grpo_loss", grpo_loss, shapes=VOCAB)
    + variants("grpo_loss_sequence", functools.partial(grpo_loss, loss_type="grpo", level="sequence"),
               shapes=VOCAB[1:])
    + variants("embedding", embedding, shapes=HIDDEN)
    + variants("attn_res", attn_res, shapes=HIDDEN)
    + variants("multi_token_attention", multi_token_attention, shapes=((8, 0), (13, 0)))
    + variants("multi_token_attention_sparse", functools.partial(multi_token_attention, sparse=True),
               dtypes=(torch.float32,), shapes=((13, 0),))
    + variants("neighborhood_attention", neighborhood_attention, shapes=HEAD)
    + variants("mhc", mhc, shapes=HIDDEN[:1] + ((15, 96),))
    + variants("fused_moe", fused_moe, dtypes=BF16, shapes=((16, 128),))
    + variants("mlp_swiglu_gemm", mlp_swiglu_gemm, dtypes=BF16, shapes=((16, 128),))
)

if __name__ == "__main__":
    harness.run_ops(OPS, gpu_only={
        "fused_moe": "its host code sizes the expert tiles from counts its routing kernels computed",
        "mlp_swiglu_gemm": "its host code asserts CUDA tensors",
    })
    harness.finish()
