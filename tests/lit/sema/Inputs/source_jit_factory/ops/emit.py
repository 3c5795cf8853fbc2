# Writes a function's source out as a Triton kernel file; the factory in split_factory.py calls it.
import inspect


def kernel_file_text(fn):
    body = inspect.getsource(fn)
    return "import triton\nimport triton.language as tl\n\n@triton.jit\n" + body[body.find("def "):]
