from . import autotuner, errors, jit  # noqa: F401
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .driver import driver  # noqa: F401
from .errors import OutOfResources  # noqa: F401
from .jit import JITFunction, KernelInterface  # noqa: F401
