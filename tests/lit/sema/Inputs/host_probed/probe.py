# Host code that picks configs and a math library by probing the machine when imported, the
# way a multi-vendor operator library does: a class that runs a vendor tool, and a module-level
# name that a function rebinds with `global` after asking that class for the vendor.
import subprocess

import triton
import triton.language as tl


class Tuner:
    def __init__(self):
        found = subprocess.run(["nvidia-smi"], capture_output=True)
        self.vendor = "nvidia" if found.returncode == 0 else "other"

    def configs(self, name):
        return [triton.Config({"BLOCK": 128}, num_warps=4)]


_math = None


def select_math():
    global _math
    if Tuner().vendor == "nvidia":
        _math = tl.extra.cuda.libdevice


def get_tuned_config(name):
    return Tuner().configs(name)


def get_heuristic_config(name):
    return {"EVEN": lambda args: args["n"] % args["BLOCK"] == 0}


select_math()
math_lib = _math
