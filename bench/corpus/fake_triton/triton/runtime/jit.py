"""`@triton.jit` of the stand-in: a launch binds nothing and runs nothing.

`JITFunction.run` is the method Triton's launches go through (`kernel[grid](...)`, the autotuner, the
heuristics); the pre-check replaces it with tilec_diff's hook, as the GPU run replaces Triton's.
"""
import inspect


class KernelParam:
    """The parts of Triton's KernelParam that launch hooks read."""

    def __init__(self, num, param, do_not_specialize):
        self.num = num
        self._param = param
        self.do_not_specialize = do_not_specialize

    @property
    def name(self):
        return self._param.name

    @property
    def annotation(self):
        a = self._param.annotation
        if a is inspect.Parameter.empty:
            return ""
        return a if isinstance(a, str) else getattr(a, "__name__", str(a))

    @property
    def is_constexpr(self):
        return "constexpr" in self.annotation

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self):
        return self._param.default is not inspect.Parameter.empty


class KernelInterface:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)

    def warmup(self, *args, grid=(1,), **kwargs):
        return self.run(grid=grid, warmup=True, *args, **kwargs)


class JITFunction(KernelInterface):
    def __init__(self, fn, version=None, do_not_specialize=None, do_not_specialize_on_alignment=None,
                 debug=None, noinline=None, repr=None, launch_metadata=None):
        self.fn = fn
        self.module = fn.__module__
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__globals__ = fn.__globals__
        signature = inspect.signature(fn)
        self.arg_names = list(signature.parameters)
        dns = do_not_specialize or []
        dns = {self.arg_names[d] if isinstance(d, int) else d for d in dns}
        self.params = [KernelParam(i, p, p.name in dns) for i, p in enumerate(signature.parameters.values())]
        self.noinline = noinline

    def run(self, *args, grid, warmup, **kwargs):
        # Bind as Triton would, so a call that Triton rejects fails here too.
        names = set(self.arg_names)
        inspect.signature(self.fn).bind(*args, **{k: v for k, v in kwargs.items() if k in names})
        from ..compiler import CompiledKernel
        return CompiledKernel(self)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel")

    def __repr__(self):
        return f"JITFunction({self.module}:{self.fn.__qualname__})"


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None):
    def decorator(f):
        return JITFunction(f, version=version, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment, debug=debug,
                           noinline=noinline, repr=repr, launch_metadata=launch_metadata)

    return decorator(fn) if fn is not None else decorator
