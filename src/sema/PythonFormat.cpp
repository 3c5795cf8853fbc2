// Python's format-spec mini-language, after CPython's Python/formatter_unicode.c (the spec's
// parsing, the layout of numbers, their grouping) and Python/pystrtod.c (format_float_short: the
// digits of a float as 'e', 'f', 'g' and repr write them). The digits themselves, correctly
// rounded as David Gay's dtoa gives them to Python, come from std::to_chars.
#include "sema/PythonFormat.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

namespace tilec::sema {

namespace {

/// Widths and precisions beyond this are refused (Python would build the string).
constexpr int64_t kMaxWidth = 1 << 20;

std::u32string decodeUtf8(const std::string &s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    char32_t cp = extra == 3 ? c & 0x07 : extra == 2 ? c & 0x0F : extra == 1 ? c & 0x1F : c;
    ++i;
    for (int k = 0; k < extra && i < s.size(); ++k, ++i)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
    out += cp;
  }
  return out;
}

std::string encodeUtf8(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

std::string encodeUtf8(const std::u32string &s) {
  std::string out;
  for (char32_t cp : s)
    out += encodeUtf8(cp);
  return out;
}

/// A parsed spec: [[fill]align][sign][z][#][0][width][grouping][.precision][type].
struct Spec {
  char32_t fill = ' ';
  char32_t align = 0;
  char32_t sign = 0; // '+', '-', ' ' or none
  bool noNegativeZero = false;
  bool alternate = false;
  int64_t width = -1;
  char32_t separator = 0; // ',' or '_'
  int groupSize = 3;      // 4 for '_' in bin/oct/hex
  int64_t precision = -1;
  char32_t type = 0;
};

PyFormatError valueError(std::string message) { return {"ValueError", std::move(message)}; }

/// "'x'" as Python's messages name a presentation type, "'\x1e9e'" outside printable ASCII.
std::string typeCharText(char32_t type) {
  if (type > 32 && type < 128)
    return std::string(1, static_cast<char>(type));
  char hex[16];
  auto end = std::to_chars(hex, hex + sizeof hex, static_cast<uint32_t>(type), 16).ptr;
  return "\\x" + std::string(hex, end);
}

PyFormatError unknownType(char32_t type, const char *typeName) {
  return valueError("Unknown format code '" + typeCharText(type) + "' for object of type '" +
                    typeName + "'");
}

bool isAlign(char32_t c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

/// parse_internal_render_format_spec: the spec's fields, or Python's ValueError.
std::variant<Spec, PyFormatError> parseSpec(const std::string &text, char32_t defaultType,
                                            char32_t defaultAlign, const char *typeName) {
  std::u32string spec = decodeUtf8(text);
  Spec f;
  f.align = defaultAlign;
  f.type = defaultType;
  size_t pos = 0, end = spec.size();
  bool fillSpecified = false, alignSpecified = false;
  if (end - pos >= 2 && isAlign(spec[pos + 1])) {
    f.fill = spec[pos];
    f.align = spec[pos + 1];
    fillSpecified = alignSpecified = true;
    pos += 2;
  } else if (end - pos >= 1 && isAlign(spec[pos])) {
    f.align = spec[pos];
    alignSpecified = true;
    ++pos;
  }
  if (pos < end && (spec[pos] == '+' || spec[pos] == '-' || spec[pos] == ' '))
    f.sign = spec[pos++];
  if (pos < end && spec[pos] == 'z') {
    f.noNegativeZero = true;
    ++pos;
  }
  if (pos < end && spec[pos] == '#') {
    f.alternate = true;
    ++pos;
  }
  // The special case of zero padding (backwards compatibility).
  if (!fillSpecified && pos < end && spec[pos] == '0') {
    f.fill = '0';
    if (!alignSpecified && defaultAlign == '>')
      f.align = '=';
    ++pos;
  }
  // get_integer: the number of digits read, or nullopt past the limit.
  auto integer = [&](int64_t &value) -> std::optional<size_t> {
    size_t start = pos;
    value = 0;
    for (; pos < end && spec[pos] >= '0' && spec[pos] <= '9'; ++pos) {
      value = value * 10 + (spec[pos] - '0');
      if (value > kMaxWidth)
        return std::nullopt;
    }
    return pos - start;
  };
  const PyFormatError tooBig{"", "a width or precision above " + std::to_string(kMaxWidth) +
                                     " in a format spec is not supported yet"};
  std::optional<size_t> consumed = integer(f.width);
  if (!consumed)
    return tooBig;
  if (*consumed == 0)
    f.width = -1;
  if (pos < end && spec[pos] == ',') {
    f.separator = ',';
    ++pos;
  }
  if (pos < end && spec[pos] == '_') {
    if (f.separator)
      return valueError("Cannot specify both ',' and '_'.");
    f.separator = '_';
    ++pos;
  }
  if (pos < end && spec[pos] == ',' && f.separator == '_')
    return valueError("Cannot specify both ',' and '_'.");
  if (pos < end && spec[pos] == '.') {
    ++pos;
    consumed = integer(f.precision);
    if (!consumed)
      return tooBig;
    if (*consumed == 0)
      return valueError("Format specifier missing precision");
  }
  if (end - pos > 1)
    return valueError("Invalid format specifier '" + text + "' for object of type '" + typeName +
                      "'");
  if (end - pos == 1)
    f.type = spec[pos];
  if (f.separator) {
    switch (f.type) {
    case 'd':
    case 'e':
    case 'f':
    case 'g':
    case 'E':
    case 'G':
    case '%':
    case 'F':
    case 0:
      break;
    case 'b':
    case 'o':
    case 'x':
    case 'X':
      // Underscores group bin, oct and hex digits by four.
      if (f.separator == '_') {
        f.groupSize = 4;
        break;
      }
      [[fallthrough]];
    default:
      return valueError(std::string("Cannot specify '") + static_cast<char>(f.separator) +
                        "' with '" + typeCharText(f.type) + "'.");
    }
  }
  return f;
}

/// _PyUnicode_InsertThousandsGrouping: `digits` with the separator every `groupSize` digits
/// (none when `separator` is 0), padded on the left with zeros, themselves grouped, to at least
/// `minWidth` characters.
std::string groupDigits(const std::string &digits, int64_t minWidth, char32_t separator,
                        int groupSize) {
  std::string sep = separator ? encodeUtf8(separator) : "";
  std::vector<std::string> pieces; // from the right
  int64_t remaining = static_cast<int64_t>(digits.size());
  size_t pos = digits.size();
  bool useSeparator = false;
  auto fill = [&](int64_t chars, int64_t zeros) {
    if (useSeparator)
      pieces.push_back(sep);
    pos -= static_cast<size_t>(chars);
    pieces.push_back(digits.substr(pos, static_cast<size_t>(chars)));
    pieces.push_back(std::string(static_cast<size_t>(zeros), '0'));
  };
  if (separator) {
    for (;;) {
      int64_t len = groupSize;
      int64_t l = std::min(len, std::max({remaining, minWidth, int64_t(1)}));
      int64_t zeros = std::max(int64_t(0), l - remaining);
      int64_t chars = std::max(int64_t(0), std::min(remaining, l));
      fill(chars, zeros);
      useSeparator = true;
      remaining -= chars;
      minWidth -= len;
      if (remaining <= 0 && minWidth <= 0)
        break;
      minWidth -= 1; // the separator's width
    }
  } else {
    int64_t len = std::max({remaining, minWidth, int64_t(1)});
    fill(std::max(int64_t(0), std::min(remaining, len)), std::max(int64_t(0), len - remaining));
  }
  std::string out;
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it)
    out += *it;
  return out;
}

/// calc_number_widths and fill_number: a number laid out in the spec's width as
///   <lpadding> <sign> <prefix> <spadding> <grouped digits> <remainder> <rpadding>
/// where the remainder is the decimal point and what follows the digits.
std::string layoutNumber(const Spec &f, bool negative, const std::string &prefix,
                         const std::string &digits, const std::string &remainder, bool grouped) {
  std::string sign;
  if (negative)
    sign = "-";
  else if (f.sign == '+')
    sign = "+";
  else if (f.sign == ' ')
    sign = " ";
  auto width = [](const std::string &s) { // code points
    return static_cast<int64_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  int64_t nonDigits =
      static_cast<int64_t>(sign.size() + prefix.size()) + width(remainder);
  int64_t minWidth = f.fill == '0' && f.align == '=' ? f.width - nonDigits : 0;
  std::string groupedDigits =
      digits.empty() ? "" : groupDigits(digits, minWidth, grouped ? f.separator : 0, f.groupSize);
  int64_t padding = f.width - (nonDigits + static_cast<int64_t>(groupedDigits.size()));
  int64_t left = 0, inner = 0, right = 0;
  if (padding > 0) {
    switch (f.align) {
    case '<':
      right = padding;
      break;
    case '^':
      left = padding / 2;
      right = padding - left;
      break;
    case '=':
      inner = padding;
      break;
    default:
      left = padding;
    }
  }
  std::string fill = encodeUtf8(f.fill);
  auto repeat = [&](int64_t n) {
    std::string s;
    for (int64_t i = 0; i < n; ++i)
      s += fill;
    return s;
  };
  return repeat(left) + sign + prefix + repeat(inner) + groupedDigits + remainder + repeat(right);
}

//===----------------------------------------------------------------------===//
// Floats
//===----------------------------------------------------------------------===//

/// The decimal digits of |d| as _Py_dg_dtoa gives them: no trailing zeros, and the position of
/// the decimal point (decpt: the value is 0.digits * 10**decpt). Mode 0: the shortest digits
/// that read back as d; mode 2: `ndigits` significant digits; mode 3: `ndigits` digits after
/// the point. A value that rounds to zero is "0" with decpt 1.
std::pair<std::string, int> dtoaDigits(double d, int mode, int64_t ndigits) {
  double a = std::fabs(d);
  if (a == 0)
    return {"0", 1};
  std::string buf(static_cast<size_t>(400 + std::max<int64_t>(ndigits, 0)), '\0');
  char *first = buf.data(), *last = buf.data() + buf.size();
  std::to_chars_result r;
  if (mode == 0)
    r = std::to_chars(first, last, a, std::chars_format::scientific);
  else if (mode == 2)
    r = std::to_chars(first, last, a, std::chars_format::scientific, static_cast<int>(ndigits - 1));
  else
    r = std::to_chars(first, last, a, std::chars_format::fixed, static_cast<int>(ndigits));
  std::string text(first, r.ptr);
  std::string digits;
  int decpt;
  if (mode == 3) {
    size_t point = text.find('.');
    std::string whole = text.substr(0, point);
    digits = whole + (point == std::string::npos ? "" : text.substr(point + 1));
    decpt = static_cast<int>(whole.size());
    size_t lead = digits.find_first_not_of('0');
    if (lead == std::string::npos)
      return {"0", 1};
    digits.erase(0, lead);
    decpt -= static_cast<int>(lead);
  } else {
    size_t e = text.find('e');
    digits = text.substr(0, e);
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    decpt = std::stoi(text.substr(e + 1)) + 1;
  }
  size_t lastDigit = digits.find_last_not_of('0');
  digits.erase(lastDigit + 1);
  return {digits, decpt};
}

/// PyOS_double_to_string and format_float_short: d written by the code 'e', 'f', 'g' or 'r'
/// (repr), with its '-' sign; `upper` for 'E', 'F' and 'G'.
std::string doubleToString(double d, char code, int64_t precision, bool addDot0, bool alternate,
                           bool noNegativeZero, bool upper) {
  if (std::isnan(d))
    return upper ? "NAN" : "nan";
  if (std::isinf(d))
    return std::string(d < 0 ? "-" : "") + (upper ? "INF" : "inf");
  int mode;
  int64_t ndigits = precision;
  if (code == 'e') {
    mode = 2;
    ndigits = ++precision;
  } else if (code == 'f') {
    mode = 3;
  } else if (code == 'g') {
    mode = 2;
    if (precision == 0)
      precision = ndigits = 1;
  } else {
    mode = 0;
  }
  auto [digits, decptInt] = dtoaDigits(d, mode, ndigits);
  int64_t decpt = decptInt;
  bool negative = std::signbit(d);
  if (noNegativeZero && negative && digits == "0")
    negative = false;
  int64_t digitsLen = static_cast<int64_t>(digits.size());
  int64_t vdigitsEnd = digitsLen;
  bool useExp = false;
  switch (code) {
  case 'e':
    useExp = true;
    vdigitsEnd = precision;
    break;
  case 'f':
    vdigitsEnd = decpt + precision;
    break;
  case 'g':
    if (decpt <= -4 || decpt > (addDot0 ? precision - 1 : precision))
      useExp = true;
    if (alternate)
      vdigitsEnd = precision;
    break;
  default: // 'r': exponents from 1e16
    if (decpt <= -4 || decpt > 16)
      useExp = true;
  }
  int64_t exp = 0;
  if (useExp) {
    exp = decpt - 1;
    decpt = 1;
  }
  int64_t vdigitsStart = decpt <= 0 ? decpt - 1 : 0;
  if (!useExp && addDot0)
    vdigitsEnd = std::max(vdigitsEnd, decpt + 1);
  else
    vdigitsEnd = std::max(vdigitsEnd, decpt);
  auto zeros = [](int64_t n) { return std::string(static_cast<size_t>(std::max<int64_t>(n, 0)), '0'); };
  std::string out = negative ? "-" : "";
  if (decpt <= 0)
    out += zeros(decpt - vdigitsStart) + "." + zeros(-decpt);
  else
    out += zeros(-vdigitsStart);
  if (0 < decpt && decpt <= digitsLen)
    out += digits.substr(0, static_cast<size_t>(decpt)) + "." +
           digits.substr(static_cast<size_t>(decpt));
  else
    out += digits;
  if (digitsLen < decpt)
    out += zeros(decpt - digitsLen) + "." + zeros(vdigitsEnd - decpt);
  else
    out += zeros(vdigitsEnd - digitsLen);
  if (out.back() == '.' && !alternate)
    out.pop_back();
  if (useExp) {
    std::string e = std::to_string(std::llabs(exp));
    out += std::string(upper ? "E" : "e") + (exp < 0 ? "-" : "+") + (e.size() < 2 ? "0" : "") + e;
  }
  return out;
}

/// format_float_internal, on a parsed spec whose type a float takes.
std::string formatFloatSpec(double value, Spec f) {
  char32_t type = f.type;
  bool addDot0 = false;
  int64_t defaultPrecision = 6;
  if (type == 0) {
    // Like repr() without a precision, else like 'g' with a digit after the point.
    addDot0 = true;
    type = 'r';
    defaultPrecision = 0;
  }
  if (type == 'n')
    type = 'g'; // the C locale's
  bool percent = type == '%';
  if (percent) {
    type = 'f';
    value *= 100;
  }
  int64_t precision = f.precision;
  if (precision < 0)
    precision = defaultPrecision;
  else if (type == 'r')
    type = 'g';
  bool upper = type == 'E' || type == 'F' || type == 'G';
  char code = static_cast<char>(upper ? type - 'A' + 'a' : type);
  std::string text =
      doubleToString(value, code, precision, addDot0, f.alternate, f.noNegativeZero, upper);
  if (percent)
    text += "%";
  bool negative = text[0] == '-';
  if (negative)
    text.erase(0, 1);
  // parse_number: the leading digits, then the remainder (decimal point and what follows).
  size_t digitsEnd = 0;
  while (digitsEnd < text.size() && text[digitsEnd] >= '0' && text[digitsEnd] <= '9')
    ++digitsEnd;
  bool grouped = f.type != 'n';
  return layoutNumber(f, negative, "", text.substr(0, digitsEnd), text.substr(digitsEnd), grouped);
}

/// The presentation types that format a number as a float (ints convert to one first).
bool isFloatPresentation(char32_t type) {
  switch (type) {
  case 'e':
  case 'E':
  case 'f':
  case 'F':
  case 'g':
  case 'G':
  case '%':
    return true;
  default:
    return false;
  }
}

} // namespace

PyFormatResult formatPythonFloat(double v, const std::string &spec) {
  auto parsed = parseSpec(spec, 0, '>', "float");
  if (auto *e = std::get_if<PyFormatError>(&parsed))
    return *e;
  Spec f = std::get<Spec>(parsed);
  if (f.type == 0 || f.type == 'n' || isFloatPresentation(f.type))
    return formatFloatSpec(v, f);
  return unknownType(f.type, "float");
}

PyFormatResult formatPythonInt(int64_t v, bool isBool, const std::string &spec) {
  const char *typeName = isBool ? "bool" : "int";
  if (spec.empty()) // str()
    return isBool ? std::string(v ? "True" : "False") : std::to_string(v);
  auto parsed = parseSpec(spec, 'd', '>', typeName);
  if (auto *e = std::get_if<PyFormatError>(&parsed))
    return *e;
  Spec f = std::get<Spec>(parsed);
  switch (f.type) {
  case 'b':
  case 'c':
  case 'd':
  case 'o':
  case 'x':
  case 'X':
  case 'n':
    break;
  default:
    if (isFloatPresentation(f.type))
      return formatFloatSpec(static_cast<double>(v), f);
    return unknownType(f.type, typeName);
  }
  // format_long_internal
  if (f.precision != -1)
    return valueError("Precision not allowed in integer format specifier");
  if (f.noNegativeZero)
    return valueError("Negative zero coercion (z) not allowed in integer format specifier");
  if (f.type == 'c') {
    if (f.sign)
      return valueError("Sign not allowed with integer format specifier 'c'");
    if (f.alternate)
      return valueError("Alternate form (#) not allowed with integer format specifier 'c'");
    if (v < 0 || v > 0x10ffff)
      return PyFormatError{"OverflowError", "%c arg not in range(0x110000)"};
    // The character is "remainder": neither digits nor grouped.
    return layoutNumber(f, false, "", "", encodeUtf8(static_cast<char32_t>(v)), false);
  }
  int base = f.type == 'b' ? 2 : f.type == 'o' ? 8 : f.type == 'x' || f.type == 'X' ? 16 : 10;
  std::string prefix;
  if (f.alternate && base != 10)
    prefix = std::string("0") + (base == 2 ? "b" : base == 8 ? "o" : f.type == 'X' ? "X" : "x");
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  char buf[72];
  std::string digits(buf, std::to_chars(buf, buf + sizeof buf, magnitude, base).ptr);
  if (f.type == 'X')
    std::transform(digits.begin(), digits.end(), digits.begin(), ::toupper);
  return layoutNumber(f, v < 0, prefix, digits, "", f.type != 'n');
}

PyFormatResult formatPythonStr(const std::string &s, const std::string &spec) {
  auto parsed = parseSpec(spec, 's', '<', "str");
  if (auto *e = std::get_if<PyFormatError>(&parsed))
    return *e;
  Spec f = std::get<Spec>(parsed);
  if (f.type != 's')
    return unknownType(f.type, "str");
  // format_string_internal
  if (f.sign == ' ')
    return valueError("Space not allowed in string format specifier");
  if (f.sign)
    return valueError("Sign not allowed in string format specifier");
  if (f.noNegativeZero)
    return valueError("Negative zero coercion (z) not allowed in string format specifier");
  if (f.alternate)
    return valueError("Alternate form (#) not allowed in string format specifier");
  if (f.align == '=')
    return valueError("'=' alignment not allowed in string format specifier");
  std::u32string text = decodeUtf8(s);
  if (f.precision >= 0 && static_cast<int64_t>(text.size()) >= f.precision)
    text.resize(static_cast<size_t>(f.precision));
  int64_t len = static_cast<int64_t>(text.size());
  int64_t total = f.width >= 0 && f.width > len ? f.width : len;
  int64_t left = f.align == '>' ? total - len : f.align == '^' ? (total - len) / 2 : 0;
  int64_t right = total - len - left;
  std::string fill = encodeUtf8(f.fill), out;
  for (int64_t i = 0; i < left; ++i)
    out += fill;
  out += encodeUtf8(text);
  for (int64_t i = 0; i < right; ++i)
    out += fill;
  return out;
}

} // namespace tilec::sema
