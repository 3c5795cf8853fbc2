# The package rebinds the name of its submodule `scale` to the function of that name.
from .scale import scale
