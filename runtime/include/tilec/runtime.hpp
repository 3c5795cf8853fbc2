//===- tilec/runtime.hpp - Load and launch tilec kernels --------*- C++ -*-===//
//
// The host runtime for PTX written by tilec. It loads a PTX module together with the metadata
// file the compiler writes next to it (docs/metadata.md), finds kernels by name through the
// metadata, checks launch arguments against the kernel's parameters, and launches. Every failure,
// CUDA's or the caller's, is reported as a tilec::rt::Error.
//
// The runtime uses the CUDA Driver API only. It does not link libcuda: it opens libcuda.so.1 the
// first time it needs the driver, so a program that uses it starts (and can say "no GPU") on a
// machine without a driver. Programs that do link libcuda share the same driver and contexts.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_HPP
#define TILEC_RUNTIME_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <cuda.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tilec::rt {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Every failure of the runtime. For a failed CUDA call the message names the call and the CUDA
/// error (name and description), and cudaResult() is the CUresult; otherwise it is CUDA_SUCCESS.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message, CUresult result = CUDA_SUCCESS)
      : std::runtime_error(message), Result(result) {}

  CUresult cudaResult() const { return Result; }

private:
  CUresult Result;
};

//===----------------------------------------------------------------------===//
// Metadata (docs/metadata.md, schema "tilec-metadata" versions 1 to 3)
//===----------------------------------------------------------------------===//

/// The scalar types of the Triton AOT signature, spelled as there (dtypeName).
enum class DType : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  FP16,
  BF16,
  FP32,
  FP64,
  FP8E4NV,
  FP8E5,
  FP8E4B15, // Triton's fp8e4b15 (e4m3, exponent bias 15), which tilec only moves and converts
};

/// "i32", "fp16", "fp8e4nv"...
std::string_view dtypeName(DType type);
/// Parses a name dtypeName returns; nullopt for anything else.
std::optional<DType> parseDType(std::string_view name);
/// Size of one value in memory; i1 is stored as one byte.
unsigned dtypeBytes(DType type);
bool isSignedInteger(DType type);   // i8..i64 (not i1)
bool isUnsignedInteger(DType type); // u8..u64
bool isInteger(DType type);         // i1, i8..i64, u8..u64
bool isFloatingPoint(DType type);   // fp16, bf16, fp32, fp64, fp8e4nv, fp8e5, fp8e4b15

/// A parameter type: a scalar, or a pointer to one ("*fp32").
struct ParamType {
  DType Element = DType::I32;
  bool IsPointer = false;

  std::string str() const;
  /// Parses "i32", "*fp16"...; nullopt for anything else.
  static std::optional<ParamType> parse(std::string_view text);
  bool operator==(const ParamType &other) const {
    return Element == other.Element && IsPointer == other.IsPointer;
  }
};

/// One run-time parameter of a kernel (constexprs are not parameters).
struct ParamInfo {
  std::string Name;
  ParamType Type;
  /// Pointers: the alignment in bytes the caller promised when the kernel was compiled (the ":16"
  /// of "*fp32:16"); 0 = none. The compiler may have relied on it, so launches check it.
  uint32_t Alignment = 0;
  /// Integers: the divisibility the caller promised ("i32:16"); 0 = none. Checked at launch.
  uint32_t Divisibility = 0;
};

/// A `tensordesc<T[...]>` argument: the params from FirstParam on are its base pointer, its
/// shape (i64 each), its strides (i64 each) and its padding flag (i1), 2 + 2 * rank in all.
struct TensorDescInfo {
  std::string Name;
  DType Element = DType::FP32;
  std::vector<int64_t> BlockShape; // the rank is its size
  size_t FirstParam = 0;
};

/// A CUtensorMap the kernel takes for TMA loads (cp.async.bulk.tensor) from a tensor descriptor
/// argument: metadata member `tensor_maps` (docs/metadata.md). Map i is the hidden .entry
/// parameter number Params.size() + i, `.param .align 64 .b8 NAME[128]`, which callers do not
/// pass: the launch builds it from the descriptor's parameters (cuTensorMapEncodeTiled) and
/// appends it.
struct TensorMapInfo {
  size_t Descriptor = 0;     // index into KernelInfo::TensorDescriptors
  std::vector<uint32_t> Box; // elements per dimension, outermost first (as block_shape), 1..256
  unsigned Swizzle = 0;      // bytes: 0 (none), 32, 64 or 128
  DType Element = DType::FP16;
  /// What elements outside the shape read as: member "fill", "nan" (true) or "zero" (false).
  /// Absent (std::nullopt, what the compiler writes): the launch's padding_nan argument of the
  /// descriptor decides, NaN when it is true and the element is fp16, bf16, fp32 or fp64 (see
  /// tensorMapFillsNan), zero otherwise.
  std::optional<bool> FillNan;
};

/// Whether TMA can fill out-of-bounds elements of \p element with NaN: fp16, bf16, fp32, fp64.
bool tensorMapFillsNan(DType element);

struct ConstexprInfo {
  std::string Name;
  /// The value as written by the compiler ("1024", "True", "fp16"...).
  std::string Value;
};

struct KernelInfo {
  std::string Name;  // the @triton.jit function
  std::string Entry; // the .entry symbol in the PTX
  unsigned NumWarps = 0;
  unsigned ThreadsPerBlock = 0; // always 32 * NumWarps
  /// Shared memory one block needs, in bytes. The launch passes what the PTX does not declare
  /// statically as dynamic shared memory (see docs/metadata.md).
  unsigned SharedMemoryBytes = 0;
  std::vector<ParamInfo> Params;
  /// The tensor descriptor arguments among Params (a launch may pass a TensorDescriptor for each).
  std::vector<TensorDescInfo> TensorDescriptors;
  /// Metadata version 3: the tensor maps the .entry takes after Params (hidden parameters the
  /// launch builds).
  std::vector<TensorMapInfo> TensorMaps;
  /// Metadata version 4: bytes of global scratch each program of the grid uses (the kernel
  /// writes its own tensor maps there); 0 for none. The .entry then takes, as its last
  /// parameter, a pointer to GlobalScratchBytes times the number of programs, 128-byte aligned,
  /// which the launch allocates on the launch's stream (docs/metadata.md, `global_scratch`).
  unsigned GlobalScratchBytes = 0;
  std::vector<ConstexprInfo> Constexprs;
  /// Metadata version 2, autotuned kernels (@triton.autotune): the parameters whose values select
  /// a variant, and the variants (each a complete KernelInfo with the kernel's Name and Params and
  /// its own Entry, NumWarps, shared memory and Constexprs). The members above are variant 0's.
  /// Both empty for other kernels.
  std::vector<std::string> AutotuneKey;
  std::vector<KernelInfo> Variants;
  unsigned NumStages = 0; // variants only

  /// The constexpr of that name, or nullptr.
  const ConstexprInfo *findConstexpr(std::string_view name) const;
  /// The integer value of a constexpr (for grids: cdiv(n, BLOCK_SIZE)); throws an Error when
  /// there is none or it is not an integer.
  int64_t intConstexpr(std::string_view name) const;
};

struct Metadata {
  int Version = 0;
  std::string Compiler;
  std::string Source;
  std::string Target;
  std::vector<KernelInfo> Kernels;

  /// Parses and validates a metadata document. \p origin names it in error messages (usually the
  /// file name): "add.json:3:14: expected ',' or '}'".
  static Metadata parse(std::string_view json, std::string_view origin = "<metadata>");
  static Metadata loadFile(const std::string &path);

  /// The kernel of that name, or nullptr.
  const KernelInfo *findKernel(std::string_view name) const;
  /// The kernel of that name; throws an Error that lists the kernels there are.
  const KernelInfo &kernel(std::string_view name) const;
};

//===----------------------------------------------------------------------===//
// Launch arguments
//===----------------------------------------------------------------------===//

/// The element type of a typed device pointer (T*, DevicePtr<T>) passed as a kernel argument.
/// Specialize it for your own element types, e.g. for __half:
///   template <> struct ElementDType<__half> { static constexpr std::optional<DType> value =
///   DType::FP16; };
/// Unknown element types (and void) give untyped pointers, which match any pointer parameter.
template <typename T> struct ElementDType {
  static constexpr std::optional<DType> value = std::nullopt;
};
#define TILEC_ELEMENT_DTYPE(CType, Type)                                                           \
  template <> struct ElementDType<CType> {                                                         \
    static constexpr std::optional<DType> value = DType::Type;                                     \
  };
TILEC_ELEMENT_DTYPE(bool, I1)
TILEC_ELEMENT_DTYPE(signed char, I8)
TILEC_ELEMENT_DTYPE(short, I16)
TILEC_ELEMENT_DTYPE(int, I32)
TILEC_ELEMENT_DTYPE(long, I64)
TILEC_ELEMENT_DTYPE(long long, I64)
TILEC_ELEMENT_DTYPE(unsigned char, U8)
TILEC_ELEMENT_DTYPE(unsigned short, U16)
TILEC_ELEMENT_DTYPE(unsigned int, U32)
TILEC_ELEMENT_DTYPE(unsigned long, U64)
TILEC_ELEMENT_DTYPE(unsigned long long, U64)
TILEC_ELEMENT_DTYPE(float, FP32)
TILEC_ELEMENT_DTYPE(double, FP64)

/// Element types C++ has no standard type for, as opaque bits: the pointee types of the typed
/// launchers (tilec --emit header) for *fp16, *bf16 and the fp8 pointers. Device code of another
/// library may use its own types (__half...): specialize ElementDType for them.
struct fp16 {
  uint16_t Bits;
};
struct bf16 {
  uint16_t Bits;
};
struct fp8e4nv {
  uint8_t Bits;
};
struct fp8e5 {
  uint8_t Bits;
};
struct fp8e4b15 {
  uint8_t Bits;
};
TILEC_ELEMENT_DTYPE(fp16, FP16)
TILEC_ELEMENT_DTYPE(bf16, BF16)
TILEC_ELEMENT_DTYPE(fp8e4nv, FP8E4NV)
TILEC_ELEMENT_DTYPE(fp8e5, FP8E5)
TILEC_ELEMENT_DTYPE(fp8e4b15, FP8E4B15)
#undef TILEC_ELEMENT_DTYPE
template <typename T> struct ElementDType<const T> : ElementDType<T> {};

/// A device address with the element type it points to, so launches can check it.
template <typename T> struct DevicePtr { CUdeviceptr Address = 0; };

// CUdeviceptr is unsigned long long and is taken as a pointer; uint64_t (unsigned long) is taken as
// a u64 scalar. That needs the two to be different types, as on every LP64 platform.
static_assert(!std::is_same_v<CUdeviceptr, uint64_t>,
              "tilec::rt::Arg tells CUdeviceptr from uint64_t by type");

struct TensorDescriptor;

/// One launch argument as the caller gave it, before it is checked against its parameter.
/// Built implicitly from the C++ value, so kernel.launch(grid, stream, x, n) just works.
class Arg {
public:
  enum class Kind : uint8_t {
    Pointer,  // CUdeviceptr, T*, DevicePtr<T>, nullptr
    Signed,   // signed integers; Bits holds the value sign-extended
    Unsigned, // unsigned integers
    Float,    // float or double; Bits holds the value as a double
    Bool,
    Exact,      // Arg::exact: the bits of a value of exactly one parameter type
    Descriptor, // a TensorDescriptor, for the parameters of one `tensordesc<...>` argument
  };

  Arg(CUdeviceptr address) : ArgKind(Kind::Pointer), Bits(address) {}
  Arg(std::nullptr_t) : ArgKind(Kind::Pointer), Bits(0) {}
  template <typename T>
  Arg(T *pointer)
      : ArgKind(Kind::Pointer), Type(ElementDType<T>::value.value_or(DType::I8)),
        HasElementType(ElementDType<T>::value.has_value()),
        Bits(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer))) {}
  template <typename T>
  Arg(DevicePtr<T> pointer)
      : ArgKind(Kind::Pointer), Type(ElementDType<T>::value.value_or(DType::I8)),
        HasElementType(ElementDType<T>::value.has_value()), Bits(pointer.Address) {}

  Arg(bool value) : ArgKind(Kind::Bool), Type(DType::I1), Bits(value ? 1 : 0) {}
  Arg(signed char value) : Arg(Kind::Signed, DType::I8, static_cast<int64_t>(value)) {}
  Arg(short value) : Arg(Kind::Signed, DType::I16, static_cast<int64_t>(value)) {}
  Arg(int value) : Arg(Kind::Signed, DType::I32, static_cast<int64_t>(value)) {}
  Arg(long value) : Arg(Kind::Signed, DType::I64, static_cast<int64_t>(value)) {}
  Arg(long long value) : Arg(Kind::Signed, DType::I64, static_cast<int64_t>(value)) {}
  Arg(unsigned char value) : Arg(Kind::Unsigned, DType::U8, static_cast<uint64_t>(value)) {}
  Arg(unsigned short value) : Arg(Kind::Unsigned, DType::U16, static_cast<uint64_t>(value)) {}
  Arg(unsigned int value) : Arg(Kind::Unsigned, DType::U32, static_cast<uint64_t>(value)) {}
  Arg(unsigned long value) : Arg(Kind::Unsigned, DType::U64, static_cast<uint64_t>(value)) {}
  Arg(float value);
  Arg(double value);
  /// Plain char is neither signed nor unsigned: say int8_t or uint8_t.
  Arg(char value) = delete;
  /// Refers to \p descriptor, which must outlive the launch call (not the kernel's run).
  Arg(const TensorDescriptor &descriptor)
      : ArgKind(Kind::Descriptor), Bits(0), Descriptor(&descriptor) {}

  /// The bits of a value of exactly \p type, for types C++ has no standard type for (fp16, bf16,
  /// fp8): Arg::exact(DType::FP16, 0x3c00) is 1.0. Matches only a parameter of that type.
  static Arg exact(DType type, uint64_t bits);

  Kind kind() const { return ArgKind; }
  /// The C++ type's dtype (for pointers, the element type if hasElementType()).
  DType dtype() const { return Type; }
  bool hasElementType() const { return HasElementType; }
  uint64_t bits() const { return Bits; }
  /// Kind::Descriptor: the descriptor; otherwise nullptr.
  const TensorDescriptor *descriptor() const { return Descriptor; }
  /// "fp32 value", "i64 value", "pointer to fp16", "untyped pointer".
  std::string describe() const;

private:
  Arg(Kind kind, DType type, int64_t value)
      : ArgKind(kind), Type(type), Bits(static_cast<uint64_t>(value)) {}
  Arg(Kind kind, DType type, uint64_t value) : ArgKind(kind), Type(type), Bits(value) {}

  Kind ArgKind;
  DType Type = DType::I8;
  bool HasElementType = false;
  uint64_t Bits;
  const TensorDescriptor *Descriptor = nullptr;
};

/// A host-side tensor descriptor, as Triton's triton.tools.tensor_descriptor.TensorDescriptor:
/// the argument of a `tensordesc<T[B0, B1, ...]>` parameter. Elements outside Shape read as the
/// padding (zeros, or NaN) and are not written. The launch checks it as Triton's constructor
/// does: Shape, Strides and BlockShape of one entry per dimension, BlockShape equal to the one
/// the kernel was compiled for, a 16-byte aligned Base of the kernel's element type, the leading
/// strides multiples of 16 bytes and the last stride 1 (all in elements).
struct TensorDescriptor {
  enum class Padding : uint8_t { Zero, Nan };

  Arg Base = nullptr;
  std::vector<int64_t> Shape;
  std::vector<int64_t> Strides;
  std::vector<int64_t> BlockShape;
  Padding PaddingOption = Padding::Zero;
};

/// Replaces each TensorDescriptor among \p args by the parameters it stands for (its base, shape,
/// strides and padding flag), after checking it against the descriptor parameter it meets (see
/// TensorDescriptor); other arguments are copied. Throws an Error naming the kernel and the
/// argument. Launches do this before packArguments.
std::vector<Arg> expandTensorDescriptors(const KernelInfo &kernel, const Arg *args, size_t count);

//===----------------------------------------------------------------------===//
// Typed arguments (the parameters of the launchers tilec --emit header writes)
//===----------------------------------------------------------------------===//

namespace detail {
/// Whether a pointer to \p given may be passed for a pointer parameter to \p parameter elements:
/// the same type, or for *i1 any byte type (as packArguments decides at run time).
constexpr bool pointeeMatches(DType parameter, std::optional<DType> given) {
  if (!given)
    return false;
  if (*given == parameter)
    return true;
  return parameter == DType::I1 && (*given == DType::I8 || *given == DType::U8);
}
} // namespace detail

/// A pointer parameter to T elements, at compile time: accepts T* and DevicePtr<T> (or pointers
/// to any U with ElementDType<U> equal to T's), and nullptr. Untyped addresses (CUdeviceptr,
/// void*) and pointers to other element types do not compile: wrap an address as
/// DevicePtr<T>{address} to say what it points to. Alignment is checked at launch.
template <typename T> class Ptr {
public:
  template <typename U, std::enable_if_t<detail::pointeeMatches(*ElementDType<T>::value,
                                                                ElementDType<U>::value),
                                         int> = 0>
  Ptr(U *pointer) : Value(pointer) {}
  template <typename U, std::enable_if_t<detail::pointeeMatches(*ElementDType<T>::value,
                                                                ElementDType<U>::value),
                                         int> = 0>
  Ptr(DevicePtr<U> pointer) : Value(pointer) {}
  Ptr(std::nullptr_t) : Value(nullptr) {}

  const Arg &arg() const { return Value; }

private:
  Arg Value;
};

/// A scalar parameter of type T, at compile time. Integer parameters accept any integer type
/// (whether the value fits is checked at launch, as for untyped launches) and nothing else;
/// float takes float only (a double would be narrowed: cast it); double takes float or double;
/// fp16, bf16 and fp8 take the tag types of the same name. Everything else does not compile.
template <typename T> class Scalar {
  static constexpr bool IsIntegerParam = std::is_integral_v<T>;

  template <typename U>
  static constexpr bool Accepts =
      IsIntegerParam ? std::is_integral_v<U> && !std::is_same_v<U, char> &&
                           (!std::is_same_v<U, bool> || std::is_same_v<T, bool>)
      : std::is_same_v<T, double>
          ? std::is_same_v<U, double> || std::is_same_v<U, float>
          : std::is_same_v<U, T>;

public:
  template <typename U, std::enable_if_t<Accepts<U>, int> = 0>
  Scalar(U value) : Value(makeArg(value)) {}

  const Arg &arg() const { return Value; }

private:
  template <typename U> static Arg makeArg(U value) {
    if constexpr (std::is_same_v<U, fp16> || std::is_same_v<U, bf16> ||
                  std::is_same_v<U, fp8e4nv> || std::is_same_v<U, fp8e5> ||
                  std::is_same_v<U, fp8e4b15>)
      return Arg::exact(*ElementDType<U>::value, value.Bits);
    else
      return Arg(value);
  }

  Arg Value;
};

/// The arguments of cuTensorMapEncodeTiled for one tensor map of a launch, the dimensions
/// innermost first as the driver takes them (entries past the rank are 0).
struct TensorMapEncodeArgs {
  CUtensorMapDataType DataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  uint32_t Rank = 0;
  uint64_t GlobalAddress = 0;
  std::array<uint64_t, 5> GlobalDim{};     // elements
  std::array<uint64_t, 4> GlobalStrides{}; // bytes, Rank - 1 of them
  std::array<uint32_t, 5> BoxDim{};
  std::array<uint32_t, 5> ElementStrides{}; // all 1
  CUtensorMapInterleave Interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle Swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion L2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  CUtensorMapFloatOOBfill OobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// The encoding of tensor map \p map of \p kernel (kernel.TensorMaps[map]) for a launch whose
/// parameters packArguments wrote to \p slots: from its descriptor's base, shape and strides, and
/// its padding_nan when the map has no "fill" (docs/metadata.md gives the rules). Needs no driver.
/// Throws an Error naming the kernel and the parameter for a descriptor TMA cannot describe: a
/// base not 16-byte aligned, a dimension of size 0 or above 2^32, a leading stride that is
/// negative, not a multiple of 16 bytes or not below 2^40 bytes.
TensorMapEncodeArgs tensorMapEncodeArgs(const KernelInfo &kernel, size_t map,
                                        const uint64_t *slots);

/// cuTensorMapEncodeTiled(\p args) into \p map; throws an Error with the CUresult when the driver
/// refuses (or lacks the call: CUDA 12.0 drivers and later have it). \p what names the map in
/// the message.
void encodeTensorMap(const TensorMapEncodeArgs &args, CUtensorMap &map, const std::string &what);

/// Checks \p args against the parameters of \p kernel and writes each one, converted to its
/// parameter's type, at the start of its own 8-byte slot in \p slots (which has room for
/// \p count). Throws an Error naming the kernel, the argument and the rule it breaks:
///  - the count must equal the number of parameters;
///  - pointers go to pointer parameters; a typed pointer's element type must be the parameter's
///    (bool/int8/uint8 pointers all match *i1); the address must be a multiple of the promised
///    alignment;
///  - integers go to integer parameters when the value fits the parameter's type (so an int32 for
///    an i64 widens, an int64 for an i32 is accepted if its value fits, a negative value for an
///    unsigned parameter is not); the value must be a multiple of the promised divisibility;
///  - bool goes to i1 (as do the integers 0 and 1);
///  - float goes to fp32 or fp64, double to fp64 only (never narrowed), and no integer goes to a
///    floating-point parameter nor a floating-point value to an integer one;
///  - fp16, bf16 and fp8 parameters take only Arg::exact of their own type.
void packArguments(const KernelInfo &kernel, const Arg *args, size_t count, uint64_t *slots);

//===----------------------------------------------------------------------===//
// Devices, contexts, memory
//===----------------------------------------------------------------------===//

/// The number of CUDA devices; 0 when there is no driver or no device, with the reason in
/// \p whyNone if given. Throws an Error for any other driver failure.
int deviceCount(std::string *whyNone = nullptr);

/// Retains the primary context of a device and makes it current, for programs that have no
/// context of their own; releases it when destroyed. (CUDA runtime programs need none of this:
/// the runtime API makes the same primary context current.)
class PrimaryContext {
public:
  explicit PrimaryContext(int deviceOrdinal = 0);
  ~PrimaryContext();
  PrimaryContext(PrimaryContext &&other) noexcept;
  PrimaryContext &operator=(PrimaryContext &&other) noexcept;
  PrimaryContext(const PrimaryContext &) = delete;
  PrimaryContext &operator=(const PrimaryContext &) = delete;

  CUcontext handle() const { return Context; }
  CUdevice device() const { return Device; }
  /// "NVIDIA H100 80GB HBM3 (sm_90)"
  std::string deviceDescription() const;

private:
  CUdevice Device = 0;
  CUcontext Context = nullptr;
};

/// Device memory in the current context, freed when destroyed.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  CUdeviceptr address() const { return Address; }
  size_t size() const { return Bytes; }
  /// The address typed as pointing to T, so launches check the element type.
  template <typename T> DevicePtr<T> as() const { return DevicePtr<T>{Address}; }

  /// Synchronous copies of \p bytes from the start of the buffer; bytes <= size().
  void copyFromHost(const void *source, size_t bytes);
  void copyToHost(void *destination, size_t bytes) const;
  template <typename T> void copyFromHost(const std::vector<T> &source) {
    copyFromHost(source.data(), source.size() * sizeof(T));
  }
  template <typename T> void copyToHost(std::vector<T> &destination) const {
    copyToHost(destination.data(), destination.size() * sizeof(T));
  }

private:
  CUdeviceptr Address = 0;
  size_t Bytes = 0;
};

/// cuCtxSynchronize, with launch failures reported as an Error.
void synchronize();

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

struct Grid {
  unsigned X = 1, Y = 1, Z = 1;
};

/// The grid of a launch: fixed, or computed from the kernel (variant) that runs, as Triton's
/// `grid = lambda META: (triton.cdiv(n, META['BLOCK_SIZE']),)`:
///   [&](const KernelInfo &k) { return Grid{unsigned((n + k.intConstexpr("BLOCK_SIZE") - 1) /
///                                                   k.intConstexpr("BLOCK_SIZE"))}; }
class LaunchGrid {
public:
  LaunchGrid(Grid grid) : Fixed(grid) {}
  template <typename F, std::enable_if_t<std::is_invocable_r_v<Grid, F, const KernelInfo &>, int> = 0>
  LaunchGrid(F function) : Function(std::move(function)) {}

  Grid operator()(const KernelInfo &kernel) const { return Function ? Function(kernel) : Fixed; }

private:
  Grid Fixed;
  std::function<Grid(const KernelInfo &)> Function;
};

/// Autotuning (metadata version 2 kernels): the choice of a variant per value of the key.
namespace autotune {
/// The index of the smallest time; \p timeVariant(i) measures variant i (milliseconds).
size_t pickFastest(size_t count, const std::function<double(size_t)> &timeVariant);

/// Chosen variants, by (kernel identity, key): in memory, and in a directory when one is given
/// (TILEC_CACHE_DIR by default): one file per kernel identity, "key<TAB>entry" lines. Thread-safe.
class Cache {
public:
  /// \p directory empty: memory only.
  explicit Cache(std::string directory);
  /// The process-wide cache, on TILEC_CACHE_DIR when it is set.
  static Cache &global();

  std::optional<std::string> lookup(const std::string &kernelId, const std::string &key);
  void store(const std::string &kernelId, const std::string &key, const std::string &entry);
  const std::string &directory() const { return Directory; }

private:
  std::string Directory;
  std::mutex Mutex;
  std::map<std::pair<std::string, std::string>, std::string> Memory;
};

/// Replaces the GPU timer (warm-up, then the mean of a few launches timed with CUDA events
/// recorded on the launch's stream) by \p timer(variant, launch) for tests; nullptr restores it.
/// \p launch runs the variant once.
using Timer = std::function<double(const KernelInfo &variant, const std::function<void()> &launch)>;
void setTimer(Timer timer);
namespace detail {
/// Times one variant, whose \p launch goes to \p stream, with the current timer.
double time(const KernelInfo &variant, CUstream stream, const std::function<void()> &launch);
} // namespace detail
} // namespace autotune

namespace detail {
struct ModuleState;
struct KernelState;
} // namespace detail

/// A kernel of a loaded module. Cheap to copy; keeps its module loaded while it exists.
class Kernel {
public:
  const KernelInfo &info() const;
  CUfunction handle() const;
  /// 32 * num_warps threads.
  unsigned blockSize() const;
  /// The dynamic shared memory each launch passes (the metadata's shared_memory_bytes less what
  /// the PTX declares statically).
  unsigned dynamicSharedBytes() const;

  /// Checks the arguments (see packArguments) and launches \p grid blocks on \p stream. A grid
  /// with a zero dimension launches nothing, as in Triton. The launch is asynchronous: errors of
  /// the running kernel surface at the next synchronizing call.
  ///
  /// An autotuned kernel (info().Variants) runs the variant chosen for the values of its key
  /// arguments: the pinned one if any, else the cached choice, else the fastest after timing
  /// each variant on these arguments (so outputs are written several times, as in Triton).
  template <typename... Args>
  void launch(const LaunchGrid &grid, CUstream stream, const Args &...args) const {
    const std::array<Arg, sizeof...(Args)> packed = {Arg(args)...};
    std::array<uint64_t, sizeof...(Args)> slots{};
    launchPacked(grid, stream, packed.data(), packed.size(), slots.data());
  }
  /// The same with a run-time list of arguments.
  void launchArgs(const LaunchGrid &grid, CUstream stream, const std::vector<Arg> &args) const;

  /// Autotuned kernels: always run the variant with this .entry (empty: tune again). Throws an
  /// Error naming the variants there are for an unknown entry.
  void pin(const std::string &entry) const;
  /// Autotuned kernels: the variant chosen for the key of these arguments so far, or "".
  std::string chosenEntry(const std::vector<Arg> &args) const;

private:
  friend class Module;
  friend class CachedKernel;
  explicit Kernel(std::shared_ptr<const detail::KernelState> state) : State(std::move(state)) {}
  void launchPacked(const LaunchGrid &grid, CUstream stream, const Arg *args, size_t count,
                    uint64_t *slots) const;

  std::shared_ptr<const detail::KernelState> State;
};

/// A PTX module loaded into the current context, with its metadata. Loading checks that every
/// kernel of the metadata is an .entry of the PTX with the parameters the metadata lists (as far
/// as the driver can tell) and prepares its shared memory.
class Module {
public:
  static Module loadFile(const std::string &ptxPath, const std::string &metadataPath);
  /// \p ptxOrigin and \p metadataOrigin name the two texts in error messages.
  static Module loadFromMemory(std::string_view ptx, std::string_view metadataJson,
                               std::string_view ptxOrigin = "<ptx>",
                               std::string_view metadataOrigin = "<metadata>");

  /// The kernel of that name (the @triton.jit function's); throws an Error listing the kernels
  /// there are when there is none.
  Kernel kernel(std::string_view name) const;
  const Metadata &metadata() const;
  CUmodule handle() const;
  /// What the PTX JIT compiler reported while loading (warnings), possibly empty.
  const std::string &jitInfoLog() const;

private:
  explicit Module(std::shared_ptr<detail::ModuleState> state) : State(std::move(state)) {}

  std::shared_ptr<detail::ModuleState> State;
};

/// Modules loaded once per CUDA context, shared by every thread: what the generated launchers use,
/// so that the first launch in a context loads the embedded PTX and later ones find it.
/// Thread-safe; a module stays loaded until clear() or the end of the program.
class ModuleCache {
public:
  /// The process-wide cache the generated launchers use.
  static ModuleCache &global();

  /// The module of these texts in the current context, loaded on first use. The texts are
  /// identified by their address and size, so they must not change while the cache holds them
  /// (string literals and the generated headers' arrays do not).
  Module get(std::string_view ptx, std::string_view metadataJson, std::string_view origin = "<ptx>");
  /// The same from files, identified by their paths (read once per context).
  Module getFile(const std::string &ptxPath, const std::string &metadataPath);

  /// Unloads every module the cache holds (Kernels and Modules obtained from it stay valid until
  /// they are destroyed). Call it before destroying a context the cache has modules in.
  void clear();
  /// The number of (module, context) entries.
  size_t size() const;

  ModuleCache();
  ~ModuleCache();
  ModuleCache(const ModuleCache &) = delete;
  ModuleCache &operator=(const ModuleCache &) = delete;

private:
  struct Impl;
  std::unique_ptr<Impl> State;
};

/// One kernel of an embedded module, looked up once per CUDA context: the generated launchers
/// keep one in a function-local static, so that after the first launch in a context a launch
/// costs a cuCtxGetCurrent and a short lock, without a module-cache search or a lookup by name.
/// Thread-safe. It does not keep modules loaded: after ModuleCache::clear() (and once no Kernel
/// of the module is left) the next get() loads the module again through the ModuleCache.
class CachedKernel {
public:
  /// The texts must outlive the object and not change (the generated headers' arrays).
  CachedKernel(std::string_view ptx, std::string_view metadataJson, std::string_view origin,
               std::string_view name)
      : Ptx(ptx), MetadataJson(metadataJson), Origin(origin), Name(name) {}
  CachedKernel(const CachedKernel &) = delete;
  CachedKernel &operator=(const CachedKernel &) = delete;

  /// The kernel in the current context, from ModuleCache::global() on first use there.
  Kernel get() const;
  /// The number of contexts it has looked the kernel up in (for tests).
  size_t contexts() const;

private:
  std::string_view Ptx, MetadataJson, Origin, Name;
  mutable std::mutex Mutex;
  mutable std::vector<std::pair<CUcontext, std::weak_ptr<const detail::KernelState>>> ByContext;
};

} // namespace tilec::rt

#endif // TILEC_RUNTIME_HPP
