# An import-time initialiser, as FBGEMM's grouped GEMM decides whether warp specialization is
# available: module-level statements call functions that rebind module-level names with
# `global`, and module-level code after them reads the names.
import triton
import triton.language as tl

_HAS_FAST_PATH = None
_CALLS = 0


def _check_fast_path():
    return hasattr(tl, "no_such_api")


def _init():
    global _HAS_FAST_PATH, _CALLS
    if _HAS_FAST_PATH is None:
        _HAS_FAST_PATH = _check_fast_path()
    _CALLS += 1


def _calls_so_far():
    return _CALLS


_init()
_init()

if _HAS_FAST_PATH:
    CONFIGS = [triton.Config({"BLOCK": 256})]
else:
    CONFIGS = [triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})]

SCALE = _CALLS * 10


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def flag_kernel(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.full([BLOCK], SCALE, tl.float32), mask=offs < n)


# A function defined before the calls may be called after them: which value it reads, tilec
# cannot tell from the text.
EARLY = _calls_so_far()


@triton.jit
def early_kernel(ptr):
    tl.store(ptr, EARLY)
