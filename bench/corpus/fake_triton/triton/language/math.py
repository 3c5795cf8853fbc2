from .core import placeholder


def __getattr__(name):
    return placeholder("math." + name)
