# A lazy module proxy in the style of physicsnemo's OptionalImport: one instance per module name
# (a memo cache that __new__ fills), attributes stored with object.__setattr__ and read with
# object.__getattribute__, the module imported when __getattr__ is first asked.
import importlib

_instances = {}
_counter = {"made": 0}


class Lazy:
    def __new__(cls, name):
        if name in _instances:
            return _instances[name]
        made = object.__new__(cls)
        _instances[name] = made
        return made

    def __init__(self, name):
        try:
            object.__getattribute__(self, "_name")
            return
        except AttributeError:
            pass
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_loaded", None)

    def _load(self):
        loaded = object.__getattribute__(self, "_loaded")
        if loaded is not None:
            return loaded
        loaded = importlib.import_module(object.__getattribute__(self, "_name"))
        object.__setattr__(self, "_loaded", loaded)
        return loaded

    def __getattr__(self, attr):
        return getattr(self._load(), attr)


def bump(key):
    # Not a memo cache: the stored value depends on how often it ran.
    _counter[key] = _counter[key] + 1
    return _counter[key]
