# Found by importlib.util.find_spec("helpers_pkg.sub"); nothing imports it.
