# The package's host-side library: a kernel that reads none of the package's own names never
# runs it, and this file does not even parse.
from .layers import Attention
def broken(:
    pass
