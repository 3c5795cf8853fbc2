# Module-level code that asks about the host, as projects pick a device or a backend at import
# time. tilec answers as the host that runs its kernels: Linux, an NVIDIA GPU, a CUDA build of
# torch; os.environ is tilec's own environment; find_spec finds what an import would.
import importlib.util
import os
import platform

import torch
import triton
import triton.language as tl

import helpers_pkg


def on_apple_silicon():
    return (
        os.environ.get("TILEC_TEST_FORCE_GPU", "0") != "1"
        and platform.system() == "Darwin"
        and platform.machine() == "arm64"  # never asked: the test above is False on Linux
        and importlib.util.find_spec("mlx") is not None
    )


def is_rocm():
    return bool(getattr(getattr(torch, "version", None), "hip", None))


def device_kind():
    if on_apple_silicon():
        return "mps"
    if hasattr(torch, "cuda") and torch.cuda.is_available():
        return "hip" if is_rocm() else "cuda"
    return "cpu"


CHECKS = (
    device_kind() == "cuda",
    platform.system() == "Linux",
    importlib.util.find_spec("surely_not_installed_module") is None,
    importlib.util.find_spec("re") is not None and importlib.util.find_spec("torch") is not None,
    importlib.util.find_spec("sibling").name == "sibling",
    importlib.util.find_spec("helpers_pkg.sub") is not None,
    os.environ.get("TILEC_TEST_NEVER_SET", "default") == "default",
    os.getenv("TILEC_TEST_NEVER_SET") is None,
    hasattr(helpers_pkg, "SIZE") and not hasattr(helpers_pkg, "MISSING"),
    getattr(helpers_pkg, "MISSING", 7) == 7 and getattr(helpers_pkg, "SIZE") == 16,
)

# What the environment says when tilec runs, as in the process that imports the module.
FROM_ENVIRONMENT = os.environ.get("TILEC_TEST_VARIABLE", "unset") == "set"


@triton.jit
def checks(X):
    for i in tl.static_range(len(CHECKS)):
        tl.store(X + i, 1 if CHECKS[i] else 0)


@triton.jit
def environment(X):
    tl.store(X, 1 if FROM_ENVIRONMENT else 0)


def getattr_missing():
    return getattr(helpers_pkg, "MISSING")


MISSING = getattr_missing()


@triton.jit
def uses_missing(X):
    tl.store(X, MISSING)
