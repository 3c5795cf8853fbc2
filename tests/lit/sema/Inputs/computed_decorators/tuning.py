# A project's own copies of Triton's autotuning classes, which its kernels' modules build their
# decorators from (as GaLore's custom_autotune does).


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=2):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages


class Autotuner:
    def __init__(self, fn, arg_names, configs, key, prune_configs_by=None):
        self.fn = fn
        self.arg_names = arg_names
        self.configs = configs
        self.key = key


class Heuristics:
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.arg_names = arg_names
        self.values = values


def autotune(configs, key, prune_configs_by=None):
    def wrap(fn):
        return Autotuner(fn, fn.arg_names, configs, key, prune_configs_by)

    return wrap


def heuristics(values):
    def wrap(fn):
        return Heuristics(fn, fn.arg_names, values)

    return wrap
