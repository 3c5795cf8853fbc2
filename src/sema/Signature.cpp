#include "sema/Signature.h"

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

} // namespace

std::optional<std::vector<SignatureEntry>> parseSignature(const std::string &text,
                                                          std::string &error) {
  std::vector<SignatureEntry> entries;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string item = trim(text.substr(pos, comma == std::string::npos ? std::string::npos
                                                                        : comma - pos));
    SignatureEntry entry;
    entry.text = item;
    std::string position = "entry " + std::to_string(entries.size() + 1);
    if (item.empty()) {
      error = position + " of the signature is empty";
      return std::nullopt;
    }
    if (isNumberLiteral(item) || item == "True" || item == "False" || item == "None") {
      entry.kind = SignatureEntry::Kind::Constant;
      entry.constant = item;
    } else {
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
        if (isPointer) {
          error = position + " '" + item + "': unknown pointee type '" + typeName + "'";
          return std::nullopt;
        }
        // A bare word that is not a type binds a constexpr to a name, such as a dtype.
        entry.kind = SignatureEntry::Kind::Constant;
        entry.constant = item;
        entries.push_back(entry);
        if (comma == std::string::npos)
          break;
        pos = comma + 1;
        continue;
      }
      if (colon != std::string::npos && !parseHint(hintText, entry.hint)) {
        error = position + " '" + item + "': the part after ':' must be a power of two (16)";
        return std::nullopt;
      }
      entry.kind = isPointer ? SignatureEntry::Kind::Pointer : SignatureEntry::Kind::Scalar;
      entry.type = isPointer ? tir::DType::pointer(kind) : tir::DType::scalar(kind);
    }
    entries.push_back(entry);
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
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
