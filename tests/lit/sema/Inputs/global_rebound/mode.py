# Module-level state that functions rebind with `global`, as a project's switch for a
# deterministic mode is kept: the decorators of kernels.py call pick() when Python imports it.
import os

import torch

_override = None
_warned = False
scale = 2


def set_mode(value):
    global _override
    _override = value


def set_scale(value):
    global scale
    scale = value


def use_mode():
    if _override is not None:
        return _override
    env = os.environ.get("TILEC_TEST_GLOBAL_MODE")
    if env:
        return env[0] == "1"
    return torch.are_deterministic_algorithms_enabled()


def pick(configs):
    if not use_mode():
        return configs
    global _warned
    if not _warned:
        _warned = True
    return configs[:1]


def remember():
    global _cache
    _cache = 5
    return 1


class Registry(metaclass=type):
    # A class with keyword-only bases (the parser keeps its bases as a call without a callee):
    # the search for module-level calls that rebind a name walks past it.
    pass

