"""TMA tensor maps for tilec kernels launched from Python (bench.py's TilecKernel and what uses it).

A kernel whose metadata has `tensor_maps` (docs/metadata.md) takes, after the parameters that
`params` lists, one hidden 128-byte CUtensorMap parameter per entry, built from a tensor descriptor
argument's parameters (base, shape, strides). The C++ runtime builds them in
runtime/src/TensorDescriptors.cpp (tensorMapEncodeArgs, encodeTensorMap); this is the same for
Python: `encode_args` computes the arguments of cuTensorMapEncodeTiled (no GPU needed), `encode`
calls the driver (libcuda.so.1 through ctypes), and `KernelParams` holds packed parameter values
and maps for `cupy.cuda.driver.launchKernel`, which takes a kernelParams array of pointers (CuPy's
`function(grid, block, args)` has no way to pass a 128-byte struct by value).

Nothing here imports CuPy, torch or numpy: `python3 -c "import tensormap"` works anywhere, and
`encode_args` runs on machines without a GPU.
"""

import ctypes
from typing import Any, Dict, List, NamedTuple, Sequence

# CUtensorMapDataType of each element type of the metadata (fp8 and 8-bit integers as UINT8).
DATA_TYPES = {
    "fp16": 6, "bf16": 9, "fp32": 7, "fp64": 8,
    "fp8e4nv": 0, "fp8e5": 0, "i8": 0, "u8": 0,
    "i16": 1, "u16": 1, "i32": 3, "u32": 2, "i64": 5, "u64": 4,
}
ELEMENT_BYTES = {
    "fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8, "fp8e4nv": 1, "fp8e5": 1, "i8": 1, "u8": 1,
    "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8,
}
SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}  # bytes -> CUtensorMapSwizzle
L2_PROMOTION_128B = 2  # CU_TENSOR_MAP_L2_PROMOTION_L2_128B
FILLS = {"zero": 0, "nan": 1}  # -> CUtensorMapFloatOOBfill (NONE, NAN_REQUEST_ZERO_FMA)
NAN_FILLABLE = {"fp16", "bf16", "fp32", "fp64"}  # TMA fills only these with NaN
INTERLEAVE_NONE = 0
MAP_BYTES = 128
MAP_ALIGNMENT = 64


class EncodeArgs(NamedTuple):
    """The arguments of cuTensorMapEncodeTiled, dimensions innermost first as the driver takes them."""
    data_type: int
    rank: int
    address: int
    dims: List[int]  # elements, rank of them
    strides: List[int]  # bytes, rank - 1 of them
    box: List[int]
    element_strides: List[int]
    interleave: int
    swizzle: int
    l2_promotion: int
    fill: int


def encode_args(info: Dict[str, Any], index: int, values: Sequence[Any]) -> EncodeArgs:
    """The encoding of map `index` of the kernel object `info` (parsed metadata) for a launch with
    the parameter values `values` (one per entry of info["params"]: ints for the descriptor's
    base, shape and strides; anything with data_ptr() for the base also works; its padding_nan
    gives the fill when the map has no "fill"). Raises
    ValueError naming the kernel, the parameter and its value for a descriptor TMA cannot
    describe (the checks of the C++ runtime)."""
    entry = info["tensor_maps"][index]
    desc = info["tensor_descriptors"][entry["descriptor"]]
    box = [int(b) for b in entry["box"]]
    rank = len(box)
    element = entry["element"]
    nbytes = ELEMENT_BYTES[element]
    first = desc["first_param"]
    params = info["params"]

    def fail(param: int, value: str, problem: str):
        p = params[param]
        raise ValueError(f"{info['name']}: argument {param} ({p['name']}: {p['type']}) is {value}; "
                         f"the kernel was compiled to load tensor descriptor {desc['name']} with "
                         f"TMA, {problem}")

    base = values[first]
    address = int(base.data_ptr()) if hasattr(base, "data_ptr") else int(base)
    if address % 16:
        fail(first, hex(address), "which needs a 16-byte aligned base")
    dims, boxes, strides = [0] * rank, [0] * rank, [0] * (rank - 1)
    for d in range(rank):  # outermost first, as the metadata lists them
        param = first + 1 + d
        size = int(values[param])
        if size < 1:
            fail(param, str(size), "and a TMA-loaded descriptor cannot have an empty dimension "
                                   "(each must be at least 1)")
        if size > 1 << 32:
            fail(param, str(size), "which allows at most 2^32 elements per dimension")
        dims[rank - 1 - d] = size
        boxes[rank - 1 - d] = box[d]
    for d in range(rank - 1):
        param = first + 1 + rank + d
        stride = int(values[param])
        if stride < 0:
            fail(param, str(stride), "which cannot describe negative strides")
        if stride * nbytes >= 1 << 40:
            fail(param, f"{stride} ({nbytes}-byte elements)",
                 "which needs every stride but the last below 2^40 bytes")
        if stride * nbytes % 16:
            fail(param, f"{stride} ({stride * nbytes} bytes)",
                 "which needs every stride but the last a multiple of 16 bytes")
        strides[rank - 2 - d] = stride * nbytes
    if "fill" in entry:
        fill = FILLS[entry["fill"]]
    else:  # what the compiler writes: the descriptor's padding_nan (its last parameter) decides
        fill = FILLS["nan" if values[first + 1 + 2 * rank] and element in NAN_FILLABLE else "zero"]
    return EncodeArgs(
        data_type=DATA_TYPES[element], rank=rank, address=address, dims=dims, strides=strides,
        box=boxes, element_strides=[1] * rank, interleave=INTERLEAVE_NONE,
        swizzle=SWIZZLES[entry["swizzle"]], l2_promotion=L2_PROMOTION_128B,
        fill=fill)


_libcuda = None


def _driver():
    global _libcuda
    if _libcuda is None:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuTensorMapEncodeTiled.restype = ctypes.c_int
        lib.cuTensorMapEncodeTiled.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
            ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.cuGetErrorName.restype = ctypes.c_int
        lib.cuGetErrorName.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        _libcuda = lib
    return _libcuda


class TensorMap:
    """A 128-byte, 64-byte aligned CUtensorMap in host memory; `address` is where it lies."""

    def __init__(self):
        self._storage = (ctypes.c_ubyte * (MAP_BYTES + MAP_ALIGNMENT))()
        start = ctypes.addressof(self._storage)
        self.address = (start + MAP_ALIGNMENT - 1) // MAP_ALIGNMENT * MAP_ALIGNMENT

    def bytes(self) -> bytes:
        return ctypes.string_at(self.address, MAP_BYTES)


def encode(args: EncodeArgs, what: str) -> TensorMap:
    """cuTensorMapEncodeTiled(args) into a new TensorMap; RuntimeError with the CUresult if the
    driver refuses. `what` names the map in the message."""
    lib = _driver()
    result_map = TensorMap()
    u64, u32 = ctypes.c_uint64 * 5, ctypes.c_uint32 * 5  # rank <= 5; the rest is not read
    result = lib.cuTensorMapEncodeTiled(
        ctypes.c_void_p(result_map.address), args.data_type, args.rank,
        ctypes.c_void_p(args.address), u64(*args.dims), u64(*args.strides), u32(*args.box),
        u32(*args.element_strides), args.interleave, args.swizzle, args.l2_promotion, args.fill)
    if result != 0:
        name = ctypes.c_char_p()
        described = (name.value.decode() if lib.cuGetErrorName(result, ctypes.byref(name)) == 0
                     and name.value else f"CUDA error {result}")
        raise RuntimeError(f"cuTensorMapEncodeTiled failed: {described}\n{what}: {args}")
    return result_map


def build(info: Dict[str, Any], values: Sequence[Any]) -> List[TensorMap]:
    """Every tensor map of the kernel object `info` for a launch with parameter values `values`."""
    maps = []
    for i, entry in enumerate(info.get("tensor_maps", [])):
        desc = info["tensor_descriptors"][entry["descriptor"]]
        maps.append(encode(encode_args(info, i, values),
                           f"kernel {info['name']}, tensor map {i} of descriptor {desc['name']}"))
    return maps


class KernelParams:
    """The kernelParams array of cuLaunchKernel: a pointer to each packed parameter value (numpy
    scalars, as bench.TilecKernel.pack makes them), then to each tensor map, then to each of
    `trailing` (the global scratch pointer, docs/metadata.md). Keeps all of them alive as long as
    it lives; `pointer` is the array's address."""

    def __init__(self, packed: Sequence[Any], maps: Sequence[TensorMap], trailing=()):
        import numpy  # only here: the module itself imports nothing heavy
        self._values = [numpy.array(value) for value in packed]  # 0-d arrays own their bytes
        self._maps = list(maps)
        self._trailing = [numpy.array(value) for value in trailing]
        addresses = ([value.ctypes.data for value in self._values] +
                     [m.address for m in self._maps] +
                     [value.ctypes.data for value in self._trailing])
        self._array = (ctypes.c_void_p * max(1, len(addresses)))(*addresses)
        self.pointer = ctypes.addressof(self._array)
