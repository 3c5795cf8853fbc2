class dtype:
    """A Triton dtype: `str()` gives Triton's name (`fp32`, `bf16`, `int32`), which tilec_diff maps back."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def __repr__(self):
        return "triton.language." + self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    @property
    def primitive_bitwidth(self):
        digits = "".join(c for c in self.name if c.isdigit())
        return 8 if self.name.startswith("fp8") else (1 if self.name == "int1" else int(digits or 0))

    def is_floating(self):
        return self.name.startswith(("fp", "bf"))

    def is_int_signed(self):
        return self.name.startswith("int")

    def is_int_unsigned(self):
        return self.name.startswith("uint")


class pointer_type(dtype):
    def __init__(self, element_ty, address_space=1, const=False):
        self.element_ty = element_ty
        super().__init__(f"pointer<{element_ty}>")


class block_type(dtype):
    def __init__(self, element_ty, shape):
        self.element_ty, self.shape = element_ty, shape
        super().__init__(f"<{shape}, {element_ty}>")


class constexpr:
    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value}]"

    def __index__(self):
        return self.value

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, constexpr) else other)

    def __hash__(self):
        return hash(self.value)


class tensor:
    pass


class PropagateNan:
    NONE = 0
    ALL = 0xFFFF


void = dtype("void")
int1 = dtype("int1")
int8, int16, int32, int64 = (dtype(f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (dtype(f"uint{b}") for b in (8, 16, 32, 64))
float8e5, float8e5b16 = dtype("fp8e5"), dtype("fp8e5b16")
float8e4nv, float8e4b8, float8e4b15 = dtype("fp8e4nv"), dtype("fp8e4b8"), dtype("fp8e4b15")
float16, bfloat16, float32, float64 = dtype("fp16"), dtype("bf16"), dtype("fp32"), dtype("fp64")
pi32_t = pointer_type(int32)


class _Placeholder:
    """A `triton.language` function or attribute: referable, never run (no kernel body runs here)."""

    def __init__(self, name):
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"stand-in triton: {self.__name__} runs only inside kernels")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder(f"{self.__name__}.{name}")

    def __repr__(self):
        return f"<stand-in {self.__name__}>"


def placeholder(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder("triton.language." + name)


def __getattr__(name):
    return placeholder(name)
