# Plain Python that picks a math function from the first module that has it, the way projects
# stay portable across Triton versions: find_spec, module_from_spec, exec_module, getattr.
import importlib.util

CANDIDATES = ("no_such_package.math", "triton.language.extra.libdevice", "triton.language.math")


def find_function(name):
    for location in CANDIDATES:
        if (spec := importlib.util.find_spec(location)) is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return getattr(module, name)
    raise ImportError(name)


def first_long_name(names):
    # A walrus in a loop's condition, its value used after the loop.
    for name in names:
        if (n := len(name)) >= 5:
            return name, n
    return None, 0
