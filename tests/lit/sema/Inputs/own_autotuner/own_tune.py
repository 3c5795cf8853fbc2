# A project's own autotuner with triton.autotune's arguments (and some of its own), as GPTQModel's
# custom_autotune: a class that host code instantiates, which tilec does not run.
import triton


class Autotuner:
    def __init__(self, fn, configs, key, nearest_power_of_two):
        self.fn = fn
        self.configs = configs
        self.key = key
        self.nearest_power_of_two = nearest_power_of_two


def autotune(configs, key, nearest_power_of_two=False):
    def decorator(fn):
        return Autotuner(fn, configs, key, nearest_power_of_two)

    return decorator
