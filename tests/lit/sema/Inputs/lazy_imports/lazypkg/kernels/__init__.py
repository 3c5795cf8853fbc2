from .ops import twice
from .unused import not_a_kernel
