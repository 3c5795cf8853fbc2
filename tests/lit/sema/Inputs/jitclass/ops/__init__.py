from . import math
from .scale import *
