# Names this module does not define come from its __getattr__ (PEP 562); the annotation under
# `if TYPE_CHECKING:` binds nothing.
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    SCALE: float
    PROBE: int

OFFSET = 0.5


def __getattr__(name: str):
    if name == "SCALE":
        return 2.5
    if name == "PROBE":
        # What only the machine that runs the kernels can answer.
        import gpu_probe_library

        return gpu_probe_library.sm_count()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
