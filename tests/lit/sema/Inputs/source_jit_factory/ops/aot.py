# A framework's own path to Triton: the decorator factory hands each function to a class that
# writes its source behind "@triton.jit" and runs Triton's ahead-of-time compiler on the file.
import inspect
import subprocess

import framework_that_is_not_installed


def write_kernel_source(fn, path):
    text = inspect.getsource(fn)
    text = text[text.find("def "):]
    with open(path, "w") as out:
        out.write("import triton\nimport triton.language as tl\n\n@triton.jit\n" + text)


class AotKernel:
    def __init__(self, fn, options, key):
        self.fn = fn

        def launch(*args, **kwargs):
            write_kernel_source(fn, "/tmp/kernel.py")
            subprocess.run(["python", "compile.py", "/tmp/kernel.py"])

        self.launch = launch

    def __getitem__(self, grid):
        return self.launch


def aot_triton(options={}, key=[]):
    def wrap(fn):
        return AotKernel(fn, options, key)

    return wrap


class Recorder:
    def __init__(self, fn, key):
        self.fn = fn


def record(key=[]):
    def wrap(fn):
        return Recorder(fn, key)

    return wrap


class Documented:
    """Wraps a kernel already made with Triton's decorator:

    @documented(key=["n"])
    @triton.jit
    def kernel(...): ...
    """

    def __init__(self, fn, key):
        self.fn = fn


def documented(key=[]):
    def wrap(fn):
        return Documented(fn, key)

    return wrap
