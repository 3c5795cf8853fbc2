from proj.ops.kern import k  # noqa: F401
