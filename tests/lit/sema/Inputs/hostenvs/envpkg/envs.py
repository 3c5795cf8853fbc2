# An environment-variable module in vLLM's style: each variable is declared for type checkers
# only, and read on access through the module's __getattr__ from a table of readers, some made
# by a function that returns a nested function.
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    TILEC_TEST_BLOCK: int = 64
    TILEC_TEST_LIST: list[str] | None = None
    TILEC_TEST_MODE: str | None = None


def env_with_choices(name, default, choices):
    def _read():
        value = os.getenv(name)
        if value is None:
            return default
        if value not in choices:
            raise ValueError(f"Invalid value '{value}' for {name}")
        return value

    return _read


environment_variables = {
    "TILEC_TEST_BLOCK": lambda: int(os.getenv("TILEC_TEST_BLOCK", "64")),
    "TILEC_TEST_LIST": lambda: (
        None if "TILEC_TEST_LIST" not in os.environ else os.environ["TILEC_TEST_LIST"].split(",")
    ),
    "TILEC_TEST_MODE": env_with_choices("TILEC_TEST_MODE", "fast", ["fast", "exact"]),
}


def __getattr__(name: str):
    if name in environment_variables:
        return environment_variables[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
