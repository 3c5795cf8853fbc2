# A package whose __init__ imports its own submodules while it runs, one of which imports a
# sibling through `..` (as FlagGems' runtime package does): Python binds the submodules.
from . import backend, common
from .backend.device import vendor

LIMIT = common.BASE + backend.OFFSET
