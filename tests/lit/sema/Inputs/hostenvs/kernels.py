from importlib.metadata import entry_points

import triton
import triton.language as tl

import envpkg.envs as envs


def plugin_count():
    # No installed package registers plugins in this group.
    return len(entry_points(group="tilec_test.plugins"))


def settings():
    names = envs.TILEC_TEST_LIST
    listed = 0 if names is None else len(names)
    exact = 1 if envs.TILEC_TEST_MODE == "exact" else 0
    return envs.TILEC_TEST_BLOCK, listed, exact


BLOCK, LISTED, EXACT = settings()
PLUGINS = plugin_count()


@triton.jit
def k(X):
    tl.store(X, BLOCK)
    tl.store(X + 1, LISTED)
    tl.store(X + 2, EXACT)
    tl.store(X + 3, PLUGINS)
