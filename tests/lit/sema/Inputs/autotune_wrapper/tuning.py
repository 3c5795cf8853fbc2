# A project's own spelling of triton.autotune: a function taking triton.autotune's configs and
# key (and run-time options of its own) that returns a decorator building Triton's Autotuner.
from typing import List

import triton
from triton.runtime.autotuner import Autotuner

try:
    from some_internal_package.tuning import tuned  # not installed: the handler defines it
except ImportError:

    def tuned(configs: List[triton.Config], key: List[str], prune_configs_by=None, warmup: int = 25):
        def decorator(fn):
            return Autotuner(fn, fn.arg_names, configs, key, None, None, pre_hook=None,
                             post_hook=None, prune_configs_by=prune_configs_by, warmup=warmup)

        return decorator


def tuned_by_keyword(configs, key, rep=100):
    return lambda fn: triton.autotune(configs=configs, key=key)(fn)


# Not an autotuner: its first parameters have other names.
def not_tuned(options, keys):
    def decorator(fn):
        return fn

    return decorator
