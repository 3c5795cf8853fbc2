"""unsloth's Triton kernels through their own host code, every Triton launch checked by tilec_diff.

    python3 bench/corpus/run_unsloth.py UNSLOTH_DIR --tilec TILEC --out OUT [--precheck] [--only rope]

UNSLOTH_DIR is a checkout of https://github.com/unslothai/unsloth.  Its kernels' modules
(unsloth/kernels/*.py) are imported one by one, without running unsloth/__init__.py (which loads
models, patches transformers and needs a GPU at import): `unsloth` and `unsloth.kernels` are
registered as bare packages.  `unsloth_zoo` and `transformers` are not installed on the machines
this runs on; the kernel modules only take loggers, version helpers and base classes from them, so
they are stubbed.  Each op runs forward and backward (where the host code has one) on small random
inputs, fp32/bf16/fp16 where the op takes them, a power-of-two and a non-power-of-two size.
"""
import functools
import os
import sys
import types

import harness

DEV = harness.setup(__doc__.splitlines()[0])
ROOT = os.path.abspath(harness.args.project)
if harness.args.precheck:
    # unsloth refuses to import without a GPU unless asked to treat the CPU as CUDA (its tests do).
    os.environ["UNSLOTH_ALLOW_CPU"] = "1"
harness.stub_missing_modules({
    "unsloth_zoo.utils": ["Version"],
    "unsloth_zoo.log": ["logger"],
    "unsloth_zoo.temporary_patches.common": ["torch_compile"],
    "unsloth_zoo.patching_utils": ["patch_layernorm"],
    "unsloth_zoo.loss_utils": ["patch_loss_functions", "post_patch_loss_function"],
    "transformers.models.llama.modeling_llama": ["logger", "LlamaRMSNorm"],
})
for name, path in (("unsloth", "unsloth"), ("unsloth.kernels", "unsloth/kernels")):
    pkg = types.ModuleType(name)
    pkg.__path__ = [os.path.join(ROOT, path)]
    sys.modules[name] = pkg

import torch  # noqa: E402

HAS_FP8 = isinstance(getattr(torch, "float8_e4m3fn", None), torch.dtype)

torch.manual_seed(0)
import ops  # noqa: E402
from ops import DTYPES, ROWS_HIDDEN, fwd_bwd, rand, variants  # noqa: E402,F401

ops.DEVICE = DEV


def rms_layernorm(dt, rows, hidden, gemma=False):
    from unsloth.kernels.rms_layernorm import Fast_RMS_Layernorm
    fwd_bwd(lambda x, w: Fast_RMS_Layernorm.apply(x, w, 1e-6, gemma), rand(2, rows, hidden, dtype=dt),
            rand(hidden, dtype=dt))


def layernorm(dt, rows, hidden):
    from unsloth.kernels.layernorm import Fast_Layernorm
    fwd_bwd(lambda x, w, b: Fast_Layernorm.apply(x, w, b, 1e-5), rand(2, rows, hidden, dtype=dt),
            rand(hidden, dtype=dt), rand(hidden, dtype=dt))


def rope(dt, seq, head_dim):
    from unsloth.kernels.rope_embedding import fast_rope_embedding
    bsz, hq, hk = 2, 4, 2
    cos = rand(seq, head_dim, dtype=dt, grad=False)
    sin = rand(seq, head_dim, dtype=dt, grad=False)
    fwd_bwd(lambda q, k: fast_rope_embedding(q, k, cos, sin), rand(bsz, hq, seq, head_dim, dtype=dt),
            rand(bsz, hk, seq, head_dim, dtype=dt))


def rope_indexed(dt, seq, head_dim):
    # The QK kernel, with per-token position indices (TRL's packed sequences).
    from unsloth.kernels.rope_embedding import fast_rope_embedding
    bsz, hq, hk = 2, 4, 2
    cos = rand(seq, head_dim, dtype=dt, grad=False)
    sin = rand(seq, head_dim, dtype=dt, grad=False)
    idx = torch.randint(0, seq, (bsz, seq), device=DEV, dtype=torch.int32)
    fwd_bwd(lambda q, k: fast_rope_embedding(q, k, cos, sin, idx), rand(bsz, hq, seq, head_dim, dtype=dt),
            rand(bsz, hk, seq, head_dim, dtype=dt))


def elementwise_pair(forward, backward, dt, rows, hidden):
    """swiglu/geglu: the forward kernel, then the fused backward that overwrites its inputs."""
    mod = __import__(f"unsloth.kernels.{forward[0]}", fromlist=[forward[1]])
    e, g = rand(2, rows, hidden, dtype=dt, grad=False), rand(2, rows, hidden, dtype=dt, grad=False)
    getattr(mod, forward[1])(e, g)
    dw = rand(2 * rows, hidden, dtype=dt, grad=False)
    getattr(mod, backward)(dw, e.view(-1, hidden).clone(), g.view(-1, hidden).clone())


def cross_entropy(dt, rows, vocab, softcap=0, scaling=0):
    from unsloth.kernels.cross_entropy_loss import fast_cross_entropy_loss
    labels = torch.randint(0, vocab, (2, rows), device=DEV)
    labels[:, ::4] = -100
    loss = fast_cross_entropy_loss(rand(2, rows, vocab, dtype=dt), labels, softcap, scaling)
    loss.backward()


def lora_mlp(dt, rows, hidden, kind="swiglu"):
    from unsloth.kernels import fast_lora
    inter, r = 2 * hidden, 8
    fwd_fn, bwd_fn = {
        "swiglu": (fast_lora.swiglu_fg_kernel, fast_lora.swiglu_DWf_DW_dfg_kernel),
        "geglu_exact": (fast_lora.geglu_exact_forward_kernel, fast_lora.geglu_exact_backward_kernel),
        "geglu_approx": (fast_lora.geglu_approx_forward_kernel, fast_lora.geglu_approx_backward_kernel),
    }[kind]

    def proj(n_out, n_in):
        return (rand(n_out, n_in, dtype=dt, grad=False, scale=0.05), None, rand(r, n_in, dtype=dt, scale=0.05),
                rand(n_out, r, dtype=dt, scale=0.05), 0.5)

    x = rand(2, rows, hidden, dtype=dt)
    fwd_bwd(lambda x: fast_lora.LoRA_MLP.apply(x, *proj(inter, hidden), *proj(inter, hidden), *proj(hidden, inter),
                                               fwd_fn, bwd_fn, False), x)


def fp8_act_quant_dequant(dt, rows, hidden):
    from unsloth.kernels.fp8 import act_quant, weight_dequant
    y, s = act_quant(rand(rows, hidden, dtype=dt, grad=False), 128)
    w = rand(hidden, 2 * hidden, grad=False).to(torch.float8_e4m3fn)
    ws = torch.rand((hidden + 127) // 128, (2 * hidden + 127) // 128, device=DEV)
    weight_dequant(w, ws, dtype=dt)


def fp8_block_matmul(dt, rows, hidden):
    from unsloth.kernels.fp8 import act_quant, w8a8_block_fp8_matmul_triton
    n = 256
    a, a_s = act_quant(rand(rows, hidden, dtype=dt, grad=False), 128)
    b = rand(n, hidden, grad=False).to(torch.float8_e4m3fn)
    b_s = torch.rand(n // 128, hidden // 128, device=DEV)
    w8a8_block_fp8_matmul_triton(a, b, a_s, b_s, [128, 128], dt)


OPS = (
    variants("rms_layernorm", rms_layernorm)
    + variants("rms_layernorm_gemma", functools.partial(rms_layernorm, gemma=True), shapes=((15, 1000),))
    + variants("layernorm", layernorm)
    + variants("rope", rope, shapes=((16, 64), (15, 96)))
    + variants("rope_indexed", rope_indexed, shapes=((16, 64), (15, 96)))
    + variants("swiglu", functools.partial(elementwise_pair, ("swiglu", "swiglu_fg_kernel"),
                                           "swiglu_DWf_DW_dfg_kernel"))
    + variants("geglu_exact", functools.partial(elementwise_pair, ("geglu", "geglu_exact_forward_kernel"),
                                                "geglu_exact_backward_kernel"))
    + variants("geglu_approx", functools.partial(elementwise_pair, ("geglu", "geglu_approx_forward_kernel"),
                                                 "geglu_approx_backward_kernel"))
    + variants("cross_entropy", cross_entropy, shapes=((16, 512), (15, 1000)))
    + variants("cross_entropy_chunked", cross_entropy, dtypes=(torch.bfloat16,), shapes=((4, 70000),))
    + variants("cross_entropy_softcap_scale", functools.partial(cross_entropy, softcap=30.0, scaling=0.5),
               shapes=((15, 1000),))
    + variants("lora_mlp_swiglu", lora_mlp, dtypes=(torch.float16, torch.bfloat16), shapes=((16, 64),))
    + variants("lora_mlp_geglu_exact", functools.partial(lora_mlp, kind="geglu_exact"),
               dtypes=(torch.bfloat16,), shapes=((16, 64),))
    + variants("lora_mlp_geglu_approx", functools.partial(lora_mlp, kind="geglu_approx"),
               dtypes=(torch.bfloat16,), shapes=((16, 64),))
    + variants("fp8_act_quant_dequant", fp8_act_quant_dequant, shapes=((16, 256), (15, 384)))
    + variants("fp8_block_matmul", fp8_block_matmul, dtypes=(torch.bfloat16,), shapes=((16, 256), (15, 384)))
)

if __name__ == "__main__":
    fp8 = "this torch has no float8 dtypes"
    harness.run_ops(OPS, gpu_only={} if HAS_FP8 else {"fp8_act_quant_dequant": fp8, "fp8_block_matmul": fp8})
    harness.finish()
