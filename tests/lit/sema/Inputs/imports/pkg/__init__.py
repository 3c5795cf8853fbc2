# A package: `from .. import helper2` finds it.
