// The block-level IR (TIR): typed SSA values of scalars and tensors, with structured control flow.
//
// The shape follows MLIR in miniature. A Module holds Functions (one per specialised kernel);
// a Function has one body Block; a Block is a list of Operations and has arguments; an Operation
// has an opcode, operands (Values defined earlier), results, attributes, and zero or more Regions
// (each a single Block) for structured control flow: `for`, `if`, `while`.
//
// Ownership is strictly top-down (Module > Function > Block > Operation > Region > Block) through
// unique_ptr; Values are owned by the operation that defines them or the block whose argument they
// are. There are no use lists: passes that rewrite values walk the function (see Value::replace
// helpers in Rewrite.h). Kernels are small enough for that to cost nothing.
#pragma once

#include "frontend/SourceManager.h"
#include "tir/Types.h"

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace tilec::tir {

class Operation;
class Block;
class Region;
class Function;

//===----------------------------------------------------------------------===//
// Opcodes
//===----------------------------------------------------------------------===//

// X(enumerator, printed name). The comment on each opcode gives its operands and attributes;
// Verifier.cpp checks them.
#define TILEC_TIR_OPCODES(X)                                                                       \
  /* values */                                                                                     \
  X(Constant, "constant")        /* attr value (int or float); result scalar or tensor (splat) */  \
  X(ProgramId, "program_id")     /* attr axis; result i32 */                                       \
  X(NumPrograms, "num_programs") /* attr axis; result i32 */                                       \
  X(MakeRange, "make_range")     /* attrs start, end; result tensor<end-start x i32> */            \
  /* shape */                                                                                      \
  X(Splat, "splat")                  /* scalar -> tensor */                                        \
  X(Broadcast, "broadcast")          /* tensor -> tensor, size-1 dims grow */                      \
  X(ExpandDims, "expand_dims")       /* attr axis */                                               \
  X(ConvertLayout, "convert_layout") /* same shape and elem, another layout */                     \
  X(Trans, "trans")                  /* attr order: result dim i is operand dim order[i] */        \
  X(Reshape, "reshape")              /* same elements in row-major order, another shape */         \
  /* elementwise arithmetic: both operands of the result's type (pointers excepted) */             \
  X(Add, "add")                                                                                    \
  X(Sub, "sub")                                                                                    \
  X(Mul, "mul")                                                                                    \
  X(Div, "div") /* float: true division; int: rounds toward zero */                                \
  X(Rem, "rem") /* float: fmod; int: sign of the dividend (C semantics) */                         \
  X(And, "and")                                                                                    \
  X(Or, "or")                                                                                      \
  X(Xor, "xor")                                                                                    \
  X(Shl, "shl")                                                                                    \
  X(Shr, "shr")         /* arithmetic for signed, logical for unsigned */                          \
  X(MulHi, "umulhi")    /* integers only: the high half of the unsigned double-width product */    \
  X(Maximum, "maximum") /* float: maxnum (a NaN operand yields the other) */                       \
  X(Minimum, "minimum")                                                                            \
  X(Cmp, "cmp")         /* attr predicate: eq ne lt le gt ge; result i1 of operand shape */        \
  X(Select, "select")   /* cond, true value, false value */                                        \
  X(AddPtr, "addptr")   /* pointer (tensor), integer offset in elements */                         \
  X(Cast, "cast")       /* numeric conversion to the result's element type */                      \
  X(Bitcast, "bitcast") /* same width, reinterpreted */                                            \
  X(Neg, "neg")                                                                                    \
  X(Not, "not") /* bitwise not */                                                                  \
  /* math on floats */                                                                             \
  X(Exp, "exp")                                                                                    \
  X(Exp2, "exp2")                                                                                  \
  X(Log, "log")                                                                                    \
  X(Log2, "log2")                                                                                  \
  X(Sqrt, "sqrt")                                                                                  \
  X(Rsqrt, "rsqrt")                                                                                \
  X(Sin, "sin")                                                                                    \
  X(Cos, "cos")                                                                                    \
  X(Abs, "abs") /* ints too */                                                                     \
  X(Floor, "floor")                                                                                \
  X(Ceil, "ceil")                                                                                  \
  X(Erf, "erf")                                                                                    \
  X(Fma, "fma")                                                                                    \
  X(Libdevice, "libdevice") /* attr fn (tir/Libdevice.h); 1-3 fp32/fp64 operands of one type */    \
  /* memory */                                                                                     \
  X(Load, "load")            /* ptr [, mask [, other]]; attr has_mask, has_other, */               \
                             /* tensor_descriptor (Triton's tt.descriptor_load)   */               \
  X(Store, "store")          /* ptr, value [, mask] */                                             \
  X(AtomicRMW, "atomic_rmw") /* attr kind: add max min xchg and or xor; ptr, val [, mask] */       \
  X(AtomicCAS, "atomic_cas") /* ptr, cmp, val */                                                   \
  /* matrix multiply */                                                                            \
  X(Dot, "dot") /* a [M,K], b [K,N], acc [M,N] -> acc + a@b; attr input_precision:       */        \
                /* "ieee" | "tf32" (sema splits tf32x3 and bf16xN); in acc's type      */          \
  /* reductions */                                                                                 \
  X(Reduce, "reduce") /* attr kind: sum max min xor (one operand), or combine: N operands of */    \
                      /* one shape, N results, a region (N lhs, N rhs scalars) -> yield N      */  \
                      /* attr within_thread (laid out): each thread's own elements only,   */      \
                      /* the axis kept (Verifier.cpp; gpu/OptimizeThreadLocality.cpp)      */      \
  X(ArgReduce, "arg_reduce") /* attr kind: argmax argmin; attr axis; result i32 */                 \
  X(Scan, "scan") /* attr kind: sum prod (one operand) or combine (as reduce); attr axis; */       \
                  /* attr reverse; inclusive; results of the operands' types              */       \
  X(Histogram,                                                                                     \
    "histogram")      /* input 1-D ints [, mask i1]; attr num_bins; result i32 [num_bins]; */      \
                      /* inputs count in bin (value mod num_bins); masked-off lanes do not   */    \
  X(Gather, "gather") /* src, index (same rank, integer); attr axis; result index's shape with */  \
                      /* src's element: out[..i..] = src[..index[..i..]..] along axis        */    \
  /* control flow */                                                                               \
  X(For, "for")             /* lb, ub, step, inits...; region(iv, iters...) -> results */          \
  X(If, "if")               /* cond; then region, else region -> results */                        \
  X(While, "while")         /* inits...; before region(args) ends in condition; after region */    \
  X(Condition, "condition") /* terminator of while's before region: cond, args... */               \
  X(Yield, "yield")         /* terminator of for/if/while bodies */                                \
  X(Return, "return")       /* terminator of a kernel */                                           \
  /* software pipelining (SoftwarePipeliner.cpp): rings of shared tiles filled by cp.async */      \
  X(AsyncCopy, "async_copy")     /* ptr, slot i32, pred i1 [, mask]; attrs buffer, vec */          \
  X(AsyncCommit, "async_commit") /* closes the group of copies issued since the last */            \
  X(AsyncWait, "async_wait")     /* attr pending: at most that many groups in flight */            \
  X(LocalLoad, "local_load")     /* slot i32; attr buffer: the tile in that slot */                \
  /* ... or by TMA (cp.async.bulk.tensor) from a tensor descriptor, counted by mbarriers */        \
  /* tma_init: attrs barrier, count, arrivals: mbarrier.init of [barrier, +count), `arrivals` each \
   */                                                                                              \
  X(TmaInit, "tma_init")                                                                           \
  /* tma_copy: slot i32, pred i1, offsets i32...; attrs buffer, tensor_map or kernel_map, barrier  \
   */                                                                                              \
  X(TmaCopy, "tma_copy")                                                                           \
  X(TmaWait, "tma_wait")   /* slot i32, phase i32; attr barrier: the slot's tile has landed */     \
  X(TmaInval, "tma_inval") /* attrs barrier, count: mbarrier.inval, after the loop */              \
  /* tma_store: value, offsets i32...; attr tensor_map: a descriptor store by TMA */               \
  X(TmaStore, "tma_store")                                                                         \
  /* tensormap_create: base ptr, shape i32 x 2, row stride i64; attr kernel_map: writes kernel */  \
  /* tensor map `kernel_map` (Function::kernelTensorMaps) into this program's global scratch */    \
  X(TensormapCreate, "tensormap_create")                                                           \
  /* debugging */                                                                                  \
  X(Print, "print")          /* attr prefix; values */                                             \
  X(Barrier, "barrier")      /* tl.debug_barrier: all threads of the program wait (bar.sync 0) */  \
  X(InlineAsm, "inline_asm") /* args...; attrs asm, constraints, pack, pure; N results of the */   \
  /* args' (broadcast) shape: elementwise PTX, pack elements a call   */                           \
  X(Assert, "assert") /* cond; attr message */                                                     \
  /* map_elementwise: args... of one shape; attr pack; a region of pack * N scalar arguments */    \
  /* (arg i's elements j < pack at i * pack + j) yielding pack * M scalars (result r's element */  \
  /* j at r * pack + j): M results of the args' shape, the region run on each group of `pack` */   \
  /* elements (tl.map_elementwise)                                                            */   \
  X(MapElementwise, "map_elementwise")

enum class OpCode {
#define TILEC_ENUM(name, str) name,
  TILEC_TIR_OPCODES(TILEC_ENUM)
#undef TILEC_ENUM
};

const char *opName(OpCode code);
bool isElementwise(OpCode code);
bool isTerminator(OpCode code);
/// tl.atomic_* (AtomicRMW, AtomicCAS).
bool isAtomic(OpCode code);
/// The element-wise writes to global memory: a store or an atomic.
bool isStoreOrAtomic(OpCode code);
/// Ops whose tensor operands and tensor results all have one layout once laid out: elementwise
/// ops, broadcast and the memory accesses. The verifier holds every pass to it.
bool sharesOneLayout(OpCode code);

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

using Attribute = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>>;

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

class Value {
public:
  Value(Type type, Operation *def, Block *block, unsigned index)
      : type_(std::move(type)), def_(def), block_(block), index_(index) {}

  const Type &type() const { return type_; }
  void setType(Type t) { type_ = std::move(t); }
  /// The operation that defines this value, or null for a block argument.
  Operation *definingOp() const { return def_; }
  /// For a block argument: its block. For a result: null.
  Block *ownerBlock() const { return block_; }
  /// Result number or argument number.
  unsigned index() const { return index_; }
  bool isBlockArgument() const { return def_ == nullptr; }

  /// A readable name hint carried from the source variable ("offsets"); the printer uses it.
  const std::string &nameHint() const { return nameHint_; }
  void setNameHint(std::string n) { nameHint_ = std::move(n); }

private:
  friend class Operation; // renumber results and arguments when one is erased
  friend class Block;

  Type type_;
  Operation *def_;
  Block *block_;
  unsigned index_;
  std::string nameHint_;
};

//===----------------------------------------------------------------------===//
// Operations, blocks, regions
//===----------------------------------------------------------------------===//

class Operation {
public:
  Operation(OpCode code, SourceLoc loc) : code_(code), loc_(loc) {}

  OpCode code() const { return code_; }
  const char *name() const { return opName(code_); }
  SourceLoc loc() const { return loc_; }

  // Operands
  const std::vector<Value *> &operands() const { return operands_; }
  Value *operand(unsigned i) const { return operands_.at(i); }
  unsigned numOperands() const { return static_cast<unsigned>(operands_.size()); }
  void setOperand(unsigned i, Value *v) { operands_.at(i) = v; }
  void addOperand(Value *v) { operands_.push_back(v); }
  void eraseOperand(unsigned i) { operands_.erase(operands_.begin() + i); }
  void setOperands(std::vector<Value *> vs) { operands_ = std::move(vs); }

  // Results
  unsigned numResults() const { return static_cast<unsigned>(results_.size()); }
  Value *result(unsigned i = 0) const { return results_.at(i).get(); }
  Value *addResult(Type type);
  /// Erases result `i`, which must have no uses; the later results are renumbered.
  void eraseResult(unsigned i);

  // Attributes
  bool hasAttr(const std::string &key) const { return attrs_.count(key) != 0; }
  void setAttr(const std::string &key, Attribute value) { attrs_[key] = std::move(value); }
  void removeAttr(const std::string &key) { attrs_.erase(key); }
  const Attribute &attr(const std::string &key) const { return attrs_.at(key); }
  int64_t intAttr(const std::string &key) const { return std::get<int64_t>(attrs_.at(key)); }
  double floatAttr(const std::string &key) const { return std::get<double>(attrs_.at(key)); }
  bool boolAttr(const std::string &key) const { return std::get<bool>(attrs_.at(key)); }
  const std::string &strAttr(const std::string &key) const {
    return std::get<std::string>(attrs_.at(key));
  }
  const std::map<std::string, Attribute> &attrs() const { return attrs_; }

  // Regions
  unsigned numRegions() const { return static_cast<unsigned>(regions_.size()); }
  Region &region(unsigned i) const { return *regions_.at(i); }
  Region &addRegion();

  /// The block this operation is in.
  Block *parentBlock() const { return parent_; }

private:
  friend class Block;

  OpCode code_;
  SourceLoc loc_;
  std::vector<Value *> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  std::map<std::string, Attribute> attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block *parent_ = nullptr;
  /// Where this operation is in its parent block's list (valid while parent_ is set): Block::find
  /// in constant time, which passes call once per op of kernels of thousands of ops.
  std::list<std::unique_ptr<Operation>>::iterator position_;
};

class Block {
public:
  using OpList = std::list<std::unique_ptr<Operation>>;

  explicit Block(Region *parent = nullptr) : parent_(parent) {}

  Value *addArgument(Type type);
  /// Erases argument `i`, which must have no uses; the later arguments are renumbered.
  void eraseArgument(unsigned i);
  unsigned numArguments() const { return static_cast<unsigned>(args_.size()); }
  Value *argument(unsigned i) const { return args_.at(i).get(); }

  /// The ops in order. Erase through the list if need be, but add through insert(), which
  /// records where each op is (find).
  OpList &ops() { return ops_; }
  const OpList &ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  Operation *terminator() const { return ops_.empty() ? nullptr : ops_.back().get(); }

  /// Inserts `op` before `pos` (end() appends) and returns it.
  Operation *insert(OpList::iterator pos, std::unique_ptr<Operation> op);
  /// Removes `op` from this block and returns ownership of it (null when it is not here).
  std::unique_ptr<Operation> remove(Operation *op);
  /// Where `op` is in this block (end() when it is not here), in constant time.
  OpList::iterator find(Operation *op);

  Region *parentRegion() const { return parent_; }
  /// The operation whose region holds this block, or null for a function body.
  Operation *parentOp() const;

private:
  std::vector<std::unique_ptr<Value>> args_;
  OpList ops_;
  Region *parent_;
};

/// A region holds exactly one block (structured control flow needs no more).
class Region {
public:
  explicit Region(Operation *parent) : parent_(parent), block_(this) {}
  Block &block() { return block_; }
  const Block &block() const { return block_; }
  Operation *parentOp() const { return parent_; }

private:
  Operation *parent_;
  Block block_;
};

//===----------------------------------------------------------------------===//
// Functions and modules
//===----------------------------------------------------------------------===//

/// One kernel parameter as seen by the host: its name, its type and, for a pointer, the alignment
/// in bytes the caller promises (16 from `*fp32:16`; 0 when nothing is promised). Parameters bound
/// to constexprs are not arguments of the function; they are listed in `constexprs`.
struct ParamInfo {
  std::string name;
  DType type;
  unsigned alignment = 0;
  /// Integer arguments the caller promises to be divisible by 16 (`i32:16`).
  unsigned divisibility = 0;
};

/// A `tensordesc<T[B0, B1, ...]>` kernel argument. It is not one parameter but 2 + 2 * rank of
/// them, from `firstParam` on: the base pointer, the shape (i64 each), the strides (i64 each)
/// and the padding flag (i1: true for NaN), the leading part of what Triton passes for a host
/// descriptor when it does not use TMA (docs/metadata.md).
struct TensorDescParam {
  std::string name;
  DType elem;                      // the element type (the base points to it)
  std::vector<int64_t> blockShape; // the rank is its size
  unsigned firstParam = 0;         // index into Function::params of the base pointer
};

/// A CUtensorMap the runtime builds at launch for tensor descriptor argument `descriptor`
/// (Function::tensorDescriptors) and passes after the parameters (docs/metadata.md,
/// `tensor_maps`): TMA copies boxes of `box` elements (outermost dimension first) with the
/// shared-memory swizzle of `swizzleBytes` (0, 32, 64 or 128).
struct TensorMap {
  unsigned descriptor = 0;
  std::vector<int64_t> box;
  unsigned swizzleBytes = 0;
};

/// A CUtensorMap the kernel itself writes, for a descriptor made with tl.make_tensor_descriptor
/// (tensormap_create, before the loop whose TMA copies read it): 128 bytes of global scratch per
/// map and program (docs/metadata.md, `global_scratch`). TMA copies boxes of `box` elements of
/// `elem` with the shared-memory swizzle of `swizzleBytes`; elements outside the tensor read as
/// NaN where `fillNan` (padding_option="nan"), else zero.
struct KernelTensorMap {
  DType elem;
  std::vector<int64_t> box;
  unsigned swizzleBytes = 0;
  bool fillNan = false;
};

/// Operands of a load through a descriptor made in the kernel (attr kernel_descriptor, the rank):
/// ptr, mask and other, then the offsets (rank, i32), the base pointer, the shape (rank, i32) and
/// the strides but the last (rank - 1, i64), for a TMA copy (gpu/SoftwarePipeliner.cpp).
inline unsigned kernelDescriptorLoadOperands(unsigned rank) {
  return 3 + 3 * rank;
}

/// Bytes of global scratch each kernel tensor map takes per program (a CUtensorMap, aligned).
constexpr unsigned kKernelTensorMapBytes = 128;

struct ConstexprBinding {
  std::string name;
  std::string value; // as the user wrote it / Python would print it: "1024", "True", "fp16"
};

class Function {
public:
  Function(std::string name, SourceLoc loc) : name_(std::move(name)), loc_(loc) {}

  const std::string &name() const { return name_; }
  SourceLoc loc() const { return loc_; }
  Block &body() { return body_; }
  const Block &body() const { return body_; }

  /// A ring of `stages` shared-memory copies of a tile of `tile`'s shape, element type and layout,
  /// filled by async_copy and read by local_load (SoftwarePipeliner.cpp).
  struct PipelineBuffer {
    Type tile;
    /// Shared-memory slots of the ring: num_stages, or num_stages - 1 for mma.sync on sm_90
    /// where that fits more programs per SM (gpu/SoftwarePipeliner.cpp).
    unsigned slots = 2;
    /// The operand (0: a, 1: b) of the wgmma dot that reads the tile, -1 for an mma.sync dot:
    /// the two engines read differently laid out tiles (codegen/SharedTile.h).
    int wgmmaOperand = -1;
  };

  std::vector<ParamInfo> params;          // one per body argument, in order
  std::vector<TensorDescParam> tensorDescriptors; // the descriptor arguments among params
  std::vector<PipelineBuffer> pipelineBuffers;
  /// The tensor maps TMA copies read: `.entry` parameters after `params`, in this order.
  std::vector<TensorMap> tensorMaps;
  /// The tensor maps the kernel writes itself (descriptors made in the kernel), in global
  /// scratch: map i at kKernelTensorMapBytes * i of the program's part.
  std::vector<KernelTensorMap> kernelTensorMaps;
  /// Bytes of global scratch one program uses (docs/metadata.md, `global_scratch`).
  unsigned globalScratchBytes() const {
    return kKernelTensorMapBytes * static_cast<unsigned>(kernelTensorMaps.size());
  }
  /// mbarriers (8 bytes each) at the end of shared memory, counting TMA copies' bytes.
  unsigned numTmaBarriers = 0;
  std::vector<ConstexprBinding> constexprs; // in source order
  unsigned numWarps = 4;
  unsigned numStages = 3;
  /// Triton's maxnreg option (a config's or --maxnreg): the PTX's .maxnreg; 0 for none.
  unsigned maxRegisters = 0;

private:
  std::string name_;
  SourceLoc loc_;
  Block body_;
};

class Module {
public:
  std::vector<std::unique_ptr<Function>> functions;
  Function *addFunction(std::string name, SourceLoc loc);
};

//===----------------------------------------------------------------------===//
// Walking
//===----------------------------------------------------------------------===//

/// Whether a `for` loop's step is a positive constant: later iterations' induction variables are
/// the current one plus multiples of it, and the loop runs at all exactly when lb < ub (a step
/// known only at run time may be negative: `range(n, 0, s)` runs as in Python).
bool hasPositiveConstantStep(const Operation &forOp);

/// Calls `fn` on every operation in `block`, nested regions included, in program order
/// (an operation before the operations of its regions).
void walk(Block &block, const std::function<void(Operation &)> &fn);
void walk(Function &function, const std::function<void(Operation &)> &fn);

} // namespace tilec::tir
