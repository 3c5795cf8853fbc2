from ..core import placeholder


def __getattr__(name):
    return placeholder("extra.libdevice." + name)
