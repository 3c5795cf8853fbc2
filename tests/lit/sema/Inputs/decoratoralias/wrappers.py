# A project's own names for Triton's decorators, made as Fast-LLM makes them: a wrapper that
# defers the decorator's lookup and returns what it returns.
import triton


def defer(get_decorator, returns_decorator=True):
    def decorator(*args, **kwargs):
        try:
            out = get_decorator()(*args, **kwargs)
        except Exception as e:
            out = None
        if returns_decorator:
            return defer(lambda: out, returns_decorator=False)
        return out

    return decorator


my_jit = defer(lambda: triton.jit)
my_autotune = defer(lambda: triton.autotune)
MyConfig = triton.Config
interpreted = triton.knobs.runtime.interpret
