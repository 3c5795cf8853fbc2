"""Random valid Triton kernels, and an independent evaluator of what they compute.

A program is one @triton.jit kernel over a [BM, BN] block (rows of a grid of programs), built as a
random data-flow graph whose values come from every source a layout can come from: 2-D loads (row-
and column-major), 1-D loads along either axis, aranges, scalars, reductions (any axis, with and
without keep_dims, and of size-1 axes), broadcasts (`[:, None]`, `[None, :]`, broadcast_to,
expand_dims), loop-carried values, dot products and transposes. Every operation picks its operands
from all of them, so an elementwise op meets a load and a reduction, a where meets two masked loads
(issue 13's `tl.where(o > 0.0, go, 0.0)` under `tl.sum`), a dot meets a loop-carried accumulator.

The evaluator (`evaluate`) computes the outputs exactly, in Python, with Triton's semantics: type
promotion (literals included), integer wrap-around, truncating division, shifts, casts with
round-to-nearest-even, fp16/bf16/fp32 rounding (fp32 computes fp16 and bf16 exactly rounded, and
fp64 fp32, since 24 >= 2*11+2 and 53 >= 2*24+2). Float inputs are mostly small dyadic numbers, so
sums and dots are exact in any order; where the evaluator cannot prove a float sum exact it marks
the outputs that depend on it inexact (compared within a bound). Where a result is unspecified
(NaN bits, a float out of an integer's range, max of +0 and -0) it rejects the program, and the
generator draws another: every program kept has one right answer per output element.

Only the Python standard library is used (CI has nothing else).
"""

import math
import random
import struct

# --- dtypes ---------------------------------------------------------------------------------

# name -> (bits, signed, is_float)
DTYPES = {
    "int1": (1, False, False),
    "int8": (8, True, False), "int16": (16, True, False),
    "int32": (32, True, False), "int64": (64, True, False),
    "uint8": (8, False, False), "uint16": (16, False, False),
    "uint32": (32, False, False), "uint64": (64, False, False),
    "float16": (16, True, True), "bfloat16": (16, True, True),
    "float32": (32, True, True), "float64": (64, True, True),
}
# Float types by precision: the coarsest of an inexact value's sources sets its bound.
MANTISSA_BITS = {"bfloat16": 8, "float16": 11, "float32": 24, "float64": 53}
SIG = {"int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
       "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
       "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
# (mantissa bits without the implicit one, smallest normal exponent, largest finite value)
FLOAT_FORMAT = {
    "float16": (10, -14, 65504.0),
    "bfloat16": (7, -126, (2 - 2 ** -7) * 2.0 ** 127),
    "float32": (23, -126, (2 - 2 ** -23) * 2.0 ** 127),
    "float64": (52, -1022, float("inf")),
}


def bits(t):
    return DTYPES[t][0]


def is_float(t):
    return DTYPES[t][2]


def is_int(t):
    return not DTYPES[t][2]


def is_signed(t):
    return DTYPES[t][1] and not DTYPES[t][2]


def is_bool(t):
    return t == "int1"


class Reject(Exception):
    """The program's result is not fully specified (or not checkable): draw another."""


# --- numerics -------------------------------------------------------------------------------


def wrap(v, t):
    """An integer reduced to dtype t (two's complement wrap-around)."""
    if t == "int1":
        return 1 if v else 0
    n = bits(t)
    v &= (1 << n) - 1
    if is_signed(t) and v >> (n - 1):
        v -= 1 << n
    return v


def _round_scaled(x, q):
    """x / 2^q rounded half-to-even, times 2^q; x a float or an int (exact either way)."""
    if isinstance(x, int):
        if q <= 0:
            return x
        quotient, remainder = divmod(x, 1 << q)  # floor division, remainder >= 0
        half = 1 << (q - 1)
        if remainder > half or (remainder == half and quotient & 1):
            quotient += 1
        return quotient << q
    return round(math.ldexp(x, -q)) * 2.0 ** q if q > -1000 else x


def round_float(x, t):
    """x (a Python float holding an exact value, or an int) rounded to float dtype t."""
    if t == "float64":
        return float(x)
    man, emin, largest = FLOAT_FORMAT[t]
    if isinstance(x, float) and (x != x or x in (math.inf, -math.inf)):
        return x
    if x == 0:
        return float(x) if isinstance(x, float) else 0.0
    if isinstance(x, int):
        exponent = abs(x).bit_length() - 1
    else:
        exponent = math.frexp(x)[1] - 1
    q = max(exponent, emin) - man
    r = _round_scaled(x, q)
    if isinstance(r, int):
        r = float(r) if abs(r) < 2 ** 1000 else math.inf * (1 if r > 0 else -1)
    if abs(r) > largest:
        return math.copysign(math.inf, x)
    return r


def float_bits(x, t):
    """The bit pattern of float x (already a value of dtype t)."""
    if x != x:
        raise Reject("NaN bits are unspecified")
    if t == "float64":
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    if t == "float32":
        return struct.unpack("<I", struct.pack("<f", x))[0]
    if t == "float16":
        return struct.unpack("<H", struct.pack("<e", x))[0]
    return struct.unpack("<I", struct.pack("<f", x))[0] >> 16  # bf16: exact in fp32


def float_from_bits(b, t):
    if t == "float64":
        return struct.unpack("<d", struct.pack("<Q", b))[0]
    if t == "float32":
        return struct.unpack("<f", struct.pack("<I", b))[0]
    if t == "float16":
        return struct.unpack("<e", struct.pack("<H", b))[0]
    return struct.unpack("<f", struct.pack("<I", b << 16))[0]


def cast_value(v, src, dst):
    """Triton's .to(dst) of one element."""
    if src == dst:
        return v
    if dst == "int1":
        return 1 if v != 0 else 0  # Triton: x != 0
    if is_float(src) and is_float(dst):
        return round_float(v, dst)
    if is_int(src) and is_float(dst):
        return round_float(int(v), dst)  # bool and unsigned values are already non-negative
    if is_float(src) and is_int(dst):
        if v != v or v in (math.inf, -math.inf):
            raise Reject("float to int of a non-finite value")
        i = int(v)  # fptosi/fptoui truncate toward zero
        lo, hi = (-(1 << (bits(dst) - 1)), (1 << (bits(dst) - 1)) - 1) if is_signed(dst) \
            else (0, (1 << bits(dst)) - 1)
        if not lo <= i <= hi:
            raise Reject("float to int out of range")
        return i
    return wrap(v, dst)  # int to int: truncate, or sign/zero-extend by the source's signedness


def bitcast_value(v, src, dst):
    b = float_bits(v, src) if is_float(src) else v & ((1 << bits(src)) - 1)
    return float_from_bits(b, dst) if is_float(dst) else wrap(b, dst)


# --- Triton's type promotion ----------------------------------------------------------------


def kind_rank(t):
    """Triton 3.6's dtype kinds: bool < integer (signed or not) < floating point."""
    if t == "int1":
        return 0
    if is_int(t):
        return 1
    return 2


def integer_promote(a, b):
    if a == b:
        return a
    sa, sb = is_signed(a), is_signed(b)
    if sa == sb:
        return a if bits(a) >= bits(b) else b
    s, u = (a, b) if sa else (b, a)
    return u if bits(u) >= bits(s) else s


def computation_type(a, a_lit, b, b_lit, div_or_mod=False):
    if a_lit != b_lit:
        lit, ten = (a, b) if a_lit else (b, a)
        if kind_rank(lit) <= kind_rank(ten):
            if div_or_mod and ten in ("float16", "bfloat16"):
                return "float32"
            return ten
    if "float64" in (a, b):
        return "float64"
    if "float32" in (a, b):
        return "float32"
    # fp16 with anything but fp64/fp32 (bf16 included) is fp16; bf16 only with bf16.
    if "float16" in (a, b):
        return "float32" if div_or_mod else "float16"
    if "bfloat16" in (a, b):
        return "float32" if div_or_mod or a != b else "bfloat16"
    return integer_promote(a, b)


# --- tensors for the evaluator ---------------------------------------------------------------


class T:
    """A block of values: shape (a tuple of at most two sizes), dtype, row-major data, and whether
    the values are exact (False below a float sum the evaluator could not prove exact)."""

    __slots__ = ("shape", "dtype", "data", "exact")

    def __init__(self, shape, dtype, data, exact=True):
        self.shape, self.dtype, self.data, self.exact = tuple(shape), dtype, data, exact

    def at(self, i, j):
        if len(self.shape) == 0:
            return self.data[0]
        if len(self.shape) == 1:
            return self.data[j if self.shape[0] > 1 else 0]
        r, c = self.shape
        return self.data[(i if r > 1 else 0) * c + (j if c > 1 else 0)]


def broadcast_shape(a, b):
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise AssertionError(f"shapes {a} and {b} do not broadcast")
        out.append(max(x, y))
    return tuple(out)


def expand(t, shape):
    """t broadcast to shape (numpy rules), as a flat list."""
    if t.shape == tuple(shape):
        return t.data
    if len(shape) == 0:
        return t.data
    if len(shape) == 1:
        return [t.data[0]] * shape[0] if len(t.data) == 1 else list(t.data)
    r, c = shape
    src = t.shape if len(t.shape) == 2 else (1,) * (2 - len(t.shape)) + t.shape
    sr, sc = src
    d = t.data
    return [d[(i if sr > 1 else 0) * sc + (j if sc > 1 else 0)] for i in range(r) for j in range(c)]


def zip_map(fn, dtype, *tensors, poison_aware=False):
    """fn applied element by element, with broadcasting. A lane that reads POISON (a masked-off
    load without `other`) is POISON, unless fn handles it (where)."""
    shape = ()
    for t in tensors:
        shape = broadcast_shape(shape, t.shape)
    columns = [expand(t, shape) for t in tensors]
    if poison_aware:
        data = [fn(*xs) for xs in zip(*columns)]
    else:
        data = [POISON if any(x is POISON for x in xs) else fn(*xs) for xs in zip(*columns)]
    return T(shape, dtype, data, all(t.exact for t in tensors))


def lowest_bit(x):
    """The value of the lowest set bit of float x != 0."""
    m, e = math.frexp(x)
    i = int(abs(m) * 2 ** 53)
    return (i & -i) * 2.0 ** (e - 53)


def exact_sum(values, t):
    """(sum, exact): the sum of float values in dtype t, and whether every order of summation gives
    it exactly (all partial sums are multiples of the smallest lowest bit that stay below 2^p of
    it, and within range)."""
    if any(v != v or v in (math.inf, -math.inf) for v in values):
        raise Reject("non-finite value in a sum")
    nonzero = [v for v in values if v != 0]
    if not nonzero:
        # Signs of zero: -0 only when every term is -0, in any order.
        return (-0.0 if values and all(math.copysign(1, v) < 0 for v in values) else 0.0), True
    unit = min(lowest_bit(v) for v in nonzero)
    total = math.fsum(nonzero)
    magnitude = math.fsum(abs(v) for v in nonzero)
    man, emin, largest = FLOAT_FORMAT[t]
    # unit is 0 below fp64's subnormals' resolution (a product of two tiny fp64 values): inexact.
    exact = (unit > 0 and magnitude / unit < 2.0 ** (man + 1) and unit >= 2.0 ** (emin - man)
             and magnitude <= largest)
    return round_float(total, t), exact


# --- the program --------------------------------------------------------------------------


class Val:
    """A value of the generated kernel: its Python name, kind of shape, dtype, and where it came
    from (the layout source: load, reduce, broadcast, loop, dot, ...)."""

    def __init__(self, name, kind, dtype, source):
        self.name, self.kind, self.dtype, self.source = name, kind, dtype, source


# Kinds of shape: "2d" [BM, BN], "m" [BM], "n" [BN], "m1" [BM, 1], "1n" [1, BN], "s" scalar.
BCAST = {}
for _a in ("2d", "m", "n", "m1", "1n", "s"):
    BCAST[(_a, _a)] = _a
    BCAST[(_a, "s")] = BCAST[("s", _a)] = _a
for _a, _b, _r in (("2d", "m1", "2d"), ("2d", "1n", "2d"), ("2d", "n", "2d"), ("m1", "1n", "2d"),
                   ("m1", "n", "2d"), ("1n", "n", "1n")):
    BCAST[(_a, _b)] = BCAST[(_b, _a)] = _r


class Program:
    """One generated kernel: its source text, signature, launch and buffers, and what it writes."""

    def __init__(self):
        self.lines = []
        self.params = []  # dicts: name, sig, kind (ptr/scalar/constexpr), ...
        self.buffers = {}  # name -> {"dtype", "data" (list), "role": in/out/atomic}
        self.stmts = []  # the evaluator's program (tuples, see Gen.emit_*)
        self.features = set()


class Gen:
    """Draws one program. `r` is a random.Random; everything follows from it."""

    def __init__(self, r, name):
        self.r, self.p, self.name = r, Program(), name
        self.counter = 0
        self.pool = []
        self.indent = 1

    # --- helpers ---------------------------------------------------------------------------

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def line(self, text):
        self.p.lines.append("    " * self.indent + text)

    def assign(self, kind, dtype, source, text, node):
        name = self.fresh()
        self.line(f"{name} = {text}")
        self.p.stmts.append(("assign", name, node))
        v = Val(name, kind, dtype, source)
        self.pool.append(v)
        return v

    def shape_of(self, kind):
        return {"2d": (self.BM, self.BN), "m": (self.BM,), "n": (self.BN,), "m1": (self.BM, 1),
                "1n": (1, self.BN), "s": ()}[kind]

    def pick(self, pred=lambda v: True):
        """A pool value satisfying pred; mostly one of the newest, so that chains grow deep and
        most values reach an output."""
        choices = [v for v in self.pool if pred(v)]
        if not choices:
            return None
        if self.r.random() < 0.6:
            return self.r.choice(choices[-4:])
        return self.r.choice(choices)

    def random_values(self, dtype, count):
        """Input data: small values mostly (exact float arithmetic, overflow rare but present),
        extremes of the integer range sometimes (wrap-around, sign and zero extension)."""
        r = self.r
        out = []
        wide = r.random() < 0.25
        for _ in range(count):
            if is_float(dtype):
                if wide and r.random() < 0.5:
                    v = r.uniform(-3, 3)  # arbitrary mantissas: rounding paths
                else:
                    v = r.randint(-24, 24) / 4
                out.append(round_float(v, dtype))
            else:
                n, signed = bits(dtype), is_signed(dtype)
                if wide and r.random() < 0.3:
                    lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)
                    v = r.choice([lo, hi, lo + 1, hi - 1, r.randint(lo, hi)])
                else:
                    v = r.randint(-20, 20) if signed else r.randint(0, 40)
                out.append(wrap(v, dtype))
        return out

    def add_param(self, name, sig, kind, **extra):
        self.p.params.append(dict(name=name, sig=sig, kind=kind, **extra))

    def literal(self, dtype):
        """A Python literal that may be combined with a tensor of dtype (Triton rejects negative
        literals with unsigned tensors)."""
        r = self.r
        if is_float(dtype) or r.random() < 0.15 and not is_bool(dtype):
            if is_int(dtype):
                return r.choice(["0.5", "2.0", "-1.5", "3.0"])  # int with a float literal: float32
            return r.choice(["0.0", "0.5", "-1.25", "2.0", "1.0", "-3.0"])
        if is_signed(dtype):
            return str(r.randint(-9, 9))
        return str(r.randint(0, 9))

    # --- the kernel ------------------------------------------------------------------------

    def generate(self):
        r = self.r
        self.use_dot = r.random() < 0.3
        self.dot_dtype = r.choice(["int8", "int8", "float16", "bfloat16", "float32"]) if self.use_dot else None
        if self.use_dot:
            self.BM = r.choice([16, 16, 32, 64])
            self.BN = r.choice([16, 32, 64]) if self.dot_dtype != "int8" else r.choice([32, 64])
            if self.BM * self.BN > 2048:
                self.BM = 2048 // self.BN
            self.num_warps = r.choice([1, 2, 4, 4, 8])
        else:
            self.BM = r.choice([1, 2, 4, 8, 16, 32])
            self.BN = r.choice([2, 4, 8, 16, 32, 64, 128])
            while self.BM * self.BN > 2048:
                self.BN //= 2
            self.num_warps = r.choice([1, 2, 4, 4, 8])
        self.G = r.choice([1, 2, 3])
        self.M = max(1, self.G * self.BM - (r.randrange(self.BM) if r.random() < 0.6 else 0))
        self.N = self.BN if r.random() < 0.4 else r.randint(1, self.BN)
        if self.use_dot:
            self.N = self.BN if r.random() < 0.5 else r.randint(self.BN // 2 + 1, self.BN)
        self.S = self.N if r.random() < 0.5 else (self.N + 15) // 16 * 16
        self.ST = self.M if r.random() < 0.5 else (self.M + 15) // 16 * 16  # column-major stride
        self.KITER = r.randint(1, 4)
        self.int_only = r.random() < 0.5
        self.dtypes = INTS if self.int_only else INTS + FLOATS + FLOATS

        # The scalar parameters, then pointers as the body asks for them (inserted before).
        self.scalars = []
        self.body_start = len(self.p.lines)
        self.line("pid = tl.program_id(0)")
        self.line("rm = pid * BM + tl.arange(0, BM)")
        self.line("rn = tl.arange(0, BN)")
        self.line("mm = rm < M")
        self.line("mn = rn < N")
        self.pool.append(Val("rm", "m", "int32", "arange"))
        self.pool.append(Val("rn", "n", "int32", "arange"))
        self.pool.append(Val("pid", "s", "int32", "program_id"))
        self.pool.append(Val("c", "s", "int32", "param"))

        # Seed the pool with loads of each shape, then grow it.
        for kind in r.sample(["2d", "2d", "2dt", "m", "n"], r.randint(2, 4)):
            self.load(kind)
        steps = r.randint(6, 16)
        for _ in range(steps):
            self.step()
        if r.random() < 0.6:
            self.loop()
            for _ in range(r.randint(1, 4)):
                self.step()
        if self.use_dot and not any(v.source == "dot" for v in self.pool):
            self.dot()
        self.outputs()
        return self.finish()

    def step(self):
        r = self.r
        choice = r.random()
        if choice < 0.08:
            self.load(r.choice(["2d", "2dt", "m", "n"]))
        elif choice < 0.45:
            self.binary()
        elif choice < 0.55:
            self.unary_or_cast()
        elif choice < 0.65:
            self.where()
        elif choice < 0.78:
            self.reduce()
        elif choice < 0.88:
            self.reshape()
        elif choice < 0.94 and self.use_dot:
            self.dot()
        else:
            self.full()

    # --- sources ---------------------------------------------------------------------------

    def new_buffer(self, dtype, size, role, prefix="x"):
        name = self.fresh(prefix) + "_ptr"
        data = self.random_values(dtype, size) if role == "in" else None
        self.p.buffers[name] = {"dtype": dtype, "size": size, "role": role, "data": data}
        align = self.r.random() < 0.7
        self.add_param(name, "*" + SIG[dtype] + (":16" if align else ""), "ptr")
        return name

    def load(self, kind, dtype=None, loop_var=None):
        """A load; `kind` 2d (row-major), 2dt (column-major), m or n. In a loop, the buffer holds
        KITER blocks one after another and the loop variable picks one."""
        r = self.r
        dtype = dtype or r.choice([d for d in self.dtypes])
        shape_kind = "2d" if kind.startswith("2d") else kind
        size = {"2d": self.M * self.S, "2dt": self.N * self.ST, "m": self.M, "n": self.N}[kind]
        if size == 0:
            size = 1
        copies = self.KITER if loop_var else 1
        buf = self.new_buffer(dtype, size * copies, "in")
        base = f"{loop_var} * {size} + " if loop_var else ""
        # Masks are needed whenever a block overhangs; drop them sometimes where none does.
        needs_mask = {"2d": self.G * self.BM != self.M or self.N != self.BN,
                      "2dt": self.G * self.BM != self.M or self.N != self.BN,
                      "m": self.G * self.BM != self.M, "n": self.N != self.BN}[kind]
        masked = needs_mask or r.random() < 0.6
        if kind == "2d":
            offs = "rm[:, None] * stride_m + rn[None, :] * stride_n"
            mask = "mm[:, None] & mn[None, :]"
        elif kind == "2dt":
            offs = "rm[:, None] + rn[None, :] * stride_t"
            mask = "mm[:, None] & mn[None, :]"
        elif kind == "m":
            offs, mask = "rm", "mm"
        else:
            offs, mask = "rn", "mn"
        other = None
        text = f"tl.load({buf} + {base}{offs}"
        if masked:
            other = self.literal(dtype) if r.random() < 0.6 else None
            if other is not None and is_int(dtype) and "." in other:
                other = None
            text += f", mask={mask}" + (f", other={other}" if other is not None else "")
        text += ")"
        node = ("load", buf, kind, masked, other, loop_var)
        self.p.features.add("load_" + kind)
        return self.assign(shape_kind, dtype, "load", text, node)

    def full(self):
        r = self.r
        dtype = r.choice(self.dtypes)
        kind = r.choice(["2d", "m", "n"])
        value = self.literal(dtype)
        if is_int(dtype) and "." in value:
            value = "3"
        shape = {"2d": "(BM, BN)", "m": "(BM,)", "n": "(BN,)"}[kind]
        return self.assign(kind, dtype, "full", f"tl.full({shape}, {value}, tl.{dtype})",
                           ("full", kind, value, dtype))

    # --- operations ------------------------------------------------------------------------

    def operand_pair(self):
        """Two pool values whose shapes broadcast together."""
        for _ in range(20):
            a = self.pick()
            b = self.pick(lambda v: (a.kind, v.kind) in BCAST and v is not a)
            if b is not None:
                return a, b
        return None, None

    def binary(self):
        r = self.r
        a, b = self.operand_pair()
        if a is None:
            return
        use_literal = r.random() < 0.25
        op = r.choice(["+", "-", "*", "+", "*", "&", "|", "^", "<<", ">>", "//", "%",
                       "max", "min", "<", ">", "==", "!=", "<=", ">="])
        both_int = is_int(a.dtype) and is_int(b.dtype)
        if op in ("&", "|", "^", "<<", ">>", "//", "%") and not both_int:
            # Integer-only ops on floats: make them integers first (a float-to-int cast).
            a = self.cast(a, "int32") if is_float(a.dtype) else a
            b = self.cast(b, "int32") if is_float(b.dtype) else b
            if a is None or b is None:
                return
        if op in ("+", "-", "*", "//", "%", "<<", ">>", "max", "min") and (
                is_bool(a.dtype) or is_bool(b.dtype)):
            a = self.cast(a, "int8") if is_bool(a.dtype) else a
            b = self.cast(b, "int8") if is_bool(b.dtype) else b
        if use_literal and op not in ("//", "%", "<<", ">>", "max", "min"):
            lit = self.literal(a.dtype)
            if op in ("&", "|", "^") and "." in lit:
                lit = "5"
            if is_bool(a.dtype) and op not in ("&", "|", "^", "==", "!="):
                return
            # Comparisons make the literal a tensor first (Triton's to_tensor): it takes part in
            # promotion there, unlike in arithmetic.
            comparison = op in ("<", ">", "==", "!=", "<=", ">=")
            rt = computation_type(a.dtype, False, "float32" if "." in lit else "int32",
                                  not comparison)
            if op in ("&", "|", "^"):
                rt = integer_promote(rt, rt)
            if is_int(rt) and not is_signed(rt) and lit.startswith("-"):
                return
            if is_int(rt) and "." not in lit and wrap(int(lit), rt) != int(lit):
                return  # Triton refuses a literal out of the tensor type's range
            kind = a.kind
            text = f"{a.name} {op} {lit}" if r.random() < 0.7 else f"{lit} {op} {a.name}"
            swapped = not text.startswith(a.name + " ")
            out_t = "int1" if op in ("<", ">", "==", "!=", "<=", ">=") else rt
            return self.assign(kind, out_t, "elementwise", text,
                               ("binlit", op, a.name, lit, rt, swapped))
        kind = BCAST[(a.kind, b.kind)]
        if op in ("//", "%"):
            # Same signedness (Triton refuses mixing), and a divisor in [1, 8]: no division by
            # zero, no INT_MIN / -1.
            d = self.assign(b.kind, a.dtype, "elementwise",
                            f"(({b.name}.to(tl.{a.dtype}) & 7) + 1).to(tl.{a.dtype})",
                            ("divisor", b.name, b.dtype, a.dtype))
            return self.assign(kind, a.dtype, "elementwise", f"{a.name} {op} {d.name}",
                               ("bin", op, a.name, d.name, a.dtype))
        if op in ("<<", ">>"):
            # The amount is masked below the width of the promoted type: a larger one is
            # undefined (LLVM's shl/ashr/lshr give poison).
            amount_t = computation_type(b.dtype, False, "int32", True)
            rt = integer_promote(a.dtype, amount_t)
            amount = self.assign(b.kind, amount_t, "elementwise",
                                 f"{b.name} & {bits(rt) - 1}",
                                 ("binlit", "&", b.name, str(bits(rt) - 1), amount_t, False))
            return self.assign(kind, rt, "elementwise", f"{a.name} {op} {amount.name}",
                               ("bin", op, a.name, amount.name, rt))
        rt = computation_type(a.dtype, False, b.dtype, False)
        if op in ("&", "|", "^"):
            rt = integer_promote(rt, rt)
        if op == "max":
            text = f"tl.maximum({a.name}, {b.name})"
        elif op == "min":
            text = f"tl.minimum({a.name}, {b.name})"
        else:
            text = f"{a.name} {op} {b.name}"
        out_t = "int1" if op in ("<", ">", "==", "!=", "<=", ">=") else rt
        return self.assign(kind, out_t, "elementwise", text, ("bin", op, a.name, b.name, rt))

    def cast(self, a, dtype, bitcast=False):
        if bitcast:
            text = f"{a.name}.to(tl.{dtype}, bitcast=True)"
        else:
            text = f"{a.name}.to(tl.{dtype})"
        return self.assign(a.kind, dtype, "elementwise", text, ("cast", a.name, a.dtype, dtype, bitcast))

    def unary_or_cast(self):
        r = self.r
        a = self.pick()
        choice = r.random()
        if choice < 0.5:
            dtype = r.choice(self.dtypes + ["int1"])
            return self.cast(a, dtype)
        if choice < 0.65 and not is_bool(a.dtype):
            same = [d for d in DTYPES if bits(d) == bits(a.dtype) and d != a.dtype and d != "int1"]
            if same:
                return self.cast(a, r.choice(same), bitcast=True)
        if is_bool(a.dtype):
            return
        op = r.choice(["-", "abs", "~"] if is_int(a.dtype) else ["-", "abs"])
        text = {"-": f"-{a.name}", "abs": f"tl.abs({a.name})", "~": f"~{a.name}"}[op]
        return self.assign(a.kind, a.dtype, "elementwise", text, ("un", op, a.name, a.dtype))

    def where(self):
        r = self.r
        c = self.pick(lambda v: v.dtype == "int1")
        if c is None or r.random() < 0.3:
            x = self.pick()
            lit = self.literal(x.dtype)
            if is_bool(x.dtype) or "." in lit and is_int(x.dtype):
                lit = "0"
            c = self.assign(x.kind, "int1", "elementwise", f"{x.name} > {lit}",
                            ("binlit", ">", x.name, lit,
                             computation_type(x.dtype, False, "float32" if "." in lit else "int32", True), False))
        a = self.pick(lambda v: (c.kind, v.kind) in BCAST)
        if r.random() < 0.35:
            # One branch a literal, as in issue 13's tl.where(o > 0.0, go, 0.0).
            lit = self.literal(a.dtype)
            rt = computation_type(a.dtype, False, "float32" if "." in lit else "int32", True)
            if is_bool(a.dtype) or (is_int(rt) and not is_signed(rt) and lit.startswith("-")):
                return
            kind = BCAST[(c.kind, a.kind)]
            swap = r.random() < 0.5
            text = f"tl.where({c.name}, {lit}, {a.name})" if swap else f"tl.where({c.name}, {a.name}, {lit})"
            return self.assign(kind, rt, "elementwise", text, ("wherelit", c.name, a.name, lit, rt, swap))
        b = self.pick(lambda v: (c.kind, v.kind) in BCAST and (BCAST[(c.kind, v.kind)], a.kind) in BCAST)
        if b is None:
            return
        kind = BCAST[(BCAST[(c.kind, a.kind)], b.kind)]
        rt = computation_type(a.dtype, False, b.dtype, False)
        return self.assign(kind, rt, "elementwise", f"tl.where({c.name}, {a.name}, {b.name})",
                           ("where", c.name, a.name, b.name, rt))

    def reduce(self):
        r = self.r
        a = self.pick(lambda v: v.kind in ("2d", "m", "n", "m1", "1n"))
        if a is None:
            return
        op = r.choice(["sum", "sum", "max", "min"])
        if is_bool(a.dtype) and op != "sum":
            return
        # The input types of Triton 3.6's standard.py: sum widens integers narrower than 32 bits
        # to int32, or uint32 when unsigned (bool counts as unsigned), and keeps floats; max and
        # min widen what is narrower than 32 bits (bf16 included) to fp32 or int32.
        dtype = a.dtype
        if op == "sum":
            if is_bool(dtype) or (is_int(dtype) and bits(dtype) < 32):
                dtype = "int32" if is_signed(dtype) else "uint32"
        elif bits(dtype) < 32:
            dtype = "float32" if is_float(dtype) else "int32"
        keep = r.random() < 0.35
        if a.kind in ("2d", "m1", "1n"):
            axis = r.choice([0, 1, None]) if r.random() < 0.9 else -1
            if axis is None:
                kind = "s"
            else:
                ax = axis % 2
                kind = {("2d", 0): "n", ("2d", 1): "m", ("m1", 0): "s", ("m1", 1): "m",
                        ("1n", 0): "n", ("1n", 1): "s"}[(a.kind, ax)]
                if keep:
                    kind = {("2d", 0): "1n", ("2d", 1): "m1", ("m1", 0): "s11", ("m1", 1): "m1",
                            ("1n", 0): "1n", ("1n", 1): "s11"}[(a.kind, ax)]
        else:
            axis = r.choice([0, None])
            kind = "s"
            if keep and axis == 0:
                kind = "s1"
        if kind in ("s1", "s11") or axis is None:
            # keep_dims of a full reduction gives [1] or [1, 1]: not a shape of the pool.
            keep = False
            kind = "s"
        if a.kind in ("m1", "1n") and axis is not None and kind == "s":
            # Reducing the long axis of [BM, 1] or [1, BN] leaves a [1] block, not a scalar: a
            # shape of its own in Triton (broadcast_to and scalar stores refuse it). Reduce all.
            axis = None
        if op == "sum":
            fn = f"tl.sum({a.name}" + (f", axis={axis}" if axis is not None else "")
        else:
            fn = f"tl.{op}({a.name}" + (f", axis={axis}" if axis is not None else "")
        if keep:
            fn += ", keep_dims=True"
        fn += ")"
        self.p.features.add(f"reduce_{op}_{a.kind}_{axis}_{keep}")
        return self.assign(kind, dtype, "reduce", fn, ("reduce", op, a.name, axis, keep, dtype))

    def reshape(self):
        """Broadcasts and shape changes: [:, None], [None, :], expand_dims, broadcast_to, trans."""
        r = self.r
        a = self.pick(lambda v: v.kind in ("m", "n", "m1", "1n", "s", "2d"))
        if a.kind == "m":
            if r.random() < 0.5:
                return self.assign("m1", a.dtype, "broadcast", f"{a.name}[:, None]", ("expand", a.name, 1))
            return self.assign("m1", a.dtype, "broadcast", f"tl.expand_dims({a.name}, 1)", ("expand", a.name, 1))
        if a.kind == "n":
            if r.random() < 0.5:
                return self.assign("1n", a.dtype, "broadcast", f"{a.name}[None, :]", ("expand", a.name, 0))
            return self.assign("1n", a.dtype, "broadcast", f"tl.expand_dims({a.name}, 0)", ("expand", a.name, 0))
        if a.kind in ("m1", "1n", "s"):
            return self.assign("2d", a.dtype, "broadcast", f"tl.broadcast_to({a.name}, (BM, BN))",
                               ("bcast", a.name))
        if self.BM == self.BN:
            return self.assign("2d", a.dtype, "trans", f"tl.trans({a.name})", ("trans", a.name))

    def dot(self):
        r = self.r
        dt = self.dot_dtype
        a = self.pick(lambda v: v.kind == "2d")
        if a is None:
            return
        if a.dtype != dt:
            a = self.cast(a, dt)
        # The second operand is [BN, BN]: a load of its own, or a transposed block when square.
        if self.BM == self.BN and r.random() < 0.5:
            b = self.pick(lambda v: v.kind == "2d")
            b = self.assign("2d", b.dtype, "trans", f"tl.trans({b.name})", ("trans", b.name))
        else:
            b = self.kload(dt)
        if b.dtype != dt:
            b = self.cast(b, dt)
            if b.kind == "kk":
                self.pool.remove(b)
        acc_t = "int32" if dt == "int8" else "float32"
        acc = self.pick(lambda v: v.kind == "2d" and v.dtype == acc_t) if r.random() < 0.5 else None
        extra = ""
        if dt == "float32":
            precision = r.choice(["tf32", "ieee"])
            extra = f', input_precision="{precision}"' if precision == "ieee" or r.random() < 0.5 else ""
        else:
            precision = None
        if acc is not None and acc_t == "int32":
            # Triton requires the acc to be of out_dtype, whose default is fp32.
            extra += ", out_dtype=tl.int32"
        text = f"tl.dot({a.name}, {b.name}" + (f", {acc.name}" if acc else "") + extra + ")"
        self.p.features.add(f"dot_{dt}")
        return self.assign("2d", acc_t, "dot", text, ("dot", a.name, b.name, acc.name if acc else None,
                                                      dt, acc_t, precision))

    def kload(self, dtype):
        """A [BN, BN] block (rows rn) of an N x S row-major buffer: a dot's second operand."""
        buf = self.new_buffer(dtype, self.N * self.S, "in")
        text = (f"tl.load({buf} + rn[:, None] * stride_m + rn[None, :] * stride_n, "
                f"mask=mn[:, None] & mn[None, :], other=0)")
        v = self.assign("kk", dtype, "load", text, ("kload", buf))
        self.pool.remove(v)  # [BN, BN]: not a block of the pool's shapes
        return v

    # --- loops -----------------------------------------------------------------------------

    def loop(self):
        r = self.r
        # 1-3 carried values, initialised from the pool (any layout source) or zeros.
        carried = []
        for _ in range(r.randint(1, 3)):
            if r.random() < 0.5:
                v = self.pick(lambda v: v.kind in ("2d", "m", "n") and v.dtype != "int1")
                if v is None:
                    continue
                init = self.assign(v.kind, v.dtype, "loop", v.name,
                                   ("copy", v.name))
            else:
                dtype = r.choice(self.dtypes)
                kind = r.choice(["2d", "m", "n"])
                shape = {"2d": "(BM, BN)", "m": "(BM,)", "n": "(BN,)"}[kind]
                init = self.assign(kind, dtype, "loop", f"tl.zeros({shape}, dtype=tl.{dtype})",
                                   ("full", kind, "0", dtype))
            carried.append(init)
        if not carried:
            return
        form = r.choice(["range", "range", "tl.range", "static_range", "runtime"])
        iv = self.fresh("i")
        bound = "KITER" if form != "runtime" else "kiter"
        header = {"range": f"for {iv} in range(0, {bound}):",
                  "runtime": f"for {iv} in range(0, {bound}):",
                  "tl.range": f"for {iv} in tl.range(0, {bound}):",
                  "static_range": f"for {iv} in tl.static_range({bound}):"}[form]
        self.p.features.add("loop_" + form)
        self.line(header)
        self.indent += 1
        outer_stmts, outer_pool = self.p.stmts, list(self.pool)
        self.p.stmts = []
        if form != "static_range":
            # A static_range variable is a constexpr (a Python int): it has no .to() and is a
            # literal in promotion; it only indexes the loads.
            self.pool.append(Val(iv, "s", "int32", "loop"))
        for _ in range(r.randint(1, 2)):
            self.load(r.choice(["2d", "m", "n"]), loop_var=iv)
        for _ in range(r.randint(2, 6)):
            self.step()
        # Each carried value takes a new value of its own shape and dtype.
        for acc in carried:
            v = self.pick(lambda v: BCAST.get((acc.kind, v.kind)) == acc.kind and v is not acc)
            op = r.choice(["+", "max", "^", "-"] if is_int(acc.dtype) else ["+", "max", "-"])
            if v is None:
                continue
            rt = computation_type(acc.dtype, False, v.dtype, False)
            if op == "^" and not (is_int(rt)):
                op = "+"
            if op == "max":
                text = f"tl.maximum({acc.name}, {v.name})"
            else:
                text = f"{acc.name} {op} {v.name}"
            if rt != acc.dtype:
                text = f"({text}).to(tl.{acc.dtype})"
            self.line(f"{acc.name} = {text}")
            self.p.stmts.append(("update", acc.name, ("bin", op if op != "max" else "max", acc.name, v.name, rt),
                                 rt, acc.dtype))
        body = self.p.stmts
        self.indent -= 1
        self.p.stmts = outer_stmts
        self.p.stmts.append(("loop", iv, form, body))
        # Values defined in the body are not visible after it (they may not be defined when the
        # loop runs zero times); the carried ones are, with their "loop" source.
        self.pool = outer_pool

    # --- outputs ---------------------------------------------------------------------------

    def outputs(self):
        r = self.r
        candidates = [v for v in self.pool if v.source not in ("arange", "program_id", "param")]
        # The newest values (they depend on the most), the loop-carried ones, and a few others.
        chosen = candidates[-2:]
        chosen += [v for v in candidates if v.source == "loop" and v not in chosen][:2]
        others = [v for v in candidates if v not in chosen]
        r.shuffle(others)
        chosen += others[:r.randint(1, 3)]
        for v in chosen:
            dtype = v.dtype if v.dtype != "int1" else "int8"
            if r.random() < 0.15:
                dtype = r.choice(self.dtypes)  # the store converts
            atomic = v.kind in ("n", "s", "m1", "2d") and r.random() < 0.2 and dtype in ("int32", "int64", "uint32", "float32")
            if atomic:
                self.atomic(v, dtype)
                continue
            kind = v.kind
            if kind == "m":
                buf = self.new_buffer(dtype, self.M, "out", "o")
                self.line(f"tl.store({buf} + rm, {v.name}, mask=mm)")
                self.p.stmts.append(("store", buf, "m", v.name))
            elif kind == "n":
                buf = self.new_buffer(dtype, self.G * self.N, "out", "o")
                self.line(f"tl.store({buf} + pid * N + rn, {v.name}, mask=mn)")
                self.p.stmts.append(("store", buf, "n", v.name))
            elif kind == "s":
                buf = self.new_buffer(dtype, self.G, "out", "o")
                self.line(f"tl.store({buf} + pid, {v.name})")
                self.p.stmts.append(("store", buf, "s", v.name))
            else:
                # 2d, m1, 1n: the store broadcasts the value to the pointers' shape.
                buf = self.new_buffer(dtype, self.M * self.S, "out", "o")
                self.line(f"tl.store({buf} + rm[:, None] * stride_m + rn[None, :] * stride_n, "
                          f"{v.name}, mask=mm[:, None] & mn[None, :])")
                self.p.stmts.append(("store", buf, "2d", v.name))

    def atomic(self, v, dtype):
        r = self.r
        op = r.choice(["add", "max", "min"] if is_int(dtype) else ["add"])
        self.p.features.add(f"atomic_{op}")
        if v.dtype != dtype:
            v = self.cast(v, dtype)
        buf = self.new_buffer(dtype, self.N if v.kind in ("n", "2d") else self.BM if v.kind == "m1" else 1,
                              "atomic", "a")
        if v.kind == "n":
            self.line(f"tl.atomic_{op}({buf} + rn, {v.name}, mask=mn)")
        elif v.kind == "s":
            self.line(f"tl.atomic_{op}({buf}, {v.name})")
        elif v.kind == "m1":
            # Every program adds into the same BM slots.
            self.line(f"tl.atomic_{op}({buf} + tl.arange(0, BM)[:, None], {v.name})")
        else:
            self.line(f"tl.atomic_{op}({buf} + rn[None, :] + rm[:, None] * 0, {v.name}, "
                      f"mask=mm[:, None] & mn[None, :])")
        self.p.stmts.append(("atomic", op, buf, v.kind, v.name))

    def finish(self):
        p = self.p
        params = [d["name"] for d in p.params]
        scalars = [("M", "i32", self.M), ("N", "i32", self.N),
                   ("stride_m", "i32:16" if self.S % 16 == 0 and self.r.random() < 0.7 else "i32", self.S),
                   ("stride_n", "1", 1),
                   ("stride_t", "i32:16" if self.ST % 16 == 0 and self.r.random() < 0.7 else "i32", self.ST),
                   ("c", "i32", self.r.randint(-5, 40)), ("kiter", "i32", self.KITER)]
        for name, sig, value in scalars:
            self.add_param(name, sig, "scalar", value=value)
        for name, value in (("BM", self.BM), ("BN", self.BN), ("KITER", self.KITER)):
            self.add_param(name, str(value), "constexpr", value=value)
        signature = ", ".join(d["name"] + (": tl.constexpr" if d["kind"] == "constexpr" else "")
                              for d in p.params)
        head = ["import triton", "import triton.language as tl", "", "",
                "@triton.jit", f"def {self.name}({signature}):"]
        p.source = "\n".join(head + p.lines) + "\n"
        p.kernel = self.name
        p.signature = ",".join(d["sig"] for d in p.params)
        p.num_warps, p.grid = self.num_warps, self.G
        p.shape = dict(BM=self.BM, BN=self.BN, M=self.M, N=self.N, S=self.S, ST=self.ST,
                       KITER=self.KITER, G=self.G)
        p.dot_dtype = self.dot_dtype
        del params
        return p


# --- the evaluator ------------------------------------------------------------------------


def sentinel(dtype, i):
    """Initial contents of output buffers: values no kernel here computes by accident often."""
    if is_float(dtype):
        return round_float(-1000.5 - (i % 7), dtype)
    return wrap(0x5A5A5A5A5A5A5A5A ^ i, dtype)


def initial_buffers(p):
    out = {}
    for name, b in p.buffers.items():
        if b["role"] == "in":
            out[name] = list(b["data"])
        elif b["role"] == "atomic":
            out[name] = [3 if is_int(b["dtype"]) else 0.25 for _ in range(b["size"])]
        else:
            out[name] = [sentinel(b["dtype"], i) for i in range(b["size"])]
    return out


class Evaluator:
    def __init__(self, p):
        self.p = p
        self.sh = p.shape
        self.buffers = initial_buffers(p)
        self.inexact = set()  # output buffers whose values the evaluator could not prove exact
        # For each of them, the coarsest float type an inexact value of it was computed in (an
        # fp32 dot stored into an fp64 buffer is within fp32's bound, not fp64's).
        self.inexact_precision = {}
        self.atomic_terms = {}  # float atomic buffer -> list of contributions per element

    def run(self):
        scalars = {d["name"]: d["value"] for d in self.p.params if d["kind"] != "ptr"}
        for pid in range(self.sh["G"]):
            BM, BN, M, N = self.sh["BM"], self.sh["BN"], self.sh["M"], self.sh["N"]
            env = {}
            rm = [pid * BM + i for i in range(BM)]
            rn = list(range(BN))
            env["rm"] = T((BM,), "int32", rm)
            env["rn"] = T((BN,), "int32", rn)
            env["pid"] = T((), "int32", [pid])
            env["c"] = T((), "int32", [scalars["c"]])
            self.pid, self.scalars = pid, scalars
            self.block(self.p.stmts, env)
        # Float atomics: exact only if every order of the contributions gives one value.
        for name, terms in self.atomic_terms.items():
            dtype = self.p.buffers[name]["dtype"]
            for i, contributions in terms.items():
                total, exact = exact_sum([self.buffers[name][i]] + contributions, dtype)
                self.buffers[name][i] = total
                if not exact:
                    self.mark_inexact(name, dtype)
        return self.buffers

    def block(self, stmts, env):
        for s in stmts:
            kind = s[0]
            if kind == "assign":
                env[s[1]] = self.expr(s[2], env)
            elif kind == "update":
                _, name, node, rt, dtype = s
                v = self.expr(node, env)
                if rt != dtype:
                    v = self.cast(v, dtype, False)
                env[name] = v
            elif kind == "loop":
                _, iv, form, body = s
                for i in range(self.sh["KITER"]):
                    env[iv] = T((), "int32", [i])
                    self.block(body, env)
            elif kind == "store":
                self.store(s, env)
            elif kind == "atomic":
                self.atomic(s, env)
            else:
                raise AssertionError(kind)

    def cast(self, v, dtype, bitcast):
        fn = bitcast_value if bitcast else cast_value
        if not v.exact and (is_int(dtype)):
            raise Reject("an inexact float converted to an integer")
        return T(v.shape, dtype, [POISON if x is POISON else fn(x, v.dtype, dtype) for x in v.data],
                 v.exact)

    def load(self, node, env):
        _, buf, kind, masked, other, loop_var = node
        sh = self.sh
        BM, BN, M, N, S, ST = sh["BM"], sh["BN"], sh["M"], sh["N"], sh["S"], sh["ST"]
        b = self.p.buffers[buf]
        data = self.buffers[buf]
        dtype = b["dtype"]
        size = {"2d": M * S, "2dt": N * ST, "m": M, "n": N}[kind] or 1
        base = env[loop_var].data[0] * size if loop_var else 0
        if other is None:
            fill = None
        else:
            fill = cast_value(float(other) if "." in other else int(other),
                              "float32" if "." in other else "int32", dtype)
        rows = [self.pid * BM + i for i in range(BM)]
        out = []
        if kind in ("2d", "2dt"):
            for m in rows:
                for n in range(BN):
                    ok = m < M and n < N
                    if ok:
                        off = m * S + n if kind == "2d" else m + n * ST
                        out.append(data[base + off])
                    else:
                        out.append(self.masked_value(masked, fill))
            return T((BM, BN), dtype, out)
        idx = rows if kind == "m" else list(range(BN))
        limit = M if kind == "m" else N
        for i in idx:
            out.append(data[base + i] if i < limit else self.masked_value(masked, fill))
        return T((len(idx),), dtype, out)

    @staticmethod
    def masked_value(masked, fill):
        if not masked:
            raise AssertionError("an unmasked load out of bounds")
        if fill is None:
            # No `other`: the value is undefined; a program whose output depends on it would
            # have no right answer, so such lanes carry a poison marker that rejects on use.
            return POISON
        return fill

    def expr(self, node, env):
        op = node[0]
        sh = self.sh
        if op == "load":
            return self.load(node, env)
        if op == "kload":
            buf = node[1]
            data, dtype = self.buffers[buf], self.p.buffers[buf]["dtype"]
            BN, N, S = sh["BN"], sh["N"], sh["S"]
            return T((BN, BN), dtype, [data[k * S + n] if k < N and n < N else cast_value(0, "int32", dtype)
                                       for k in range(BN) for n in range(BN)])
        if op == "full":
            _, kind, value, dtype = node
            shape = {"2d": (sh["BM"], sh["BN"]), "m": (sh["BM"],), "n": (sh["BN"],)}[kind]
            v = cast_value(float(value) if "." in value else int(value),
                           "float32" if "." in value else "int32", dtype)
            return T(shape, dtype, [v] * math.prod(shape))
        if op == "copy":
            return env[node[1]]
        if op == "cast":
            _, a, src, dst, bitcast = node
            return self.cast(env[a], dst, bitcast)
        if op == "divisor":
            _, b, src, dst = node
            v = self.cast(env[b], dst, False)
            return T(v.shape, dst, [x if x is POISON else wrap((x & 7) + 1, dst) for x in v.data], v.exact)
        if op == "bin":
            _, o, a, b, rt = node
            # Triton's >> is arithmetic when the left tensor is signed, whatever the promoted
            # type: an int8 >> uint32 shifts arithmetically, in uint32.
            arithmetic = o == ">>" and is_signed(env[a].dtype)
            return self.binary(o, self.cast(env[a], rt, False) if env[a].dtype != rt else env[a],
                               self.cast(env[b], rt, False) if env[b].dtype != rt else env[b], rt,
                               arithmetic)
        if op == "binlit":
            _, o, a, lit, rt, swapped = node
            x = env[a]
            lv = cast_value(float(lit) if "." in lit else int(lit), "float32" if "." in lit else "int32", rt)
            lt = T((), rt, [lv])
            x = self.cast(x, rt, False) if x.dtype != rt else x
            return self.binary(o, lt, x, rt) if swapped else self.binary(o, x, lt, rt)
        if op == "un":
            _, o, a, dtype = node
            x = env[a]
            if o == "-":
                # Triton's unary minus is 0 - x, so -(+0.0) is +0.0, not -0.0. The 8- and 16-bit
                # minimum has no answer on the GPU: ptxas folds neg.s16 and the widening after it
                # into a 32-bit negation, so -(-32768) widens to +32768 (Triton and tilec alike,
                # on an H200), where wrapping in 16 bits gives -32768.
                if not is_float(dtype) and DTYPES[dtype][0] in (8, 16) and DTYPES[dtype][1]:
                    minimum = -(1 << (DTYPES[dtype][0] - 1))
                    if any(v == minimum for v in x.data if v is not POISON):
                        raise Reject("unary minus of the most negative 8- or 16-bit integer")
                fn = (lambda v: 0.0 - v) if is_float(dtype) else (lambda v: wrap(-v, dtype))
            elif o == "~":
                fn = lambda v: wrap(~v, dtype)
            else:
                fn = (lambda v: abs(v)) if is_float(dtype) else (lambda v: wrap(abs(v), dtype))
            return zip_map(lambda v: POISON if v is POISON else fn(v), dtype, x)
        if op == "where":
            _, c, a, b, rt = node
            x = self.cast(env[a], rt, False) if env[a].dtype != rt else env[a]
            y = self.cast(env[b], rt, False) if env[b].dtype != rt else env[b]
            return self.where(env[c], x, y, rt)
        if op == "wherelit":
            _, c, a, lit, rt, swap = node
            x = self.cast(env[a], rt, False) if env[a].dtype != rt else env[a]
            lv = T((), rt, [cast_value(float(lit) if "." in lit else int(lit),
                                       "float32" if "." in lit else "int32", rt)])
            return self.where(env[c], lv, x, rt) if swap else self.where(env[c], x, lv, rt)
        if op == "reduce":
            return self.reduce(node, env)
        if op == "expand":
            _, a, axis = node
            x = env[a]
            shape = (x.shape[0], 1) if axis == 1 else (1, x.shape[0])
            return T(shape, x.dtype, list(x.data), x.exact)
        if op == "bcast":
            x = env[node[1]]
            shape = (sh["BM"], sh["BN"])
            return T(shape, x.dtype, expand(x, shape), x.exact)
        if op == "trans":
            x = env[node[1]]
            r, c = x.shape
            return T((c, r), x.dtype, [x.data[i * c + j] for j in range(c) for i in range(r)], x.exact)
        if op == "dot":
            return self.dot(node, env)
        raise AssertionError(op)

    def where(self, c, x, y, rt):
        def pick(cv, a, b):
            if cv is POISON:
                return POISON
            return a if cv else b
        return zip_map(pick, rt, c, x, y, poison_aware=True)

    def binary(self, o, x, y, rt, arithmetic=None):
        fl = is_float(rt)
        n = bits(rt)
        if arithmetic is None:
            arithmetic = is_signed(rt)

        def f(a, b):
            if a is POISON or b is POISON:
                return POISON
            if o == "+":
                return round_float(a + b, rt) if fl else wrap(a + b, rt)
            if o == "-":
                return round_float(a - b, rt) if fl else wrap(a - b, rt)
            if o == "*":
                return round_float(a * b, rt) if fl else wrap(a * b, rt)
            if o == "//":
                q = abs(a) // abs(b)
                return wrap(q if (a >= 0) == (b >= 0) else -q, rt)
            if o == "%":
                rem = abs(a) % abs(b)
                return wrap(rem if a >= 0 else -rem, rt)
            if o == "&":
                return wrap(a & b, rt)
            if o == "|":
                return wrap(a | b, rt)
            if o == "^":
                return wrap(a ^ b, rt)
            if o == "<<":
                return wrap(a << b, rt)
            if o == ">>":
                if arithmetic:  # on the value's bits read as signed, then wrapped back
                    signed = a - (1 << n) if a >= 1 << (n - 1) else a
                    return wrap(signed >> b, rt)
                return (a & ((1 << n) - 1)) >> b
            if o in ("max", "min"):
                if fl:
                    if a != a:
                        return b
                    if b != b:
                        return a
                    if a == 0 and b == 0 and math.copysign(1, a) != math.copysign(1, b):
                        raise Reject("max/min of +0 and -0")
                return max(a, b) if o == "max" else min(a, b)
            if o == "<":
                return int(a < b)
            if o == ">":
                return int(a > b)
            if o == "<=":
                return int(a <= b)
            if o == ">=":
                return int(a >= b)
            if o == "==":
                return int(a == b)
            if o == "!=":
                return int(a != b)
            raise AssertionError(o)

        compare = o in ("<", ">", "<=", ">=", "==", "!=")
        if (compare or o in ("max", "min")) and fl and not (x.exact and y.exact):
            raise Reject("an inexact float compared")
        return zip_map(f, "int1" if compare else rt, x, y)

    def reduce(self, node, env):
        _, op, a, axis, keep, dtype = node
        x = env[a]
        if x.dtype != dtype:
            x = self.cast(x, dtype, False)
        shape = x.shape
        if len(shape) == 1:
            shape2 = (1, shape[0])
            ax = None if axis is None else 1
        else:
            shape2 = shape
            ax = None if axis is None else axis % 2
        r, c = shape2
        d = x.data
        if ax is None:
            groups = [d]
        elif ax == 1:
            groups = [d[i * c:(i + 1) * c] for i in range(r)]
        else:
            groups = [[d[i * c + j] for i in range(r)] for j in range(c)]
        exact = x.exact
        out = []
        for g in groups:
            if any(v is POISON for v in g):
                out.append(POISON)
                continue
            if op == "sum":
                if is_float(dtype):
                    total, ok = exact_sum(g, dtype)
                    exact = exact and ok
                    out.append(total)
                else:
                    out.append(wrap(sum(g), dtype))
            else:
                if is_float(dtype):
                    if any(v != v for v in g):
                        raise Reject("NaN in a max/min reduction")
                    zeros = {math.copysign(1, v) for v in g if v == 0}
                    extreme = max(g) if op == "max" else min(g)
                    if extreme == 0 and len(zeros) > 1:
                        raise Reject("max/min reduction over +0 and -0")
                    out.append(extreme)
                else:
                    out.append(max(g) if op == "max" else min(g))
        if axis is None:
            shape_out = ()
        elif len(shape) == 1:
            shape_out = (1,) if keep else ()
        else:
            shape_out = ((1, c) if keep else (c,)) if ax == 0 else ((r, 1) if keep else (r,))
        return T(shape_out, dtype, out, exact)

    def dot(self, node, env):
        _, a, b, acc, dt, acc_t, precision = node
        x, y = env[a], env[b]
        (m, k), (_, n) = x.shape, y.shape
        z = env[acc] if acc else None
        if not (x.exact and y.exact and (z is None or z.exact)):
            raise Reject("an inexact float in a dot")
        out = []
        exact = True
        for i in range(m):
            for j in range(n):
                terms = [x.data[i * k + t] * y.data[t * n + j] if x.data[i * k + t] is not POISON
                         and y.data[t * n + j] is not POISON else POISON for t in range(k)]
                base = z.data[i * n + j] if z else (0 if acc_t == "int32" else 0.0)
                if POISON in terms or base is POISON:
                    out.append(POISON)
                    continue
                if acc_t == "int32":
                    # Triton's int8 mma.sync saturates (.satfinite) where a partial sum leaves
                    # int32, in an order of the hardware's: such a dot has no one answer.
                    if abs(base) + sum(abs(t) for t in terms) > 2 ** 31 - 1:
                        raise Reject("an int8 dot whose partial sums may leave int32")
                    out.append(base + sum(terms))
                    continue
                if dt == "float32":
                    for t in range(k):
                        for v in (x.data[i * k + t], y.data[t * n + j]):
                            if precision != "ieee" and v == v and v not in (math.inf, -math.inf) \
                                    and round_float(v, "float32") != _round_tf32(v):
                                exact = False
                    for p in terms:
                        if p == p and round_float(p, "float32") != p:
                            exact = False
                total, ok = exact_sum([base] + terms, "float32")
                exact = exact and ok
                out.append(total)
        return T((m, n), acc_t, out, exact)

    def mark_inexact(self, buf, computed_in):
        self.inexact.add(buf)
        coarsest = self.inexact_precision.get(buf, "float64")
        if is_float(computed_in) and MANTISSA_BITS[computed_in] < MANTISSA_BITS[coarsest]:
            coarsest = computed_in
        self.inexact_precision[buf] = coarsest

    def store(self, s, env):
        _, buf, kind, name = s
        v = env[name]
        b = self.p.buffers[buf]
        dtype = b["dtype"]
        sh = self.sh
        BM, BN, M, N, S = sh["BM"], sh["BN"], sh["M"], sh["N"], sh["S"]
        computed_in = v.dtype
        if v.dtype != dtype:
            v = self.cast(v, dtype, False)
        if not v.exact:
            self.mark_inexact(buf, computed_in)
            self.mark_inexact(buf, dtype)
        data = self.buffers[buf]
        rows = [self.pid * BM + i for i in range(BM)]
        if kind == "2d":
            for i, m in enumerate(rows):
                for j in range(BN):
                    if m < M and j < N:
                        data[m * S + j] = self.defined(v.at(i, j))
        elif kind == "m":
            for i, m in enumerate(rows):
                if m < M:
                    data[m] = self.defined(v.data[i])
        elif kind == "n":
            for j in range(min(BN, N)):
                data[self.pid * N + j] = self.defined(v.data[j])
        else:
            data[self.pid] = self.defined(v.data[0])

    @staticmethod
    def defined(x):
        if x is POISON:
            raise Reject("an output depends on a masked load without `other`")
        return x

    def atomic(self, s, env):
        _, op, buf, kind, name = s
        v = env[name]
        dtype = self.p.buffers[buf]["dtype"]
        data = self.buffers[buf]
        sh = self.sh
        BM, BN, M, N = sh["BM"], sh["BN"], sh["M"], sh["N"]
        rows = [self.pid * BM + i for i in range(BM)]
        targets = []  # (index, value)
        if kind == "n":
            targets = [(j, v.data[j]) for j in range(min(BN, N))]
        elif kind == "s":
            targets = [(0, v.data[0])]
        elif kind == "m1":
            targets = [(i, v.data[i]) for i in range(BM)]
        else:
            targets = [(j, v.at(i, j)) for i, m in enumerate(rows) if m < M for j in range(min(BN, N))]
        if not v.exact:
            raise Reject("an inexact value in an atomic")
        for i, x in targets:
            x = self.defined(x)
            if is_float(dtype):
                self.atomic_terms.setdefault(buf, {}).setdefault(i, []).append(x)
            elif op == "add":
                data[i] = wrap(data[i] + x, dtype)
            elif op == "max":
                data[i] = max(data[i], x)
            else:
                data[i] = min(data[i], x)


def _round_tf32(v):
    """v rounded to 10 mantissa bits (tf32); only compared, to find inputs tf32 would change."""
    if v == 0:
        return v
    e = math.frexp(v)[1] - 1
    return round(math.ldexp(v, -(e - 10))) * 2.0 ** (e - 10)


class _Poison:
    """The value of a masked-off lane of a load without `other`."""

    def __repr__(self):
        return "POISON"


POISON = _Poison()


def generate(seed, name):
    """A program whose every output is specified, and its expected buffers. Deterministic in
    seed."""
    for attempt in range(200):
        r = random.Random(f"{seed}/{attempt}")
        p = Gen(r, name).generate()
        try:
            e = Evaluator(p)
            expected = e.run()
        except Reject:
            continue
        p.expected = expected
        p.inexact = sorted(e.inexact)
        p.inexact_precision = dict(e.inexact_precision)
        p.seed = seed
        return p
    raise RuntimeError(f"seed {seed}: no valid program in 200 attempts")


# --- files ------------------------------------------------------------------------------------

PACK = {"int8": "b", "int16": "h", "int32": "i", "int64": "q", "uint8": "B", "uint16": "H",
        "uint32": "I", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d"}


def to_bytes(values, dtype):
    if dtype == "bfloat16":
        return struct.pack(f"<{len(values)}H", *[float_bits(v, dtype) if v == v else 0x7FC0
                                                  for v in values])
    if dtype == "int1":
        return bytes(values)
    return struct.pack(f"<{len(values)}{PACK[dtype]}", *values)


def from_bytes(data, dtype):
    if dtype == "bfloat16":
        return [float_from_bits(b, dtype) for b in struct.unpack(f"<{len(data) // 2}H", data)]
    size = struct.calcsize(PACK[dtype])
    return list(struct.unpack(f"<{len(data) // size}{PACK[dtype]}", data))
