#include "sema/Signature.h"

#include <algorithm>
#include <cctype>

namespace tilec::sema {
namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool isNumberLiteral(const std::string &s) {
  if (s.empty())
    return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  return i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.');
}

// The AOT tool's type names are the short ones: i32, fp16, bf16, fp8e4nv...
bool parseSignatureType(const std::string &name, tir::ScalarKind &kind) {
  if (name == "fp8e4nv") {
    kind = tir::ScalarKind::F8E4M3;
    return true;
  }
  if (name == "fp8e5") {
    kind = tir::ScalarKind::F8E5M2;
    return true;
  }
  return tir::parseDType(name, kind);
}

bool parseHint(const std::string &text, unsigned &hint) {
  if (text.empty())
    return false;
  // Digit by digit, stopping past 2^30: any number of digits must neither throw (std::stoul
  // did, out of range) nor wrap into a small power of two (a cast to unsigned did).
  uint64_t value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
    if (value > (uint64_t(1) << 30))
      return false;
  }
  hint = static_cast<unsigned>(value);
  return hint != 0 && (hint & (hint - 1)) == 0;
}

/// The entries of a signature: split at the commas outside <...>, [...] and (...), which
/// `tensordesc<fp16[64, 64]>` and tuples have.
std::vector<std::string> splitEntries(const std::string &text) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '<' || c == '[' || c == '(')
      ++depth;
    else if ((c == '>' || c == ']' || c == ')') && depth > 0)
      --depth;
    if (c == ',' && depth == 0) {
      items.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  items.push_back(current);
  return items;
}

/// Parses `tensordesc<T[B0, B1, ...]>` into \p entry; returns an error message or "".
std::string parseTensorDesc(const std::string &item, SignatureEntry &entry) {
  const std::string prefix = "tensordesc<";
  const std::string form = " (the form is tensordesc<fp16[64, 64]>: the element type and the "
                           "block shape)";
  if (item.rfind("tensordesc_im2col<", 0) == 0)
    return "im2col tensor descriptors are not supported yet";
  if (item.size() < prefix.size() + 1 || item.back() != '>')
    return "a tensor descriptor entry must end with '>'" + form;
  std::string inner = item.substr(prefix.size(), item.size() - prefix.size() - 1);
  size_t open = inner.find('['), close = inner.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return "a tensor descriptor needs its block shape in [...]" + form;
  if (!trim(inner.substr(close + 1)).empty())
    return "tensor descriptors with a layout (Gluon's) are not supported yet";
  std::string typeName = trim(inner.substr(0, open));
  tir::ScalarKind kind;
  if (!parseSignatureType(typeName, kind))
    return "unknown element type '" + typeName + "'" + form;
  std::string dims = inner.substr(open + 1, close - open - 1);
  size_t pos = 0;
  while (true) {
    size_t comma = dims.find(',', pos);
    std::string dim =
        trim(dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    unsigned value = 0;
    if (!parseHint(dim, value))
      return "the block shape of a tensor descriptor must be powers of two, not '" + dim + "'";
    entry.blockShape.push_back(value);
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  if (entry.blockShape.size() > 5)
    return "tensor descriptors have at most 5 dimensions, this one has " +
           std::to_string(entry.blockShape.size());
  entry.kind = SignatureEntry::Kind::TensorDesc;
  entry.type = tir::DType::scalar(kind);
  return "";
}

std::string parseEntry(const std::string &item, SignatureEntry &entry);

bool isIdentifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// Parses `(e0, e1, ...)` into \p entry, each element an entry of its own; returns an error
/// message or "". As in Python, `()` is the empty tuple and `(e0,)` the one-element one.
std::string parseTuple(const std::string &item, SignatureEntry &entry) {
  if (item.back() != ')')
    return "a tuple entry must end with ')'";
  entry.kind = SignatureEntry::Kind::Tuple;
  std::string inner = trim(item.substr(1, item.size() - 2));
  if (inner.empty())
    return "";
  std::vector<std::string> parts = splitEntries(inner);
  if (parts.size() > 1 && trim(parts.back()).empty())
    parts.pop_back(); // the trailing comma of `(i32,)`
  for (const std::string &part : parts) {
    SignatureEntry element;
    element.text = trim(part);
    if (element.text.empty())
      return "element " + std::to_string(entry.elements.size()) + " is empty";
    std::string problem = parseEntry(element.text, element);
    if (!problem.empty())
      return "element " + std::to_string(entry.elements.size()) + " '" + element.text +
             "': " + problem;
    entry.elements.push_back(std::move(element));
  }
  return "";
}

/// Parses one entry (`*fp16:16`, `i32`, `1024`, `tensordesc<...>`, `(...)`) into \p entry;
/// returns an error message or "".
std::string parseEntry(const std::string &item, SignatureEntry &entry) {
  if (item.empty())
    return "is empty";
  if (item.front() == '(')
    return parseTuple(item, entry);
  // `Name(e0, e1)`: a NamedTuple of class Name.
  size_t open = item.find('(');
  if (open != std::string::npos && open > 0 && isIdentifier(item.substr(0, open))) {
    entry.className = item.substr(0, open);
    return parseTuple(item.substr(open), entry);
  }
  if (item.rfind("tensordesc", 0) == 0)
    return parseTensorDesc(item, entry);
  if (isNumberLiteral(item) || item == "True" || item == "False" || item == "None") {
    entry.kind = SignatureEntry::Kind::Constant;
    entry.constant = item;
    return "";
  }
  bool isPointer = item[0] == '*';
  std::string body = isPointer ? item.substr(1) : item;
  std::string typeName = body, hintText;
  size_t colon = body.find(':');
  if (colon != std::string::npos) {
    typeName = body.substr(0, colon);
    hintText = body.substr(colon + 1);
  }
  tir::ScalarKind kind;
  if (!parseSignatureType(typeName, kind)) {
    // Triton's AOT signature reads `**fp32` as a pointer to pointers (str_to_ty recurses).
    if (isPointer && typeName.size() > 1 && typeName[0] == '*')
      return "a pointer to pointers, which tilec does not support yet: pass the addresses "
             "as *i64 (or *u64) and convert each loaded one with .to(tl.pointer_type(...)) of "
             "its element type";
    if (isPointer)
      return "unknown pointee type '" + typeName + "'";
    // A bare word that is not a type binds a constexpr to a name, such as a dtype.
    entry.kind = SignatureEntry::Kind::Constant;
    entry.constant = item;
    return "";
  }
  if (colon != std::string::npos && !parseHint(hintText, entry.hint))
    return "the part after ':' must be a power of two (16)";
  entry.kind = isPointer ? SignatureEntry::Kind::Pointer : SignatureEntry::Kind::Scalar;
  entry.type = isPointer ? tir::DType::pointer(kind) : tir::DType::scalar(kind);
  return "";
}

} // namespace

bool SignatureEntry::isConstant() const {
  if (kind == Kind::Tuple)
    return std::all_of(elements.begin(), elements.end(),
                       [](const SignatureEntry &e) { return e.isConstant(); });
  return kind == Kind::Constant;
}

std::optional<std::vector<SignatureEntry>> parseSignature(const std::string &text,
                                                          std::string &error) {
  // Tuples nest as deep as a kernel's arguments do, never as deep as a stack overflow (the
  // parser recurses); their parentheses must balance before the entries split at commas.
  constexpr int kMaxTupleDepth = 16;
  int depth = 0;
  for (char c : text) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) {
      error = "a ')' closes no tuple";
      return std::nullopt;
    }
    if (depth > kMaxTupleDepth) {
      error = "tuples nest more than " + std::to_string(kMaxTupleDepth) + " deep";
      return std::nullopt;
    }
  }
  if (depth > 0) {
    error = "a tuple's '(' is not closed";
    return std::nullopt;
  }
  std::vector<SignatureEntry> entries;
  if (trim(text).empty()) // a kernel without parameters (a launch-latency probe)
    return entries;
  for (const std::string &raw : splitEntries(text)) {
    SignatureEntry entry;
    entry.text = trim(raw);
    std::string problem = parseEntry(entry.text, entry);
    if (!problem.empty()) {
      std::string position = "entry " + std::to_string(entries.size() + 1);
      error = entry.text.empty() ? position + " of the signature is empty"
                                 : position + " '" + entry.text + "': " + problem;
      return std::nullopt;
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string signatureTypeName(tir::DType type) {
  auto scalarName = [](tir::ScalarKind k) -> std::string {
    switch (k) {
    case tir::ScalarKind::I1: return "i1";
    case tir::ScalarKind::I8: return "i8";
    case tir::ScalarKind::I16: return "i16";
    case tir::ScalarKind::I32: return "i32";
    case tir::ScalarKind::I64: return "i64";
    case tir::ScalarKind::U8: return "u8";
    case tir::ScalarKind::U16: return "u16";
    case tir::ScalarKind::U32: return "u32";
    case tir::ScalarKind::U64: return "u64";
    case tir::ScalarKind::F8E4M3: return "fp8e4nv";
    case tir::ScalarKind::F8E5M2: return "fp8e5";
    case tir::ScalarKind::F8E4B15:
      return "fp8e4b15";
    case tir::ScalarKind::F16: return "fp16";
    case tir::ScalarKind::BF16: return "bf16";
    case tir::ScalarKind::F32: return "fp32";
    case tir::ScalarKind::F64: return "fp64";
    case tir::ScalarKind::Ptr: return "ptr";
    }
    return "?";
  };
  if (type.isPointer())
    return "*" + scalarName(type.pointee);
  return scalarName(type.kind);
}

} // namespace tilec::sema
