"""`@triton.autotune` and `@triton.heuristics` of the stand-in, trying configs in Triton 3.6's order.

On a new key the autotuner prunes the configs (`early_config_prune`, then `perf_model`/`top_k`) and,
if more than one is left, launches each of them once (Triton benchmarks each); then it launches the
chosen one (the first here: there are no timings).  Every launch goes through `fn.run`, so every
config that Triton would compile is recorded.
"""
import inspect

from .jit import KernelInterface


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self):
        extra = (("num_warps", self.num_warps), ("num_ctas", self.num_ctas), ("num_stages", self.num_stages),
                 ("maxnreg", self.maxnreg), ("ir_override", self.ir_override))
        return {**self.kwargs, **{k: v for k, v in extra if v is not None}}

    def __str__(self):
        return ", ".join([f"{k}: {v}" for k, v in self.kwargs.items()] +
                         [f"num_warps: {self.num_warps}", f"num_stages: {self.num_stages}"])


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False,
                 do_bench=None, cache_results=False):
        self.fn = fn
        self.arg_names = arg_names
        self.configs = configs or [Config({}, num_warps=4, num_stages=3, num_ctas=1)]
        self.keys = key
        self.cache = {}
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.pre_hook = pre_hook
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn

    def prune_configs(self, kwargs):
        configs = self.configs
        if self.early_config_prune:
            configs = self.early_config_prune(self.configs, self.nargs, **kwargs)
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            if len(configs) > top_k:
                est = {c: self.perf_model(**self.nargs, **kwargs, **c.all_kwargs()) for c in configs}
                configs = sorted(est, key=lambda c: est[c])[:top_k]
        return configs

    def _launch(self, args, kwargs, config):
        if config.pre_hook:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        return self.fn.run(*args, **kwargs, **config.all_kwargs())

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        config = self.configs[0]
        if len(self.configs) > 1:
            all_args = {**self.nargs, **kwargs}
            named = {k: v for k, v in all_args.items() if k in self.arg_names}
            key = [named[k] for k in self.keys if k in named]
            key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
            key = tuple(key)
            if key not in self.cache:
                pruned = self.prune_configs(kwargs)
                if len(pruned) > 1:
                    for c in pruned:
                        self._launch(args, kwargs, c)
                self.cache[key] = pruned[0]
            config = self.cache[key]
        ret = self._launch(args, kwargs, config)
        self.nargs = None
        return ret


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    def decorator(fn):
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.values = values
        self.arg_names = arg_names

    def run(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)

    return decorator
