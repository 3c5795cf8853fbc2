# Module-level code that Python would run but tilec cannot evaluate ahead of time, or that raises:
# each global is an error only for the kernel that uses it.
import importlib.metadata
import os
import re

import torch
import triton
import triton.language as tl
from packaging.version import Version


def strict(text):
    return Version(text)


INVALID = Version("not a version")
UNCAUGHT = strict("1.x")
TORCH_VERSION = Version(torch.__version__)
TORCH_DIST = importlib.metadata.version("torch")
NOT_FOUND = importlib.metadata.version("no-such-distribution")
LOOKBEHIND = re.search(r"(?<=v)\d", "v1")
NON_ASCII = re.match("\u00e9", "\u00e9t\u00e9")
ISINSTANCE = isinstance(1, torch.Tensor)
FSTRING = f"{tl.float32:>3}"
ORDER = Version("1.0") < "2.0"
STR = str(torch.float32)
CALL = os.cpu_count()
HASATTR = hasattr(torch, "xpu")
REGEX = re.match("a{", "a{")
POSITION = re.compile("a").match("ba", 1)


@triton.jit
def invalid(X):
    tl.store(X, INVALID is None)


@triton.jit
def uncaught(X):
    tl.store(X, UNCAUGHT is None)


@triton.jit
def torch_version(X):
    tl.store(X, TORCH_VERSION is None)


@triton.jit
def torch_dist(X):
    tl.store(X, TORCH_DIST is None)


@triton.jit
def not_found(X):
    tl.store(X, NOT_FOUND is None)


@triton.jit
def lookbehind(X):
    tl.store(X, LOOKBEHIND is None)


@triton.jit
def non_ascii(X):
    tl.store(X, NON_ASCII is None)


@triton.jit
def is_instance(X):
    tl.store(X, ISINSTANCE)


@triton.jit
def fstring(X):
    tl.store(X, FSTRING is None)


@triton.jit
def order(X):
    tl.store(X, ORDER)


@triton.jit
def to_str(X):
    tl.store(X, STR is None)


@triton.jit
def call(X):
    tl.store(X, CALL is None)


@triton.jit
def has_attr(X):
    tl.store(X, HASATTR)


@triton.jit
def regex(X):
    tl.store(X, REGEX is None)


@triton.jit
def position(X):
    tl.store(X, POSITION is None)
