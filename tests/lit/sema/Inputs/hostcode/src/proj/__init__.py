# A package whose __init__ imports its own submodules, which import each other through the package.
from proj.ops import kern  # noqa: F401
# Python fails on this pair of imports (each module takes LOOP from the other): so does tilec.
from proj.ops.kern import LOOP  # noqa: F401,E402
