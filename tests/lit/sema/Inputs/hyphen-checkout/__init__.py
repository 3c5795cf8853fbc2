# A checkout's top-level __init__.py: the folder's name is no Python identifier, so it is never
# imported as a package; its parent is not where `scalepkg` is found.
