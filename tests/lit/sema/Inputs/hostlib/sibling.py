# A module next to host.py that host.py does not import: importlib.util.find_spec finds it.
WIDTH = 4
