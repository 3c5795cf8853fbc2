from .act import *
