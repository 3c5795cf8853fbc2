from dataclasses import dataclass
from typing import Any, List


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        return TensorDescriptor(tensor, list(tensor.shape), list(tensor.stride()), list(block_shape), padding)
