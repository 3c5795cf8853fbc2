# Named like an installed library that another module of the package imports absolutely.
fast = 1
