"""What both drivers call a project's ops with (import it after harness.setup() and torch): random
inputs on the run's device, forward and backward, one op per dtype and shape."""
import functools

import torch

DEVICE = "cuda"  # the drivers set harness.setup()'s answer here
DTYPES = (torch.float32, torch.bfloat16)
ROWS_HIDDEN = ((2 * 8, 64), (3 * 5, 1000))  # (rows, hidden): a power of two and not


def rand(*shape, dtype=torch.float32, grad=True, scale=1.0):
    t = (torch.randn(*shape, dtype=torch.float32) * scale).to(device=DEVICE, dtype=dtype)
    return t.requires_grad_(grad)


def fwd_bwd(fn, *inputs):
    """Runs `fn(*inputs)` and, if any output needs a gradient, backward with random output grads."""
    out = fn(*inputs)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,))
            if isinstance(o, torch.Tensor) and o.requires_grad]
    if outs:
        torch.autograd.backward(outs, [torch.randn_like(o) for o in outs])
    return out


def variants(name, body, dtypes=DTYPES, shapes=ROWS_HIDDEN):
    """One op per dtype and shape: `body(dtype, rows, hidden)`."""
    return [(f"{name}/{str(dt).split('.')[-1]}/{r}x{h}", functools.partial(body, dt, r, h))
            for dt in dtypes for r, h in shapes]
