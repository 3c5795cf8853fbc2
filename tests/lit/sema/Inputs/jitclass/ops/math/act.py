import triton
import triton.language as tl


class Act:
    class Inner:
        @staticmethod
        @triton.jit
        def square(x):
            return x * x
