from ...core import placeholder


def __getattr__(name):
    return placeholder("extra.cuda.libdevice." + name)
