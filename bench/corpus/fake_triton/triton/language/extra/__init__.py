from . import cuda, libdevice  # noqa: F401
