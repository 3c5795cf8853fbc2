# A library module named as a module of the kernel's package (pkg/ops/scale.py imports it).
FACTOR = 3
