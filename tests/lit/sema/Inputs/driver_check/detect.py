# A module that decides whether Triton is usable: the `if` rebinds the name its condition reads,
# and counts the active drivers among Triton's backends (one on a host with an NVIDIA GPU).
import os
from importlib.util import find_spec
from typing import TYPE_CHECKING

USABLE = find_spec("triton") is not None
if USABLE:
    try:
        from triton.backends import backends

        active = [b.driver for b in backends.values() if b.driver and b.driver.is_active()]
        names = [name for name in backends.keys()]
        if len(active) != 1 or "nvidia" not in names:
            USABLE = False
        if os.environ.get("DRIVER_CHECK_FORCE_OFF") == "1":
            USABLE = False
    except ImportError:
        USABLE = False

if TYPE_CHECKING:
    from annotations_only import Placeholder  # noqa: F401 (never imported at run time)
    CHECKED = 1
else:
    CHECKED = 0
