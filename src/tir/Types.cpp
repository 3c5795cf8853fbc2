#include "tir/Types.h"

#include "gpu/Layout.h"

#include <map>
#include <sstream>

namespace tilec::tir {

bool DType::isInteger() const {
  switch (kind) {
  case ScalarKind::I1:
  case ScalarKind::I8:
  case ScalarKind::I16:
  case ScalarKind::I32:
  case ScalarKind::I64:
  case ScalarKind::U8:
  case ScalarKind::U16:
  case ScalarKind::U32:
  case ScalarKind::U64:
    return true;
  default:
    return false;
  }
}

bool DType::isSigned() const {
  return kind == ScalarKind::I8 || kind == ScalarKind::I16 || kind == ScalarKind::I32 ||
         kind == ScalarKind::I64;
}

bool DType::isUnsigned() const {
  return kind == ScalarKind::U8 || kind == ScalarKind::U16 || kind == ScalarKind::U32 ||
         kind == ScalarKind::U64;
}

bool DType::isFloat() const {
  switch (kind) {
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
  case ScalarKind::F16:
  case ScalarKind::BF16:
  case ScalarKind::F32:
  case ScalarKind::F64:
    return true;
  default:
    return false;
  }
}

unsigned DType::bits() const {
  switch (kind) {
  case ScalarKind::I1:
    return 1;
  case ScalarKind::I8:
  case ScalarKind::U8:
  case ScalarKind::F8E4M3:
  case ScalarKind::F8E5M2:
  case ScalarKind::F8E4B15:
    return 8;
  case ScalarKind::I16:
  case ScalarKind::U16:
  case ScalarKind::F16:
  case ScalarKind::BF16:
    return 16;
  case ScalarKind::I32:
  case ScalarKind::U32:
  case ScalarKind::F32:
    return 32;
  case ScalarKind::I64:
  case ScalarKind::U64:
  case ScalarKind::F64:
  case ScalarKind::Ptr:
    return 64;
  }
  return 0;
}

unsigned DType::bytes() const { return kind == ScalarKind::I1 ? 1 : bits() / 8; }

namespace {
struct Names {
  const char *triton;
  const char *ir;
};
Names names(ScalarKind k) {
  switch (k) {
  case ScalarKind::I1: return {"int1", "i1"};
  case ScalarKind::I8: return {"int8", "i8"};
  case ScalarKind::I16: return {"int16", "i16"};
  case ScalarKind::I32: return {"int32", "i32"};
  case ScalarKind::I64: return {"int64", "i64"};
  case ScalarKind::U8: return {"uint8", "u8"};
  case ScalarKind::U16: return {"uint16", "u16"};
  case ScalarKind::U32: return {"uint32", "u32"};
  case ScalarKind::U64: return {"uint64", "u64"};
  case ScalarKind::F8E4M3: return {"fp8e4nv", "f8e4m3"};
  case ScalarKind::F8E5M2: return {"fp8e5", "f8e5m2"};
  case ScalarKind::F8E4B15:
    return {"fp8e4b15", "f8e4b15"};
  case ScalarKind::F16: return {"fp16", "f16"};
  case ScalarKind::BF16: return {"bf16", "bf16"};
  case ScalarKind::F32: return {"fp32", "f32"};
  case ScalarKind::F64: return {"fp64", "f64"};
  case ScalarKind::Ptr: return {"pointer", "ptr"};
  }
  return {"?", "?"};
}
} // namespace

std::string DType::tritonName() const {
  if (isPointer())
    return std::string("pointer<") + names(pointee).triton + ">";
  return names(kind).triton;
}

std::string DType::str() const {
  if (isPointer())
    return std::string("!ptr<") + names(pointee).ir + ">";
  return names(kind).ir;
}

bool parseDType(const std::string &name, ScalarKind &out) {
  // Triton's dtype names, their long spellings, the AOT signature spellings and the IR's own.
  static const std::map<std::string, ScalarKind> table = {
      {"int1", ScalarKind::I1},
      {"i1", ScalarKind::I1},
      {"bool", ScalarKind::I1},
      {"int8", ScalarKind::I8},
      {"i8", ScalarKind::I8},
      {"int16", ScalarKind::I16},
      {"i16", ScalarKind::I16},
      {"int32", ScalarKind::I32},
      {"i32", ScalarKind::I32},
      {"int64", ScalarKind::I64},
      {"i64", ScalarKind::I64},
      {"uint8", ScalarKind::U8},
      {"u8", ScalarKind::U8},
      {"uint16", ScalarKind::U16},
      {"u16", ScalarKind::U16},
      {"uint32", ScalarKind::U32},
      {"u32", ScalarKind::U32},
      {"uint64", ScalarKind::U64},
      {"u64", ScalarKind::U64},
      {"fp16", ScalarKind::F16},
      {"float16", ScalarKind::F16},
      {"f16", ScalarKind::F16},
      {"bf16", ScalarKind::BF16},
      {"bfloat16", ScalarKind::BF16},
      {"fp32", ScalarKind::F32},
      {"float32", ScalarKind::F32},
      {"f32", ScalarKind::F32},
      {"fp64", ScalarKind::F64},
      {"float64", ScalarKind::F64},
      {"f64", ScalarKind::F64},
      {"fp8e4nv", ScalarKind::F8E4M3},
      {"float8e4nv", ScalarKind::F8E4M3},
      {"fp8e4m3", ScalarKind::F8E4M3},
      {"f8e4m3", ScalarKind::F8E4M3},
      {"fp8e5", ScalarKind::F8E5M2},
      {"float8e5", ScalarKind::F8E5M2},
      {"fp8e5m2", ScalarKind::F8E5M2},
      {"f8e5m2", ScalarKind::F8E5M2},
      {"fp8e4b15", ScalarKind::F8E4B15},
      {"float8e4b15", ScalarKind::F8E4B15},
      {"f8e4b15", ScalarKind::F8E4B15},
  };
  auto it = table.find(name);
  if (it == table.end())
    return false;
  out = it->second;
  return true;
}

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Type Type::withElem(DType e) const {
  Type t = *this;
  t.elem = e;
  return t;
}

Type Type::withShape(std::vector<int64_t> s) const { return Type(elem, std::move(s)); }

Type Type::withLayout(std::shared_ptr<const gpu::Layout> l) const {
  Type t = *this;
  t.layout = std::move(l);
  return t;
}

std::string Type::str() const {
  if (isScalar())
    return elem.str();
  std::ostringstream os;
  os << "tensor<";
  for (int64_t d : shape)
    os << d << "x";
  os << elem.str();
  if (layout)
    os << ", " << layout->str();
  os << ">";
  return os.str();
}

bool Type::operator==(const Type &o) const {
  if (elem != o.elem || shape != o.shape)
    return false;
  if (!layout || !o.layout)
    return !layout && !o.layout;
  return *layout == *o.layout;
}

} // namespace tilec::tir
