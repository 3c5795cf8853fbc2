// The part of Python's library that module-level code of Triton projects calls, evaluated as
// Python evaluates it: isinstance() and str(), string methods, the `re` module, importlib's
// metadata.version and packaging.version.Version.
//
// Projects compute their kernels' globals at import time, through helpers such as
//
//   def Version(v):                      # parses triton.__version__ with re.match, or asks
//       ...                              # importlib.metadata for a package's version
//   if Version(triton.__version__) >= Version("3.0.0"):
//       tanh = libdevice.tanh
//
// What such code asks of the host is answered as the host that runs the kernels would answer it,
// as far as tilec can know: triton is 3.6.0 (kTritonVersion); a package tilec cannot see is not
// installed, so Python's exception is raised and `try`/`except` takes the path it takes on such a
// host; what tilec cannot know or does not model is a "not supported yet" error at the line that
// asks, never a guess.
//
// The host is the one that runs the kernels tilec compiles: Linux (the platform Triton supports),
// an NVIDIA GPU of --arch, and a CUDA build of torch, so platform.system() is "Linux",
// torch.cuda.is_available() is True, torch.version.hip is None, the device capability
// (torch.cuda.get_device_capability(), get_device_properties(i).major/.minor) is --arch's, and
// torch.__version__ and torch.version.cuda are what --torch-version and --cuda-version say
// (by default the newest torch tilec is tested with, kDefaultTorchVersion, and its CUDA). What
// differs between GPUs of one architecture (the device's name, its memory, its SM count) is an
// error. os.environ is tilec's own
// environment, as it is the environment of the Python process that imports a module: a variable
// that module-level code reads is set when running tilec. importlib.util.find_spec finds what
// an import would find (the files on tilec's search path, the modules it takes as installed).
//
// Regular expressions run on std::regex (ECMAScript) after a translation of Python's syntax that
// keeps Python's meaning: `.` does not match a newline, `$` also matches before a final newline,
// named groups are numbered. Constructs with no faithful translation (lookbehind, inline flags,
// possessive quantifiers) are errors, and so is text outside ASCII, where Python's Unicode
// character classes and std::regex's bytes differ.
#include "gpu/Arch.h"
#include "sema/PythonFormat.h"
#include "sema/Specializer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <regex>
#include <set>

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

constexpr const char *kVersionClass = "packaging.version.Version";
constexpr const char *kMatchClass = "re.Match";
constexpr const char *kPatternClass = "re.Pattern";
constexpr const char *kModuleSpecClass = "importlib.machinery.ModuleSpec";
// A ModuleSpec's loader (spec.loader.exec_module(module)).
constexpr const char *kModuleLoaderClass = "importlib.machinery.SourceFileLoader";
// triton.runtime.driver.active.get_current_target() and .utils.get_device_properties(i), asked
// of the GPU tilec compiles for (Specializer::deviceQuery).
constexpr const char *kGpuTargetClass = "triton.backends.compiler.GPUTarget";
constexpr const char *kDevicePropertiesClass = "dict (triton device properties)";
// torch.cuda.get_device_properties(i): its major and minor come from --arch.
constexpr const char *kTorchDevicePropertiesClass = "torch.cuda._CudaDeviceProperties";
// torch.device: its type ("cuda") and its index (an int, None, or the unknown current device of
// triton.runtime.driver.active.get_active_torch_device()).
constexpr const char *kTorchDeviceClass = "torch.device";
// triton.backends.backends, Triton's installed backends (vLLM counts the active drivers):
// those of the standard wheel, nvidia and amd, of which NVIDIA's driver is the active one on the
// host that runs the kernels. A backend's state is its name.
constexpr const char *kTritonBackendClass = "triton.backends.Backend";
constexpr const char *kTritonDriverClass = "triton.backends.driver.DriverBase";
// torch.finfo(dtype): bits, eps, max, min, tiny, resolution, the dtype's name.
constexpr const char *kFinfoClass = "torch.finfo";
// torch.iinfo(dtype): bits, max, min, the dtype's name.
constexpr const char *kIinfoClass = "torch.iinfo";
// logging.getLogger(name): its state is the name; its methods log, which changes no value.
constexpr const char *kLoggerClass = "logging.Logger";

/// Python's exception classes tilec raises, each with its bases, for `except` clauses.
const std::vector<std::string> kTypeError = *builtinExceptionClasses("TypeError");
const std::vector<std::string> kAttributeError = *builtinExceptionClasses("AttributeError");
const std::vector<std::string> kIndexError = *builtinExceptionClasses("IndexError");
const std::vector<std::string> kValueError = *builtinExceptionClasses("ValueError");
const std::vector<std::string> kInvalidVersion =
    libraryExceptionClasses("InvalidVersion", "ValueError");
// importlib.metadata.PackageNotFoundError is a ModuleNotFoundError.
const std::vector<std::string> kPackageNotFound =
    libraryExceptionClasses("PackageNotFoundError", "ModuleNotFoundError");
// re.error
const std::vector<std::string> kRegexError = libraryExceptionClasses("error", "Exception");
const std::vector<std::string> kKeyError = *builtinExceptionClasses("KeyError");
const std::vector<std::string> kRuntimeError = *builtinExceptionClasses("RuntimeError");

SemaValue makeObject(const std::string &cls, std::vector<SemaValue> state) {
  SemaValue v;
  v.kind = Kind::Object;
  v.name = cls;
  v.elems = std::move(state);
  return v;
}

bool isObject(const SemaValue &v, const char *cls) {
  return v.kind == Kind::Object && v.name == cls;
}

//===----------------------------------------------------------------------===//
// str() and repr()
//===----------------------------------------------------------------------===//

/// repr() of a float as Python writes it: the shortest digits that read back to the same
/// value, positional for 1e-4 <= |x| < 1e16 and scientific otherwise.
std::string floatRepr(double d) {
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto written = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string text(buf, written.ptr); // "-1.25e+20"
  std::string sign;
  if (text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  size_t e = text.find('e');
  std::string digits = text.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  int exponent = std::stoi(text.substr(e + 1));
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1)
      mantissa += "." + digits.substr(1);
    std::string exp = std::to_string(std::abs(exponent));
    if (exp.size() < 2)
      exp = "0" + exp;
    return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + exp;
  }
  int point = exponent + 1; // digits before the decimal point
  if (point <= 0)
    return sign + "0." + std::string(static_cast<size_t>(-point), '0') + digits;
  if (static_cast<size_t>(point) >= digits.size())
    return sign + digits + std::string(static_cast<size_t>(point) - digits.size(), '0') + ".0";
  return sign + digits.substr(0, static_cast<size_t>(point)) + "." +
         digits.substr(static_cast<size_t>(point));
}

/// repr() of a string: single quotes unless it holds one and no double quote.
std::string stringRepr(const std::string &s) {
  char quote = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    } else
      out += c;
  }
  return out + quote;
}

std::optional<std::string> pyRepr(const SemaValue &v);

/// str() of a value Python would print the same way; nullopt for what tilec does not model.
std::optional<std::string> pyStr(const SemaValue &v) {
  switch (v.kind) {
  case Kind::String:
    return v.name;
  case Kind::Object:
    if (v.name == kVersionClass)
      return v.elems[0].name;
    if (v.name == kTorchDeviceClass) {
      if (v.elems[1].isNone())
        return v.elems[0].name;
      if (v.elems[1].kind != Kind::Int)
        return std::nullopt;
      return v.elems[0].name + ":" + std::to_string(v.elems[1].intValue);
    }
    return pyRepr(v);
  case Kind::DType: // Triton's dtype.__str__: its name (<[64, 32], fp16> for a block type)
    return v.repr();
  default:
    return pyRepr(v);
  }
}

std::optional<std::string> pyRepr(const SemaValue &v) {
  switch (v.kind) {
  case Kind::DType: {
    // Triton 3.6's dtype.__repr__: triton.language.<codegen_name> (fp16 -> float16, bf16 ->
    // bfloat16); pointer and block types print as their str().
    if (v.isBlockType() || v.dtype.isPointer())
      return v.repr();
    std::string name = v.dtype.tritonName();
    if (name.rfind("fp", 0) == 0)
      name = "float" + name.substr(2);
    else if (name.rfind("bf", 0) == 0)
      name = "bfloat" + name.substr(2);
    return "triton.language." + name;
  }
  case Kind::None:
    return std::string("None");
  case Kind::Bool:
    return std::string(v.boolValue ? "True" : "False");
  case Kind::Int:
    return v.repr();
  case Kind::Float:
    return floatRepr(v.floatValue);
  case Kind::String:
    return stringRepr(v.name);
  case Kind::Tuple: {
    std::string s = "(";
    for (size_t i = 0; i < v.elems.size(); ++i) {
      std::optional<std::string> e = pyRepr(v.elems[i]);
      if (!e)
        return std::nullopt;
      s += (i ? ", " : "") + *e;
    }
    if (v.isList)
      return "[" + s.substr(1) + "]";
    return s + (v.elems.size() == 1 ? ",)" : ")");
  }
  case Kind::Object:
    if (v.name == kVersionClass)
      return "<Version(" + stringRepr(v.elems[0].name) + ")>";
    if (v.name == kMatchClass) {
      const SemaValue &span = v.elems[1].elems[0];
      int64_t start = span.elems[0].intValue, end = span.elems[1].intValue;
      return "<re.Match object; span=(" + std::to_string(start) + ", " + std::to_string(end) +
             "), match=" +
             stringRepr(v.elems[0].name.substr(static_cast<size_t>(start),
                                               static_cast<size_t>(end - start))) +
             ">";
    }
    if (v.name == kPatternClass)
      return "re.compile(" + stringRepr(v.elems[0].name) + ")";
    if (v.name == kTorchDeviceClass) {
      if (v.elems[1].isNone())
        return "device(type=" + stringRepr(v.elems[0].name) + ")";
      if (v.elems[1].kind != Kind::Int)
        return std::nullopt;
      return "device(type=" + stringRepr(v.elems[0].name) +
             ", index=" + std::to_string(v.elems[1].intValue) + ")";
    }
    if (v.name == kGpuTargetClass)
      return "GPUTarget(backend=" + stringRepr(v.elems[0].name) +
             ", arch=" + std::to_string(v.elems[1].intValue) +
             ", warp_size=" + std::to_string(v.elems[2].intValue) + ")";
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// packaging.version
//===----------------------------------------------------------------------===//

/// A PEP 440 version, as packaging.version.Version parses it.
struct PyVersion {
  int64_t epoch = 0;
  std::vector<int64_t> release;
  std::optional<std::pair<std::string, int64_t>> pre; // ("a" | "b" | "rc", n)
  std::optional<int64_t> post, dev;
  std::optional<std::string> local; // normalised: lower case, '.'-separated

  /// str(): the normalised form ("1.0rc1.post2.dev3+ubuntu.1").
  std::string str(bool withLocal = true) const {
    std::string s = epoch ? std::to_string(epoch) + "!" : "";
    for (size_t i = 0; i < release.size(); ++i)
      s += (i ? "." : "") + std::to_string(release[i]);
    if (pre)
      s += pre->first + std::to_string(pre->second);
    if (post)
      s += ".post" + std::to_string(*post);
    if (dev)
      s += ".dev" + std::to_string(*dev);
    if (local && withLocal)
      s += "+" + *local;
    return s;
  }
};

/// Parses `text` with packaging's VERSION_PATTERN (case-insensitive, surrounding whitespace
/// ignored); nullopt when it is not a valid version. Numbers beyond 64 bits are not valid here.
std::optional<PyVersion> parseVersion(const std::string &text) {
  static const std::regex pattern(R"(^\s*v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*))"
                                  R"(([-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?)"
                                  R"(((?:-([0-9]+))|(?:[-_.]?(post|rev|r)[-_.]?([0-9]+)?))?)"
                                  R"(([-_.]?(dev)[-_.]?([0-9]+)?)?)"
                                  R"((?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$)",
                                  std::regex::ECMAScript | std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, pattern))
    return std::nullopt;
  auto number = [](const std::string &digits) -> std::optional<int64_t> {
    int64_t v = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size())
      return std::nullopt;
    return v;
  };
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  PyVersion v;
  if (m[1].matched) {
    auto e = number(m[1].str());
    if (!e)
      return std::nullopt;
    v.epoch = *e;
  }
  std::string release = m[2].str();
  for (size_t start = 0;;) {
    size_t dot = release.find('.', start);
    auto part = number(release.substr(start, dot - start));
    if (!part)
      return std::nullopt;
    v.release.push_back(*part);
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  auto optionalNumber = [&](const std::ssub_match &digits) -> std::optional<int64_t> {
    return digits.matched ? number(digits.str()) : std::optional<int64_t>(0);
  };
  if (m[3].matched) {
    std::string letter = lower(m[4].str());
    letter = letter == "alpha"                ? "a"
             : letter == "beta"               ? "b"
             : letter == "a" || letter == "b" ? letter
                                              : "rc";
    auto n = optionalNumber(m[5]);
    if (!n)
      return std::nullopt;
    v.pre = std::make_pair(letter, *n);
  }
  if (m[6].matched) {
    auto n = m[7].matched ? number(m[7].str()) : optionalNumber(m[9]);
    if (!n)
      return std::nullopt;
    v.post = *n;
  }
  if (m[10].matched) {
    auto n = optionalNumber(m[12]);
    if (!n)
      return std::nullopt;
    v.dev = *n;
  }
  if (m[13].matched) {
    std::string local = lower(m[13].str());
    std::replace_if(
        local.begin(), local.end(), [](char c) { return c == '-' || c == '_'; }, '.');
    v.local = local;
  }
  return v;
}

/// packaging's ordering (its _cmpkey): release without trailing zeros; a dev release sorts before
/// its pre-releases, which sort before the release; post-releases after it; a local version after
/// the public one, its numeric parts after its alphanumeric ones.
int compareVersions(const PyVersion &a, const PyVersion &b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : y < x ? 1 : 0; };
  if (int c = cmp(a.epoch, b.epoch))
    return c;
  auto trimmed = [](std::vector<int64_t> r) {
    while (!r.empty() && r.back() == 0)
      r.pop_back();
    return r;
  };
  if (int c = cmp(trimmed(a.release), trimmed(b.release)))
    return c;
  // Pre-release key: -inf for a bare dev release, +inf for no pre-release, else (letter, n).
  auto preKey = [](const PyVersion &v) {
    if (!v.pre && !v.post && v.dev)
      return std::make_tuple(-1, std::string(), int64_t(0));
    if (!v.pre)
      return std::make_tuple(1, std::string(), int64_t(0));
    return std::make_tuple(0, v.pre->first, v.pre->second);
  };
  if (int c = cmp(preKey(a), preKey(b)))
    return c;
  auto postKey = [](const PyVersion &v) {
    return v.post ? std::make_pair(1, *v.post) : std::make_pair(0, int64_t(0));
  };
  if (int c = cmp(postKey(a), postKey(b)))
    return c;
  auto devKey = [](const PyVersion &v) {
    return v.dev ? std::make_pair(0, *v.dev) : std::make_pair(1, int64_t(0));
  };
  if (int c = cmp(devKey(a), devKey(b)))
    return c;
  // Local: absent sorts first; parts compare numerically when numeric, and a numeric part sorts
  // after an alphanumeric one.
  if (!a.local || !b.local)
    return cmp(a.local.has_value(), b.local.has_value());
  auto parts = [](const std::string &local) {
    std::vector<std::tuple<int, int64_t, std::string>> out;
    for (size_t start = 0;;) {
      size_t dot = local.find('.', start);
      std::string part = local.substr(start, dot - start);
      bool numeric = std::all_of(part.begin(), part.end(), ::isdigit) && part.size() < 19;
      if (numeric)
        out.emplace_back(1, std::stoll(part), "");
      else
        out.emplace_back(0, 0, part);
      if (dot == std::string::npos)
        break;
      start = dot + 1;
    }
    return out;
  };
  return cmp(parts(*a.local), parts(*b.local));
}

PyVersion versionOf(const SemaValue &object) {
  // The object keeps its normalised text, which always parses.
  return *parseVersion(object.elems[0].name);
}

//===----------------------------------------------------------------------===//
// re
//===----------------------------------------------------------------------===//

// Python's flag values (re.IGNORECASE is 2, ...).
constexpr int64_t kReIgnoreCase = 2, kReMultiline = 8, kReDotAll = 16, kReUnicode = 32,
                  kReVerbose = 64, kReAscii = 256;

/// A Python pattern translated for std::regex.
struct CompiledRegex {
  std::regex re;
  unsigned groups = 0;
  std::vector<std::pair<std::string, unsigned>> names; // (?P<name>...) -> group number
};

/// Text std::regex handles as Python does: ASCII, without the separators (\x1c-\x1f) that
/// Python's \s matches and ECMAScript's does not.
bool isPlainAscii(const std::string &text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    unsigned char u = static_cast<unsigned char>(c);
    return u < 0x80 && !(u >= 0x1c && u <= 0x1f);
  });
}

/// Translates Python's pattern syntax into ECMAScript's. Returns an error message for what has no
/// faithful translation.
std::optional<std::string> translatePattern(const std::string &p, int64_t flags, std::string &out,
                                            CompiledRegex &compiled) {
  bool multiline = flags & kReMultiline, dotAll = flags & kReDotAll, verbose = flags & kReVerbose;
  bool inClass = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    char next = i + 1 < p.size() ? p[i + 1] : '\0';
    if (inClass) {
      if (c == '\\') {
        if (next == 'U' || next == 'N' || (next >= '0' && next <= '9'))
          return std::string("the escape '\\") + next + "' in a character class";
        out += p.substr(i, 2);
        ++i;
      } else if (c == '[' && next == ':') {
        return std::string("'[:' in a character class (ECMAScript reads a POSIX class there)");
      } else if (c == '[') {
        out += "\\[";
      } else {
        out += c;
        inClass = c != ']';
      }
      continue;
    }
    if (verbose && std::isspace(static_cast<unsigned char>(c)))
      continue;
    if (verbose && c == '#') {
      while (i + 1 < p.size() && p[i + 1] != '\n')
        ++i;
      continue;
    }
    switch (c) {
    case '\\':
      if (next == 'A' || next == 'Z') {
        // Start and end of the string; ECMAScript's ^ and $ mean that without the multiline flag.
        if (multiline)
          return std::string("'\\") + next + "' with re.MULTILINE";
        out += next == 'A' ? "^" : "$";
      } else if (next == '0' || (next >= '1' && next <= '9' && i + 2 < p.size() &&
                                 std::isdigit(static_cast<unsigned char>(p[i + 2])))) {
        return std::string("an octal escape or a backreference beyond \\9");
      } else if (next == 'U' || next == 'N' || next == '\0') {
        return next ? std::string("the escape '\\") + next + "'"
                    : std::string("a trailing backslash");
      } else {
        out += p.substr(i, 2);
      }
      ++i;
      break;
    case '[':
      inClass = true;
      out += '[';
      if (next == '^') {
        out += '^';
        ++i;
        next = i + 1 < p.size() ? p[i + 1] : '\0';
      }
      // A ']' first in a class is a literal in Python; ECMAScript would close an empty class.
      if (next == ']') {
        out += "\\]";
        ++i;
      }
      break;
    case '.':
      out += dotAll ? "[\\s\\S]" : "[^\\n]";
      break;
    case '$':
      // Python's $ also matches before a newline that ends the string.
      out += multiline ? "$" : "(?=\\n?$)";
      break;
    case '(':
      if (next != '?') {
        ++compiled.groups;
        out += '(';
        break;
      }
      if (i + 2 < p.size() && (p[i + 2] == ':' || p[i + 2] == '=' || p[i + 2] == '!')) {
        out += p.substr(i, 3);
        i += 2;
        break;
      }
      if (i + 3 < p.size() && p[i + 2] == 'P' && (p[i + 3] == '<' || p[i + 3] == '=')) {
        char close = p[i + 3] == '<' ? '>' : ')';
        size_t end = p.find(close, i + 4);
        if (end == std::string::npos)
          return std::string("an unterminated group name");
        std::string name = p.substr(i + 4, end - i - 4);
        if (p[i + 3] == '<') {
          compiled.names.emplace_back(name, ++compiled.groups);
          out += '(';
        } else {
          auto it = std::find_if(compiled.names.begin(), compiled.names.end(),
                                 [&](const auto &n) { return n.first == name; });
          if (it == compiled.names.end())
            return "the backreference to the unknown group '" + name + "'";
          if (it->second > 9)
            return std::string("a backreference beyond \\9");
          out += "(?:\\" + std::to_string(it->second) + ")";
        }
        i = end;
        break;
      }
      return "the group '" + p.substr(i, std::min<size_t>(4, p.size() - i)) +
             "...' (lookbehind, inline flags, comments, conditionals, atomic groups)";
    case '*':
    case '+':
    case '?':
    case '}':
      if (next == '+')
        return std::string("a possessive quantifier");
      out += c;
      break;
    default:
      out += c;
      break;
    }
  }
  if (inClass)
    return std::string("an unterminated character class");
  return std::nullopt;
}

/// A property of torch's device properties that the compute capability fixes (the CUDA
/// programming guide's table of technical specifications), or nullopt for one that differs
/// between GPUs of one capability (the name, the memory, the SM count, the clocks).
std::optional<int64_t> capabilityProperty(int64_t capability, const std::string &name) {
  const bool bigShared = capability == 90 || capability == 100 || capability == 103;
  const bool ampereShared = capability == 80 || capability == 87;
  if (name == "shared_memory_per_block_optin")
    return (bigShared ? 227 : ampereShared ? 163 : 99) * 1024;
  if (name == "shared_memory_per_multiprocessor")
    return (bigShared ? 228 : ampereShared ? 164 : 100) * 1024;
  if (name == "shared_memory_per_block")
    return 48 * 1024;
  if (name == "regs_per_multiprocessor")
    return 64 * 1024;
  if (name == "warp_size")
    return 32;
  if (name == "max_threads_per_multi_processor")
    return capability == 86 || capability == 89 ? 1536 : capability == 120 ? 1536 : 2048;
  return std::nullopt;
}

} // namespace

//===----------------------------------------------------------------------===//
// Specializer: the entry points
//===----------------------------------------------------------------------===//

[[noreturn]] void Specializer::raisePython(const std::vector<std::string> &classes,
                                           const std::string &message, SourceLoc loc) {
  // Inside a Python function a `try` may catch it (callHostFunction reports it otherwise);
  // module-level code itself has nothing that could.
  if (hostCallDepth_ > 0)
    throw HostException{classes, message, loc};
  error(loc, "evaluating this raised " + classes[0] + ": " + message);
}

std::string Specializer::pythonStr(const SemaValue &v, SourceLoc loc) {
  std::optional<std::string> s = pyStr(v);
  if (!s)
    error(loc, "str() of " + v.describe() + " is not supported yet");
  return *s;
}

std::string Specializer::pythonRepr(const SemaValue &v, SourceLoc loc) {
  std::optional<std::string> s = pyRepr(v);
  if (!s)
    error(loc, "repr() of " + v.describe() + " is not supported yet");
  return *s;
}

std::string Specializer::pythonFormat(const SemaValue &v, const std::string &spec, SourceLoc loc) {
  PyFormatResult result;
  switch (v.kind) {
  case Kind::Int:
    if (v.intIsWide) {
      if (!spec.empty())
        error(loc, "formatting an integer beyond int64 with '" + spec + "' is not supported yet");
      return v.repr();
    }
    result = formatPythonInt(v.intValue, false, spec);
    break;
  case Kind::Bool:
    result = formatPythonInt(v.boolValue, true, spec);
    break;
  case Kind::Float:
    result = formatPythonFloat(v.floatValue, spec);
    break;
  case Kind::String:
    result = formatPythonStr(v.name, spec);
    break;
  default: {
    // object.__format__: str() for an empty spec, else a TypeError naming the class.
    if (spec.empty())
      return pythonStr(v, loc);
    std::string cls;
    if (v.kind == Kind::None)
      cls = "NoneType";
    else if (v.kind == Kind::Tuple)
      cls = v.isList ? "list" : "tuple";
    else if (v.kind == Kind::DType)
      cls = "dtype";
    else if (isObject(v, kVersionClass))
      cls = "Version";
    else if (isObject(v, kMatchClass) || isObject(v, kPatternClass))
      cls = v.name;
    else if (isObject(v, kModuleSpecClass))
      cls = "ModuleSpec";
    else
      error(loc, "format specs on " + v.describe() + " are not supported yet");
    raisePython(kTypeError, "unsupported format string passed to " + cls + ".__format__", loc);
  }
  }
  if (auto *e = std::get_if<PyFormatError>(&result)) {
    if (e->cls.empty())
      error(loc, e->message);
    raisePython(*builtinExceptionClasses(e->cls), e->message, loc);
  }
  return std::get<std::string>(result);
}

SemaValue Specializer::isInstance(CallArgs &args) {
  if (args.positional.size() != 2 || !args.keywords.empty())
    error(args.loc, "isinstance() takes two arguments: a value and a class (or a tuple of them)");
  const SemaValue &v = args.positional[0];
  // The classes named, by the name of the value kind they contain.
  std::set<std::string> classes;
  std::function<void(const SemaValue &)> collect = [&](const SemaValue &c) {
    if (c.kind == Kind::Tuple) {
      for (const SemaValue &e : c.elems)
        collect(e);
      return;
    }
    static const std::set<std::string> known = {
        "py.str", "py.int", "py.float", "py.bool", "py.tuple", "py.list", "py.object", "tl.tensor",
        "tl.dtype", "tl.pointer_type", "tl.tensor_descriptor", "tl.tensor_descriptor_base",
        kConstexprTypeClass,
        // Triton unwraps constexprs for isinstance, so
        // no value a kernel holds is one.
        "tl.constexpr", kVersionClass, kMatchClass, kPatternClass};
    bool named = c.kind == Kind::Builtin || (c.kind == Kind::Module && c.userModule < 0);
    if (!named || !known.count(c.name))
      error(args.loc, "isinstance() with " + c.describe() +
                          " as the class is not supported yet (tilec knows str, int, float, "
                          "bool, tuple, list, tl.tensor, tl.dtype, tl.pointer_type, "
                          "tl.constexpr_type, tl.tensor_descriptor, "
                          "packaging.version.Version, "
                          "re.Match and re.Pattern)");
    classes.insert(c.name);
  };
  collect(args.positional[1]);
  if (classes.count("py.object"))
    return SemaValue::ofBool(true);
  auto is = [&](const char *cls) { return classes.count(cls) != 0; };
  switch (v.kind) {
  case Kind::None:
  case Kind::JitFunction:
    return SemaValue::ofBool(false);
  case Kind::Bool:
    return SemaValue::ofBool(is("py.bool") || is("py.int"));
  case Kind::Int:
    return SemaValue::ofBool(is("py.int"));
  case Kind::Float:
    return SemaValue::ofBool(is("py.float"));
  case Kind::String:
    return SemaValue::ofBool(is("py.str"));
  case Kind::Tensor:
  case Kind::BlockPtr: // a block pointer is a tl.tensor of pointer type in Triton
    return SemaValue::ofBool(is("tl.tensor"));
  case Kind::TensorDesc: // _maybe_make_tensor_desc: a descriptor argument, or a pointer to make one
    return SemaValue::ofBool(is("tl.tensor_descriptor") || is("tl.tensor_descriptor_base"));
  case Kind::DType:
    // A pointer's dtype is a tl.pointer_type, a subclass of tl.dtype.
    return SemaValue::ofBool(is("tl.dtype") ||
                             (is("tl.pointer_type") && v.dtype.isPointer() && !v.isBlockType()));
  case Kind::Object:
    return SemaValue::ofBool(is(v.name.c_str()));
  case Kind::Tuple:
    return SemaValue::ofBool(is(v.isList ? "py.list" : "py.tuple"));
  case Kind::Module:
    // A module tilec loaded is a module; any other name of a module tilec does not model
    // (torch.cuda, or an attribute of one) could be anything.
    if (v.userModule >= 0)
      return SemaValue::ofBool(false);
    error(args.loc, "isinstance() cannot tell what '" + v.name + "' is: tilec does not model it");
  default:
    error(args.loc, "isinstance() of " + v.describe() + " is not supported yet");
  }
}

std::optional<SemaValue> Specializer::compareHostObjects(ast::CompareOperator op,
                                                         const SemaValue &lhs, const SemaValue &rhs,
                                                         SourceLoc loc) {
  using CO = ast::CompareOperator;
  bool equality = op == CO::Eq || op == CO::Ne;
  if (lhs.isTorchVersion || rhs.isTorchVersion) {
    // torch's TorchVersion compares as packaging's Version with a version string, a tuple of
    // numbers ((2, 5) is "2.5") or a Version; where one side is no valid version, as the
    // strings.
    auto asVersion = [&](const SemaValue &v) -> std::optional<PyVersion> {
      if (isObject(v, kVersionClass))
        return versionOf(v);
      if (v.kind == Kind::String)
        return parseVersion(v.name);
      if (v.kind != Kind::Tuple)
        return std::nullopt;
      std::string text;
      for (const SemaValue &part : v.elems)
        text += (text.empty() ? "" : ".") + pythonStr(part, loc);
      return parseVersion(text);
    };
    std::optional<PyVersion> a = asVersion(lhs), b = asVersion(rhs);
    if (a && b)
      return SemaValue::ofBool(orderingHolds(op, compareVersions(*a, *b)));
  }
  if (isObject(lhs, kVersionClass) && isObject(rhs, kVersionClass)) {
    int c = compareVersions(versionOf(lhs), versionOf(rhs));
    return SemaValue::ofBool(orderingHolds(op, c));
  }
  if (lhs.kind != Kind::Object && rhs.kind != Kind::Object)
    return std::nullopt;
  if (lhs.isTensor() || rhs.isTensor())
    return std::nullopt;
  // Objects of different classes are unequal; ordering them is Python's TypeError.
  if (equality && (lhs.kind != rhs.kind || lhs.name != rhs.name))
    return SemaValue::ofBool(op == CO::Ne);
  if (!equality) {
    auto className = [](const SemaValue &v) {
      if (v.kind == Kind::Object)
        return v.name.substr(v.name.rfind('.') + 1);
      static const std::map<Kind, std::string> names = {
          {Kind::None, "NoneType"}, {Kind::Int, "int"},    {Kind::Float, "float"},
          {Kind::Bool, "bool"},     {Kind::String, "str"}, {Kind::Tuple, "tuple"}};
      auto it = names.find(v.kind);
      return it == names.end() ? std::string("object") : it->second;
    };
    raisePython(kTypeError,
                std::string("'") + ast::spelling(op) + "' not supported between instances of '" +
                    className(lhs) + "' and '" + className(rhs) + "'",
                loc);
  }
  // Triton's constexpr_type(v) == constexpr_type(w) when v == w (core.constexpr_type.__eq__).
  if (lhs.name == kConstexprTypeClass && lhs.elems.size() == 1 && rhs.elems.size() == 1) {
    SemaValue same = compareOp(CO::Eq, lhs.elems[0], rhs.elems[0], loc);
    std::optional<bool> truth = constexprTruth(same);
    if (!truth)
      error(loc, "comparing two " + lhs.name + " objects is not supported yet");
    return SemaValue::ofBool(*truth == (op == CO::Eq));
  }
  error(loc, "comparing two " + lhs.name + " objects is not supported yet");
}

SemaValue Specializer::hostObjectAttribute(const SemaValue &object, const std::string &attr,
                                           SourceLoc loc) {
  auto method = [&](const std::string &qualified) {
    SemaValue m = SemaValue::ofBuiltin(qualified);
    m.elems.push_back(object);
    return m;
  };
  if (std::optional<SemaValue> fileAttribute = textFileAttribute(object, attr, loc))
    return *fileAttribute;
  if (object.kind == Kind::String) {
    static const std::set<std::string> methods = {"strip",   "lstrip",     "rstrip",   "lower",
                                                  "upper",   "startswith", "endswith", "split",
                                                  "replace", "isdigit",    "join",     "format"};
    if (methods.count(attr))
      return method("str." + attr);
    error(loc, "the string method '" + attr + "' is not supported yet");
  }
  if (isObject(object, kTritonBackendClass)) {
    if (attr == "driver")
      return makeObject(kTritonDriverClass, {object.elems[0]});
    error(loc, "a Triton backend's '" + attr + "' is not supported yet (only its driver is)");
  }
  if (isObject(object, kTritonDriverClass)) {
    if (attr == "is_active")
      return method(std::string(kTritonDriverClass) + ".is_active");
    error(loc, "a Triton driver's '" + attr + "' is not supported yet (only is_active() is)");
  }
  if (isObject(object, kTritonConfigClass)) {
    // A config's values and launch options, as the autotuner's prune functions read them.
    if (attr == "kwargs")
      return object.elems[0];
    if (attr == "num_warps")
      return object.elems[1].isNone() ? SemaValue::ofInt(4) : object.elems[1];
    if (attr == "num_stages")
      return object.elems[2].isNone() ? SemaValue::ofInt(3) : object.elems[2];
    if (attr == "maxnreg")
      return object.elems[3];
    if (attr == "all_kwargs")
      return method(std::string(kTritonConfigClass) + ".all_kwargs");
    error(loc, "triton.Config's attribute '" + attr +
                   "' is not supported yet (kwargs, num_warps, num_stages, maxnreg and "
                   "all_kwargs() are)");
  }
  if (isObject(object, kLoggerClass)) {
    static const std::set<std::string> methods = {
        "debug", "info",      "warning", "warn",     "error",      "critical",
        "fatal", "exception", "log",     "setLevel", "addHandler", "removeHandler"};
    if (attr == "name")
      return object.elems[0];
    if (methods.count(attr))
      return method(std::string(kLoggerClass) + "." + attr);
    error(loc, "logging.Logger's attribute '" + attr +
                   "' is not supported yet (its logging "
                   "methods and name are)");
  }
  if (isObject(object, kDictClass)) {
    if (attr == "get" || attr == "items" || attr == "keys" || attr == "values" || attr == "pop")
      return method("dict." + attr);
    error(loc, "the dict method '" + attr + "' is not supported yet");
  }
  if (isObject(object, kTorchDevicePropertiesClass)) {
    int64_t capability = object.elems[0].intValue;
    if (attr == "major")
      return SemaValue::ofInt(capability / 10);
    if (attr == "minor")
      return SemaValue::ofInt(capability % 10);
    // What every GPU of the compute capability has (Megatron-LM's gated delta product kernels
    // pick their block sizes by shared_memory_per_block_optin).
    if (std::optional<int64_t> value = capabilityProperty(capability, attr))
      return SemaValue::ofInt(*value);
    // The rest (name, multi_processor_count, total_memory...) differs between GPUs of one
    // architecture: unknown, an error only where a result depends on it.
    return unknownValue("torch.cuda.get_device_properties(...)." + attr,
                        "it differs between GPUs of one architecture, and tilec compiles ahead "
                        "of time for " +
                            targetArch_ +
                            ", knowing only what its compute capability fixes (major, minor, "
                            "shared_memory_per_block(_optin), shared_memory_per_multiprocessor, "
                            "regs_per_multiprocessor, warp_size, "
                            "max_threads_per_multi_processor)",
                        loc);
  }
  if (isObject(object, kTorchDeviceClass)) {
    if (attr == "type")
      return object.elems[0];
    if (attr == "index")
      return object.elems[1];
    error(loc, "torch.device's attribute '" + attr + "' is not supported yet (type and index are)");
  }
  if (isObject(object, kGpuTargetClass)) {
    if (attr == "backend")
      return object.elems[0];
    if (attr == "arch")
      return object.elems[1];
    if (attr == "warp_size")
      return object.elems[2];
    error(loc, "GPUTarget has no attribute '" + attr + "' (it has backend, arch and warp_size)");
  }
  if (isObject(object, kVersionClass)) {
    PyVersion v = versionOf(object);
    auto ints = [](const std::vector<int64_t> &values) {
      std::vector<SemaValue> elems;
      for (int64_t x : values)
        elems.push_back(SemaValue::ofInt(x));
      return SemaValue::ofTuple(std::move(elems));
    };
    auto optionalInt = [](const std::optional<int64_t> &x) {
      return x ? SemaValue::ofInt(*x) : SemaValue::none();
    };
    auto part = [&](size_t i) { return SemaValue::ofInt(i < v.release.size() ? v.release[i] : 0); };
    if (attr == "release")
      return ints(v.release);
    if (attr == "major" || attr == "minor" || attr == "micro")
      return part(attr == "major" ? 0 : attr == "minor" ? 1 : 2);
    if (attr == "epoch")
      return SemaValue::ofInt(v.epoch);
    if (attr == "pre")
      return v.pre ? SemaValue::ofTuple(
                         {SemaValue::ofString(v.pre->first), SemaValue::ofInt(v.pre->second)})
                   : SemaValue::none();
    if (attr == "post")
      return optionalInt(v.post);
    if (attr == "dev")
      return optionalInt(v.dev);
    if (attr == "local")
      return v.local ? SemaValue::ofString(*v.local) : SemaValue::none();
    if (attr == "public")
      return SemaValue::ofString(v.str(/*withLocal=*/false));
    if (attr == "base_version") {
      PyVersion base;
      base.epoch = v.epoch;
      base.release = v.release;
      return SemaValue::ofString(base.str());
    }
    if (attr == "is_prerelease")
      return SemaValue::ofBool(v.pre || v.dev);
    if (attr == "is_postrelease")
      return SemaValue::ofBool(v.post.has_value());
    if (attr == "is_devrelease")
      return SemaValue::ofBool(v.dev.has_value());
    error(loc, "Version has no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (isObject(object, kMatchClass)) {
    if (attr == "group" || attr == "groups" || attr == "start" || attr == "end" || attr == "span")
      return method(std::string(kMatchClass) + "." + attr);
    if (attr == "string")
      return object.elems[0];
    error(loc, "re.Match has no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (isObject(object, kFinfoClass)) {
    static const std::map<std::string, size_t> fields = {
        {"bits", 0},      {"eps", 1}, {"max", 2}, {"min", 3}, {"tiny", 4}, {"smallest_normal", 4},
        {"resolution", 5}};
    if (auto it = fields.find(attr); it != fields.end())
      return object.elems[it->second];
    if (attr == "dtype")
      return object.elems[6];
    error(loc, "torch.finfo has no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (isObject(object, kIinfoClass)) {
    if (attr == "bits" || attr == "max" || attr == "min")
      return object.elems[attr == "bits" ? 0 : attr == "max" ? 1 : 2];
    if (attr == "dtype")
      return object.elems[3];
    error(loc, "torch.iinfo has no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (isObject(object, kModuleSpecClass)) {
    if (attr == "name")
      return object.elems[0];
    if (attr == "loader")
      return makeObject(kModuleLoaderClass, {object.elems[0]});
    error(loc, "ModuleSpec has no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (isObject(object, kModuleLoaderClass)) {
    if (attr == "exec_module")
      return method(std::string(kModuleLoaderClass) + ".exec_module");
    error(loc, "the module loader has no attribute '" + attr + "' (or it is not supported yet)");
  }
  if (isObject(object, kPatternClass)) {
    if (attr == "match" || attr == "search" || attr == "fullmatch" || attr == "sub" ||
        attr == "findall")
      return method(std::string(kPatternClass) + "." + attr);
    if (attr == "pattern")
      return object.elems[0];
    if (attr == "flags")
      return object.elems[1];
    error(loc, "re.Pattern has no attribute '" + attr + "' (or it is not supported yet)");
  }
  error(loc, object.describe() + " has no attribute '" + attr + "' usable here");
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

namespace {

/// The parts of one regular-expression match: the subject and, per group, its span or None.
SemaValue matchObject(const std::string &subject, const std::smatch &m, size_t offset,
                      const CompiledRegex &compiled) {
  std::vector<SemaValue> spans;
  for (unsigned g = 0; g <= compiled.groups; ++g) {
    if (g >= m.size() || !m[g].matched) {
      spans.push_back(SemaValue::none());
      continue;
    }
    int64_t start = static_cast<int64_t>(offset) + m.position(g);
    spans.push_back(
        SemaValue::ofTuple({SemaValue::ofInt(start), SemaValue::ofInt(start + m.length(g))}));
  }
  std::vector<SemaValue> names;
  for (const auto &[name, group] : compiled.names)
    names.push_back(SemaValue::ofTuple(
        {SemaValue::ofString(name), SemaValue::ofInt(static_cast<int64_t>(group))}));
  return makeObject(kMatchClass, {SemaValue::ofString(subject), SemaValue::ofTuple(spans),
                                  SemaValue::ofTuple(names)});
}

std::string spanText(const SemaValue &match, const SemaValue &span) {
  if (span.isNone())
    return "";
  return match.elems[0].name.substr(
      static_cast<size_t>(span.elems[0].intValue),
      static_cast<size_t>(span.elems[1].intValue - span.elems[0].intValue));
}

} // namespace

SemaValue Specializer::callRegex(const std::string &fn, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string display = "re." + fn;
  // re.compile(p).match(s) is re.match(p, s): the pattern object is the first argument.
  std::vector<std::string> params;
  if (fn == "sub")
    params = {"pattern", "repl", "string", "count", "flags"};
  else if (fn == "compile")
    params = {"pattern", "flags"};
  else if (fn == "escape")
    params = {"pattern"};
  else
    params = {"pattern", "string", "flags"};
  size_t required = fn == "sub" ? 3 : fn == "compile" || fn == "escape" ? 1 : 2;
  std::vector<std::optional<SemaValue>> a = bindCallArgs(*this, display, params, required, args);
  auto text = [&](size_t i, const char *what) -> const std::string & {
    if (a[i]->kind != Kind::String)
      raisePython(kTypeError, std::string(what) + " must be a string, not " + a[i]->describe(),
                  loc);
    if (!isPlainAscii(a[i]->name))
      error(loc, display + " on text outside ASCII (or with the separators \\x1c-\\x1f) is not "
                           "supported yet");
    return a[i]->name;
  };
  if (fn == "escape") {
    // Python 3.7's re.escape: only the characters special in a pattern.
    std::string out;
    for (char c : text(0, "the string")) {
      if (std::string("()[]{}?*+-|^$\\.&~# \t\n\r\v\f").find(c) != std::string::npos)
        out += '\\';
      out += c;
    }
    return SemaValue::ofString(out);
  }
  int64_t flags = 0;
  size_t flagsAt = params.size() - 1;
  if (isGiven(a[flagsAt])) {
    if (a[flagsAt]->kind != Kind::Int)
      error(loc, display + "'s flags must be re.* flags, not " + a[flagsAt]->describe());
    flags = a[flagsAt]->intValue;
  }
  std::string pattern;
  if (isObject(*a[0], kPatternClass)) {
    pattern = a[0]->elems[0].name;
    if (flags)
      raisePython(kValueError, "cannot process flags argument with a compiled pattern", loc);
    flags = a[0]->elems[1].intValue;
  } else {
    pattern = text(0, "the pattern");
  }
  if (flags & ~(kReIgnoreCase | kReMultiline | kReDotAll | kReUnicode | kReVerbose | kReAscii))
    error(loc, display + ": re.LOCALE (for bytes patterns) and unknown flags are not supported");
  if (fn == "compile")
    return makeObject(kPatternClass, {SemaValue::ofString(pattern), SemaValue::ofInt(flags)});

  CompiledRegex compiled;
  std::string ecma;
  if (std::optional<std::string> why = translatePattern(pattern, flags, ecma, compiled))
    error(loc, display + ": " + *why + " in the pattern " + stringRepr(pattern) +
                   " is not supported yet");
  try {
    auto syntax = std::regex::ECMAScript;
    if (flags & kReIgnoreCase)
      syntax |= std::regex::icase;
    if (flags & kReMultiline)
      syntax |= std::regex::multiline;
    compiled.re = std::regex(ecma, syntax);
  } catch (const std::regex_error &e) {
    error(loc, display + ": tilec cannot evaluate the pattern " + stringRepr(pattern) +
                   " yet (std::regex: " + e.what() + ")");
  }
  const std::string &subject = text(fn == "sub" ? 2 : 1, "the string");
  // std::regex matches recursively, a frame per character; version strings and names are short.
  constexpr size_t kMaxSubject = 4096;
  if (subject.size() > kMaxSubject)
    error(loc, display + " on a string of more than " + std::to_string(kMaxSubject) +
                   " characters is not supported");
  // ECMAScript's multiline ^ and $ also break lines at '\r', Python's only at '\n'.
  if ((flags & kReMultiline) && subject.find('\r') != std::string::npos)
    error(loc, display + " with re.MULTILINE on text with '\\r' is not supported yet");

  // One search from `pos`, as Python's scanner: `notEmptyAt` forbids an empty match at `pos` (the
  // one before it was empty there).
  auto searchFrom = [&](size_t pos, bool anchored, bool notEmptyAt, std::smatch &m) {
    auto base = std::regex_constants::match_default;
    if (pos > 0)
      base |= std::regex_constants::match_prev_avail;
    auto begin = subject.cbegin() + static_cast<std::ptrdiff_t>(pos);
    if (notEmptyAt) {
      if (std::regex_search(begin, subject.cend(), m, compiled.re,
                            base | std::regex_constants::match_continuous |
                                std::regex_constants::match_not_null))
        return true;
      if (anchored || pos >= subject.size())
        return false;
      ++pos;
      begin = subject.cbegin() + static_cast<std::ptrdiff_t>(pos);
      base |= std::regex_constants::match_prev_avail;
    }
    if (anchored)
      base |= std::regex_constants::match_continuous;
    return std::regex_search(begin, subject.cend(), m, compiled.re, base);
  };

  std::smatch m;
  if (fn == "match" || fn == "search") {
    if (!searchFrom(0, fn == "match", false, m))
      return SemaValue::none();
    return matchObject(subject, m, 0, compiled);
  }
  if (fn == "fullmatch") {
    if (!std::regex_match(subject, m, compiled.re))
      return SemaValue::none();
    return matchObject(subject, m, 0, compiled);
  }
  if (fn != "sub" && fn != "findall")
    error(loc, display + " is not supported yet");

  // sub and findall scan the string: each match, then on from its end; after an empty match,
  // the next may not be empty at the same place.
  std::string repl;
  int64_t count = 0;
  if (fn == "sub") {
    if (a[1]->kind != Kind::String)
      error(loc, "re.sub with a function as the replacement is not supported yet");
    repl = text(1, "the replacement");
    if (isGiven(a[3])) {
      if (a[3]->kind != Kind::Int)
        raisePython(kTypeError, "count must be an integer, not " + a[3]->describe(), loc);
      count = a[3]->intValue;
      if (count < 0)
        error(loc, "re.sub with a negative count is not supported yet");
    }
  }
  // Python's replacement template: \1 and \g<1> or \g<name> for groups, the usual escapes.
  auto expand = [&](const SemaValue &match) {
    std::string out;
    const SemaValue &spans = match.elems[1];
    auto group = [&](const std::string &ref) {
      unsigned g = 0;
      if (!ref.empty() && std::all_of(ref.begin(), ref.end(), ::isdigit)) {
        g = static_cast<unsigned>(std::stoul(ref));
      } else {
        auto it = std::find_if(compiled.names.begin(), compiled.names.end(),
                               [&](const auto &n) { return n.first == ref; });
        if (it == compiled.names.end())
          raisePython(kIndexError, "unknown group name '" + ref + "'", loc);
        g = it->second;
      }
      if (g > compiled.groups)
        raisePython(kRegexError, "invalid group reference " + ref, loc);
      out += spanText(match, spans.elems[g]);
    };
    for (size_t i = 0; i < repl.size(); ++i) {
      if (repl[i] != '\\' || i + 1 == repl.size()) {
        out += repl[i];
        continue;
      }
      char e = repl[++i];
      if (std::isdigit(static_cast<unsigned char>(e))) {
        std::string ref(1, e);
        if (i + 1 < repl.size() && std::isdigit(static_cast<unsigned char>(repl[i + 1])))
          ref += repl[++i];
        if (ref[0] == '0')
          error(loc, "re.sub: octal escapes in the replacement are not supported yet");
        group(ref);
        continue;
      }
      if (e == 'g') {
        size_t close = repl.find('>', i);
        if (i + 1 >= repl.size() || repl[i + 1] != '<' || close == std::string::npos)
          raisePython(kRegexError, "missing group name", loc);
        group(repl.substr(i + 2, close - i - 2));
        i = close;
        continue;
      }
      static const std::map<char, char> escapes = {{'n', '\n'}, {'t', '\t'}, {'r', '\r'},
                                                   {'f', '\f'}, {'v', '\v'}, {'a', '\a'},
                                                   {'b', '\b'}, {'\\', '\\'}};
      if (auto it = escapes.find(e); it != escapes.end()) {
        out += it->second;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(e)))
        raisePython(kRegexError, std::string("bad escape \\") + e, loc);
      out += '\\';
      out += e;
    }
    return out;
  };

  std::string result;
  std::vector<SemaValue> found;
  size_t pos = 0;
  bool lastWasEmptyAt = false;
  int64_t replaced = 0;
  while (pos <= subject.size() && (fn != "sub" || count <= 0 || replaced < count)) {
    if (!searchFrom(pos, false, lastWasEmptyAt, m))
      break;
    // Positions in `m` are relative to where the search began, which searchFrom may have moved.
    size_t start = static_cast<size_t>(m[0].first - subject.cbegin());
    size_t end = static_cast<size_t>(m[0].second - subject.cbegin());
    SemaValue match = matchObject(subject, m,
                                  static_cast<size_t>(m[0].first - subject.cbegin()) -
                                      static_cast<size_t>(m.position(0)),
                                  compiled);
    if (fn == "sub") {
      result += subject.substr(pos, start - pos) + expand(match);
      ++replaced;
    } else if (compiled.groups == 0) {
      found.push_back(SemaValue::ofString(spanText(match, match.elems[1].elems[0])));
    } else {
      std::vector<SemaValue> groups;
      for (unsigned g = 1; g <= compiled.groups; ++g)
        groups.push_back(SemaValue::ofString(spanText(match, match.elems[1].elems[g])));
      found.push_back(compiled.groups == 1 ? groups[0] : SemaValue::ofTuple(std::move(groups)));
    }
    lastWasEmptyAt = start == end;
    pos = end;
  }
  if (fn == "findall")
    return SemaValue::ofList(std::move(found));
  return SemaValue::ofString(result + (pos <= subject.size() ? subject.substr(pos) : ""));
}

SemaValue Specializer::callStringMethod(const std::string &method, CallArgs &args) {
  SourceLoc loc = args.loc;
  std::string self = args.positional[0].name;
  args.positional.erase(args.positional.begin());
  std::string display = "str." + method;
  // Python's whitespace, case and digits are Unicode's; tilec knows ASCII's (which include the
  // separators \x1c-\x1f among the spaces).
  const char *space = " \t\n\r\v\f\x1c\x1d\x1e\x1f";
  bool ascii = std::all_of(self.begin(), self.end(),
                           [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  bool needsAscii =
      method == "lower" || method == "upper" || method == "isdigit" ||
      ((method == "strip" || method == "lstrip" || method == "rstrip" || method == "split") &&
       (args.positional.empty() || args.positional[0].isNone()) && args.keywords.empty());
  if (needsAscii && !ascii)
    error(loc, display + " on text outside ASCII is not supported yet");
  auto stringArg = [&](const std::optional<SemaValue> &v, const char *what) {
    if (v->kind != Kind::String)
      raisePython(kTypeError, display + "() " + what + " must be a string, not " + v->describe(),
                  loc);
    return v->name;
  };
  if (method == "strip" || method == "lstrip" || method == "rstrip") {
    auto a = bindCallArgs(*this, display, {"chars"}, 0, args);
    std::string chars = isGiven(a[0]) ? stringArg(a[0], "the characters") : space;
    size_t first = method == "rstrip" ? 0 : self.find_first_not_of(chars);
    if (first == std::string::npos)
      return SemaValue::ofString("");
    size_t last = method == "lstrip" ? self.size() - 1 : self.find_last_not_of(chars);
    if (last == std::string::npos || last < first)
      return SemaValue::ofString("");
    return SemaValue::ofString(self.substr(first, last - first + 1));
  }
  if (method == "lower" || method == "upper") {
    bindCallArgs(*this, display, {}, 0, args);
    for (char &c : self)
      c = static_cast<char>(method == "lower" ? std::tolower(static_cast<unsigned char>(c))
                                              : std::toupper(static_cast<unsigned char>(c)));
    return SemaValue::ofString(self);
  }
  if (method == "isdigit") {
    bindCallArgs(*this, display, {}, 0, args);
    return SemaValue::ofBool(!self.empty() && std::all_of(self.begin(), self.end(), ::isdigit));
  }
  if (method == "startswith" || method == "endswith") {
    auto a = bindCallArgs(*this, display, {"prefix"}, 1, args);
    std::vector<SemaValue> options =
        a[0]->kind == Kind::Tuple ? a[0]->elems : std::vector<SemaValue>{*a[0]};
    for (const SemaValue &o : options) {
      std::string affix = stringArg(o, "the prefix");
      bool hit = affix.size() <= self.size() &&
                 (method == "startswith"
                      ? self.compare(0, affix.size(), affix) == 0
                      : self.compare(self.size() - affix.size(), affix.size(), affix) == 0);
      if (hit)
        return SemaValue::ofBool(true);
    }
    return SemaValue::ofBool(false);
  }
  if (method == "replace") {
    auto a = bindCallArgs(*this, display, {"old", "new", "count"}, 2, args);
    std::string from = stringArg(a[0], "old"), to = stringArg(a[1], "new");
    int64_t count = isGiven(a[2]) && a[2]->kind == Kind::Int ? a[2]->intValue : -1;
    if (from.empty())
      error(loc, "str.replace with an empty 'old' is not supported yet");
    std::string out;
    size_t pos = 0;
    for (int64_t n = 0; count < 0 || n < count; ++n) {
      size_t hit = self.find(from, pos);
      if (hit == std::string::npos)
        break;
      out += self.substr(pos, hit - pos) + to;
      pos = hit + from.size();
    }
    return SemaValue::ofString(out + self.substr(pos));
  }
  if (method == "split") {
    auto a = bindCallArgs(*this, display, {"sep", "maxsplit"}, 0, args);
    int64_t maxsplit = isGiven(a[1]) && a[1]->kind == Kind::Int ? a[1]->intValue : -1;
    std::vector<SemaValue> parts;
    if (!isGiven(a[0])) {
      // Runs of whitespace separate, and leading or trailing whitespace gives no empty part.
      size_t pos = self.find_first_not_of(space);
      while (pos != std::string::npos) {
        if (maxsplit >= 0 && static_cast<int64_t>(parts.size()) == maxsplit) {
          size_t last = self.find_last_not_of(space);
          parts.push_back(SemaValue::ofString(self.substr(pos, last - pos + 1)));
          break;
        }
        size_t end = self.find_first_of(space, pos);
        parts.push_back(SemaValue::ofString(self.substr(pos, end - pos)));
        pos = end == std::string::npos ? end : self.find_first_not_of(space, end);
      }
      return SemaValue::ofList(std::move(parts));
    }
    std::string sep = stringArg(a[0], "the separator");
    if (sep.empty())
      raisePython(kValueError, "empty separator", loc);
    size_t pos = 0;
    while (maxsplit < 0 || static_cast<int64_t>(parts.size()) < maxsplit) {
      size_t hit = self.find(sep, pos);
      if (hit == std::string::npos)
        break;
      parts.push_back(SemaValue::ofString(self.substr(pos, hit - pos)));
      pos = hit + sep.size();
    }
    parts.push_back(SemaValue::ofString(self.substr(pos)));
    return SemaValue::ofList(std::move(parts));
  }
  if (method == "format") {
    int autoState = 0;
    int64_t autoNumber = 0;
    return SemaValue::ofString(formatString(self, args, 2, autoState, autoNumber));
  }
  if (method == "join") {
    auto a = bindCallArgs(*this, display, {"iterable"}, 1, args);
    if (a[0]->kind != Kind::Tuple)
      error(loc, "str.join of " + a[0]->describe() + " is not supported yet");
    std::string out;
    for (size_t i = 0; i < a[0]->elems.size(); ++i)
      out += (i ? self : "") + stringArg(a[0]->elems[i], "each item");
    return SemaValue::ofString(out);
  }
  error(loc, "the string method '" + method + "' is not supported yet");
}

std::string Specializer::formatString(const std::string &text, const CallArgs &args, int depth,
                                      int &autoState, int64_t &autoNumber) {
  // After CPython's Objects/stringlib/unicode_format.h: MarkupIterator_next, parse_field,
  // field_name_split and get_field_object, with their messages.
  SourceLoc loc = args.loc;
  auto fail = [&](const std::string &message) { raisePython(kValueError, message, loc); };
  if (depth <= 0)
    fail("Max string recursion exceeded");
  enum { kInit, kAuto, kManual };
  std::string out;
  size_t pos = 0, end = text.size();
  while (pos < end) {
    // Literal text up to a '{' or '}'; a doubled one is literal.
    size_t start = pos;
    char c = 0;
    bool markup = false;
    while (pos < end) {
      c = text[pos++];
      if (c == '{' || c == '}') {
        markup = true;
        break;
      }
    }
    bool atEnd = pos >= end;
    size_t len = pos - start;
    if (markup && c == '}' && (atEnd || text[pos] != '}'))
      fail("Single '}' encountered in format string");
    if (markup && atEnd && c == '{')
      fail("Single '{' encountered in format string");
    if (markup) {
      if (text[pos] == c) {
        ++pos;
        markup = false;
      } else {
        --len;
      }
    }
    out += text.substr(start, len);
    if (!markup)
      continue;
    // parse_field: the field name, up to '}', ':' or '!' (past a '[...]').
    size_t nameStart = pos;
    c = 0;
    while (pos < end) {
      c = text[pos++];
      if (c == '{')
        fail("unexpected '{' in field name");
      if (c == '[') {
        while (pos < end && text[pos] != ']')
          ++pos;
        continue;
      }
      if (c == '}' || c == ':' || c == '!')
        break;
    }
    std::string fieldName = text.substr(nameStart, pos - 1 - nameStart);
    char conversion = 0;
    std::string spec;
    bool specHasFields = false;
    if (c == '!' || c == ':') {
      bool closed = false;
      if (c == '!') {
        if (pos >= end)
          fail("end of string while looking for conversion specifier");
        conversion = text[pos++];
        if (pos < end) {
          c = text[pos++];
          if (c == '}')
            closed = true;
          else if (c != ':')
            fail("expected ':' after conversion specifier");
        }
      }
      if (!closed) {
        size_t specStart = pos;
        int count = 1;
        while (pos < end && count > 0) {
          c = text[pos++];
          if (c == '{') {
            specHasFields = true;
            ++count;
          } else if (c == '}') {
            --count;
          }
        }
        if (count > 0)
          fail("unmatched '{' in format spec");
        spec = text.substr(specStart, pos - 1 - specStart);
      }
    } else if (c != '}') {
      fail("expected '}' before end of string");
    }
    // field_name_split: the first part names a positional (a number, or none for the next
    // one) or keyword argument.
    size_t firstEnd = fieldName.find_first_of(".[");
    std::string first = fieldName.substr(0, firstEnd);
    std::string rest = firstEnd == std::string::npos ? "" : fieldName.substr(firstEnd);
    bool numeric =
        !first.empty() && first.size() < 18 && std::all_of(first.begin(), first.end(), ::isdigit);
    int64_t index = numeric ? std::stoll(first) : -1;
    if (first.empty() || numeric) {
      if (autoState == kInit)
        autoState = first.empty() ? kAuto : kManual;
      if (autoState == kManual && first.empty())
        fail("cannot switch from manual field specification to automatic field numbering");
      if (autoState == kAuto && !first.empty())
        fail("cannot switch from automatic field numbering to manual field specification");
      if (first.empty())
        index = autoNumber++;
    }
    SemaValue object;
    if (index < 0) {
      auto kw = std::find_if(args.keywords.begin(), args.keywords.end(),
                             [&](const auto &k) { return k.first == first; });
      if (kw == args.keywords.end())
        raisePython(*builtinExceptionClasses("KeyError"), stringRepr(first), loc);
      object = kw->second;
    } else {
      if (index >= static_cast<int64_t>(args.positional.size()))
        raisePython(kIndexError,
                    "Replacement index " + std::to_string(index) +
                        " out of range for positional args tuple",
                    loc);
      object = args.positional[static_cast<size_t>(index)];
    }
    // The rest: `.attribute` and `[index]`.
    for (size_t r = 0; r < rest.size();) {
      bool isAttribute = rest[r] == '.';
      if (!isAttribute && rest[r] != '[')
        fail("Only '.' or '[' may follow ']' in format field specifier");
      ++r;
      size_t stop = isAttribute ? rest.find_first_of(".[", r) : rest.find(']', r);
      if (!isAttribute && stop == std::string::npos)
        fail("Missing ']' in format string");
      std::string name = rest.substr(r, stop == std::string::npos ? std::string::npos : stop - r);
      r = stop == std::string::npos ? rest.size() : stop + (isAttribute ? 0 : 1);
      if (!isAttribute && r < rest.size() && rest[r] != '.' && rest[r] != '[')
        fail("Only '.' or '[' may follow ']' in format field specifier");
      if (name.empty())
        fail("Empty attribute in format string");
      if (isAttribute) {
        object = attribute(object, name, loc);
        continue;
      }
      bool digits = name.size() < 18 && std::all_of(name.begin(), name.end(), ::isdigit);
      if (object.kind != Kind::Tuple || !digits)
        error(loc, "str.format: the item '[" + name + "]' of " + object.describe() +
                       " is not supported yet");
      size_t item = static_cast<size_t>(std::stoll(name));
      if (item >= object.elems.size())
        raisePython(kIndexError,
                    std::string(object.isList ? "list" : "tuple") + " index out of range", loc);
      SemaValue element = object.elems[item];
      object = element;
    }
    if (conversion == 'r' || conversion == 'a') {
      std::string repr = pythonRepr(object, loc);
      if (conversion == 'a' &&
          std::any_of(repr.begin(), repr.end(), [](char ch) { return ch & 0x80; }))
        error(loc, "'!a' of text outside ASCII is not supported yet");
      object = SemaValue::ofString(repr);
    } else if (conversion == 's') {
      object = SemaValue::ofString(pythonStr(object, loc));
    } else if (conversion) {
      unsigned char u = static_cast<unsigned char>(conversion);
      if (u > 32 && u < 128) {
        fail(std::string("Unknown conversion specifier ") + conversion);
      }
      error(loc, "str.format: a conversion outside printable ASCII is not supported yet");
    }
    if (specHasFields)
      spec = formatString(spec, args, depth - 1, autoState, autoNumber);
    out += pythonFormat(object, spec, loc);
  }
  return out;
}

SemaValue Specializer::callMatchMethod(const std::string &method, CallArgs &args) {
  SourceLoc loc = args.loc;
  SemaValue match = args.positional[0];
  args.positional.erase(args.positional.begin());
  const SemaValue &spans = match.elems[1];
  // A group by number or by name, as Python's Match methods take it.
  auto groupIndex = [&](const SemaValue &g) -> size_t {
    if (g.kind == Kind::Int && g.intValue >= 0 &&
        static_cast<size_t>(g.intValue) < spans.elems.size())
      return static_cast<size_t>(g.intValue);
    if (g.kind == Kind::String)
      for (const SemaValue &named : match.elems[2].elems)
        if (named.elems[0].name == g.name)
          return static_cast<size_t>(named.elems[1].intValue);
    raisePython(kIndexError, "no such group", loc);
  };
  auto groupValue = [&](size_t g) {
    return spans.elems[g].isNone() ? SemaValue::none()
                                   : SemaValue::ofString(spanText(match, spans.elems[g]));
  };
  if (method == "group") {
    if (!args.keywords.empty())
      raisePython(kTypeError, "group() takes no keyword arguments", loc);
    if (args.positional.empty())
      return groupValue(0);
    if (args.positional.size() == 1)
      return groupValue(groupIndex(args.positional[0]));
    std::vector<SemaValue> values;
    for (const SemaValue &g : args.positional)
      values.push_back(groupValue(groupIndex(g)));
    return SemaValue::ofTuple(std::move(values));
  }
  if (method == "groups") {
    auto a = bindCallArgs(*this, "re.Match.groups", {"default"}, 0, args);
    std::vector<SemaValue> values;
    for (size_t g = 1; g < spans.elems.size(); ++g)
      values.push_back(spans.elems[g].isNone() && a[0] ? *a[0] : groupValue(g));
    return SemaValue::ofTuple(std::move(values));
  }
  auto a = bindCallArgs(*this, "re.Match." + method, {"group"}, 0, args);
  const SemaValue &span = spans.elems[a[0] ? groupIndex(*a[0]) : 0];
  SemaValue start = span.isNone() ? SemaValue::ofInt(-1) : span.elems[0];
  SemaValue end = span.isNone() ? SemaValue::ofInt(-1) : span.elems[1];
  if (method == "start")
    return start;
  if (method == "end")
    return end;
  return SemaValue::ofTuple({start, end});
}

SemaValue Specializer::importlibVersion(CallArgs &args) {
  auto a = bindCallArgs(*this, "importlib.metadata.version", {"distribution_name"}, 1, args);
  if (a[0]->kind != Kind::String)
    error(args.loc, "importlib.metadata.version needs a distribution name as a string, not " +
                        a[0]->describe());
  const std::string &name = a[0]->name;
  // Distribution names compare as PEP 503 normalises them: case and runs of -_. do not matter.
  auto normalise = [](const std::string &s) {
    std::string out;
    for (char c : s) {
      bool separator = c == '-' || c == '_' || c == '.';
      if (separator && !out.empty() && out.back() == '-')
        continue;
      out += separator ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
  };
  std::string dist = normalise(name);
  if (dist == "triton")
    return SemaValue::ofString(kTritonVersion);
  if (dist == "torch") // --torch-version, a plain string here
    return SemaValue::ofString(torch_.version);
  // A package whose modules tilec reads, or one it takes as installed besides the standard
  // library (which has no distributions), has a version that only the host knows.
  bool visible = dist == "numpy" || dist == "packaging";
  if (graph_)
    for (const SourceModule &m : graph_->modules)
      visible |= normalise(m.name.substr(0, m.name.find('.'))) == dist;
  if (visible)
    error(args.loc, "tilec cannot know the version of '" + name + "'; it only knows triton's (" +
                        kTritonVersion + ")");
  raisePython(kPackageNotFound, "No package metadata was found for " + name, args.loc);
}

SemaValue Specializer::findSpec(CallArgs &args) {
  auto a = bindCallArgs(*this, "importlib.util.find_spec", {"name", "package"}, 1, args);
  if (a[0]->kind != Kind::String)
    error(args.loc,
          "importlib.util.find_spec needs a module name as a string, not " + a[0]->describe());
  const std::string &name = a[0]->name;
  if (name.empty() || name[0] == '.')
    error(args.loc, "importlib.util.find_spec of a relative name is not supported yet");
  std::string root = name.substr(0, name.find('.'));
  bool found = root == "triton" || isAlwaysInstalled(root) || (graph_ && graph_->findsModule(name));
  if (!found)
    return SemaValue::none();
  return makeObject(kModuleSpecClass, {SemaValue::ofString(name)});
}

SemaValue Specializer::moduleFromSpec(CallArgs &args) {
  auto a = bindCallArgs(*this, "importlib.util.module_from_spec", {"spec"}, 1, args);
  if (!isObject(*a[0], kModuleSpecClass))
    error(args.loc, "importlib.util.module_from_spec needs a spec from importlib.util.find_spec, "
                    "not " +
                        a[0]->describe());
  const std::string &name = a[0]->elems[0].name;
  // A file tilec loaded for an import is that module; triton's and the host libraries' modules
  // are the ones tilec models (find_spec found nothing else).
  for (size_t m = 0; graph_ && m < graph_->modules.size(); ++m)
    if (graph_->modules[m].name == name && !graph_->modules[m].path.empty())
      return SemaValue::ofUserModule(name, static_cast<int>(m));
  std::string root = name.substr(0, name.find('.'));
  if (root == "triton" || isAlwaysInstalled(root))
    return SemaValue::ofModule(name);
  error(args.loc, "importlib.util.module_from_spec of '" + name +
                      "', a file no import of the kernel's modules loads, is not supported yet");
}

SemaValue Specializer::callGetattr(CallArgs &args, bool hasattr) {
  std::string fn = hasattr ? "hasattr" : "getattr";
  size_t most = hasattr ? 2 : 3;
  if (!args.keywords.empty() || args.positional.size() < 2 || args.positional.size() > most)
    error(args.loc, fn + "() takes " + (hasattr ? "two arguments" : "two or three arguments") +
                        ": an object and an attribute name" + (hasattr ? "" : ", and a default"));
  const SemaValue &object = args.positional[0];
  const SemaValue &attr = args.positional[1];
  if (attr.kind != Kind::String)
    raisePython(kTypeError, "attribute name must be string, not " + attr.describe(), args.loc);
  const bool pythonClass =
      object.kind == Kind::Builtin && object.function && object.name.rfind(kPythonClass, 0) == 0;
  if (isPythonObject(object) || pythonClass) {
    // An object of a module-level Python class, or the class: Python looks the attribute up
    // (its class's __getattr__ included) and catches the AttributeError that raises, giving
    // the default or False; any other exception goes through.
    ++hostCallDepth_;
    try {
      SemaValue found = attribute(object, attr.name, args.loc);
      --hostCallDepth_;
      return hasattr ? SemaValue::ofBool(true) : found;
    } catch (const HostException &e) {
      --hostCallDepth_;
      const bool attributeError =
          std::find(e.classes.begin(), e.classes.end(), "AttributeError") != e.classes.end();
      if (attributeError && hasattr)
        return SemaValue::ofBool(false);
      if (attributeError && args.positional.size() == 3)
        return args.positional[2];
      raisePython(e.classes, e.message, e.loc);
    } catch (...) {
      --hostCallDepth_;
      throw;
    }
  }
  // Whether it has the attribute, where tilec knows: the names of a file it loaded, the parts of
  // torch it models.
  std::optional<bool> has;
  if (object.kind == Kind::Module && object.userModule >= 0) {
    size_t index = static_cast<size_t>(object.userModule);
    ensureCollected(index);
    const ModuleState &state = modules_[index];
    has = state.globals.count(attr.name) || state.pending.count(attr.name) ||
          state.conditional.count(attr.name) || state.imported.count(attr.name) ||
          graph_->modules[index].submodules.count(attr.name);
  } else if (object.kind == Kind::Module && object.name == "torch.version" &&
             (attr.name == "__version__" || attr.name == "cuda" || attr.name == "hip" ||
              attr.name == "debug" || attr.name == "git_version")) {
    // What torch/version.py defines in every build (fbcode's has no git_version).
    has = true;
  } else if (object.kind == Kind::Module && object.name == "torch" &&
             (attr.name == "cuda" || attr.name == "version")) {
    has = true;
  } else if (object.kind == Kind::Module && object.name == "triton") {
    // Triton 3.6's triton/__init__.py binds a fixed set of names: its __all__, its version and
    // the submodules its imports load. Projects test for newer API this way
    // (`if hasattr(triton, "constexpr_function"):` guards PyTorch's test helpers).
    static const std::set<std::string> names = {"AsyncCompileMode",
                                                "autotune",
                                                "cdiv",
                                                "CompilationError",
                                                "compile",
                                                "Config",
                                                "constexpr_function",
                                                "FutureKernel",
                                                "heuristics",
                                                "InterpreterError",
                                                "jit",
                                                "JITFunction",
                                                "KernelInterface",
                                                "language",
                                                "MockTensor",
                                                "must_use_result",
                                                "next_power_of_2",
                                                "OutOfResources",
                                                "reinterpret",
                                                "runtime",
                                                "set_allocator",
                                                "TensorWrapper",
                                                "TritonError",
                                                "testing",
                                                "tools",
                                                "__version__",
                                                "compiler",
                                                "errors",
                                                "backends",
                                                "knobs"};
    has = names.count(attr.name) > 0;
  } else if (object.kind == Kind::Module) {
    // The language as tilec implements it: a project that tests for a newer function
    // (hasattr(tl, "gather")) takes the path its tilec can compile.
    has = tritonLanguageHas(object.name, attr.name);
  } else {
    has = valueHasAttribute(object, attr.name);
  }
  if (hasattr) {
    if (!has)
      error(args.loc, "hasattr(): tilec cannot know whether " + object.describe() + " has '" +
                          attr.name + "'");
    return SemaValue::ofBool(*has);
  }
  if (has && !*has) {
    if (args.positional.size() == 3)
      return args.positional[2];
    raisePython(kAttributeError, object.describe() + " has no attribute " + stringRepr(attr.name),
                args.loc);
  }
  // Otherwise as `object.attr`: an attribute of a module tilec does not model is taken to exist,
  // as everywhere else, and is an error where it is used.
  return attribute(object, attr.name, args.loc);
}

SemaValue Specializer::callTargetInfo(const std::string &fn, CallArgs &args) {
  // Triton 3.6's triton/language/target_info.py: constexpr functions of the current target,
  // which is the CUDA GPU of --arch here.
  const int64_t capability = gpu::smVersion(targetArch_);
  std::string qualified = "triton.language.target_info." + fn;
  if (fn == "is_cuda" || fn.rfind("is_hip", 0) == 0) {
    bindCallArgs(*this, qualified, {}, 0, args);
    return SemaValue::ofBool(fn == "is_cuda");
  }
  if (fn == "cuda_capability_geq") {
    auto a = bindCallArgs(*this, qualified, {"major", "minor"}, 1, args);
    int64_t major = constantInt(*a[0], args.loc, "major");
    int64_t minor = a[1] ? constantInt(*a[1], args.loc, "minor") : 0;
    return SemaValue::ofBool(capability >= major * 10 + minor);
  }
  if (fn == "current_target") {
    bindCallArgs(*this, qualified, {}, 0, args);
    return makeObject(kGpuTargetClass, {SemaValue::ofString("cuda"), SemaValue::ofInt(capability),
                                        SemaValue::ofInt(32)});
  }
  error(args.loc, "triton.language.target_info." + fn + " is not supported yet");
}

SemaValue Specializer::torchVersion() const {
  SemaValue version = SemaValue::ofString(torch_.version);
  version.isTorchVersion = true;
  return version;
}

SemaValue Specializer::deviceQuery(const std::string &qualified, CallArgs &args) {
  // As Triton's GPUTarget.arch writes the compute capability: 90 for sm_90a.
  const int64_t capability = gpu::smVersion(targetArch_);
  if (qualified == "triton.runtime.driver.active.get_current_target") {
    bindCallArgs(*this, qualified, {}, 0, args);
    return makeObject(kGpuTargetClass, {SemaValue::ofString("cuda"), SemaValue::ofInt(capability),
                                        SemaValue::ofInt(32)});
  }
  // The device Triton's driver launches on: torch.device("cuda", i) with i the process's current
  // device (Triton's tutorials bind DEVICE to it). Its type is the backend's, known ahead of time;
  // its index is unknown, as torch.cuda.current_device() is.
  if (qualified == "triton.runtime.driver.active.get_active_torch_device") {
    bindCallArgs(*this, qualified, {}, 0, args);
    return makeObject(kTorchDeviceClass,
                      {SemaValue::ofString("cuda"),
                       unknownValue(qualified + "().index",
                                    "the current device's index differs between the processes "
                                    "of a job, and tilec compiles ahead of time",
                                    args.loc)});
  }
  if (qualified == "triton.runtime.driver.active.utils.get_device_properties") {
    bindCallArgs(*this, qualified, {"device"}, 1, args);
    return makeObject(kDevicePropertiesClass, {SemaValue::ofInt(capability)});
  }
  if (qualified == "torch.cuda.get_device_capability") {
    bindCallArgs(*this, qualified, {"device"}, 0, args);
    return SemaValue::ofTuple(
        {SemaValue::ofInt(capability / 10), SemaValue::ofInt(capability % 10)});
  }
  if (qualified == "torch.cuda.get_device_properties") {
    bindCallArgs(*this, qualified, {"device"}, 0, args);
    return makeObject(kTorchDevicePropertiesClass, {SemaValue::ofInt(capability)});
  }
  // The GPU's name differs between GPUs of one architecture ("NVIDIA H100 80GB HBM3", "NVIDIA
  // H200", "NVIDIA GH200 480GB"): unknown, an error only where a result depends on it.
  if (qualified == "torch.cuda.get_device_name") {
    bindCallArgs(*this, qualified, {"device"}, 0, args);
    return unknownValue(qualified + "()",
                        "the GPU's name differs between GPUs of one architecture, and tilec "
                        "compiles for " +
                            targetArch_ + " ahead of time",
                        args.loc);
  }
  // Questions about the process's devices, not the GPU's architecture: unknown values, an error
  // only where a kernel depends on the answer.
  //  - The current device's index differs between the processes of one job (each rank picks its
  //    GPU). It is mostly passed on to get_device_properties(i) or get_device_capability(i)
  //    (flash-attention's layer norm reads the warp size so), whose answers do not depend on it:
  //    every GPU tilec compiles for is of --arch.
  //  - The number of GPUs differs between machines (host code sizes per-device tables from it).
  static const std::map<std::string, std::string> kProcessDeviceQueries = {
      {"torch.cuda.current_device",
       "the current device's index differs between the processes of a job"},
      {"torch.cuda.device_count", "the number of GPUs differs between machines"},
  };
  if (auto query = kProcessDeviceQueries.find(qualified); query != kProcessDeviceQueries.end()) {
    bindCallArgs(*this, qualified, {}, 0, args);
    return unknownValue(qualified + "()", query->second + ", and tilec compiles ahead of time",
                        args.loc);
  }
  // The rest differs between GPUs of one architecture, or between machines.
  error(args.loc, "'" + qualified + "()' asks about the GPU that will run the kernel; tilec " +
                      "compiles ahead of time for " + targetArch_ +
                      " and knows only its compute capability (torch.cuda.get_device_capability(), "
                      "triton.runtime.driver.active.get_current_target())");
}

/// Whether two dict keys are the same key: strings, numbers and bools as Python compares them
/// (1 == 1.0 == True), None.
bool sameKey(const SemaValue &a, const SemaValue &b) {
  if (a.kind == Kind::String || b.kind == Kind::String)
    return a.kind == b.kind && a.name == b.name;
  if (a.isNone() || b.isNone())
    return a.isNone() && b.isNone();
  auto number = [](const SemaValue &v) -> std::optional<double> {
    if (v.kind == Kind::Int && !v.intIsWide)
      return static_cast<double>(v.intValue);
    if (v.kind == Kind::Bool)
      return v.boolValue ? 1.0 : 0.0;
    if (v.kind == Kind::Float)
      return v.floatValue;
    return std::nullopt;
  };
  std::optional<double> x = number(a), y = number(b);
  return x && y && *x == *y;
}

SemaValue makeDict() {
  SemaValue dict;
  dict.kind = Kind::Object;
  dict.name = kDictClass;
  dict.elems = {SemaValue::ofTuple({}), SemaValue::ofTuple({})};
  dict.objectId = SemaValue::newObjectId();
  return dict;
}

SemaValue Specializer::makeSet(const char *cls, const std::vector<SemaValue> &elements,
                               SourceLoc loc) {
  std::vector<SemaValue> unique;
  for (const SemaValue &element : elements) {
    if (element.kind == Kind::Tuple && element.isList)
      raisePython(kTypeError, "unhashable type: 'list'", loc);
    if (isObject(element, kDictClass) || isObject(element, kSetClass))
      raisePython(kTypeError, "unhashable type: '" + element.name + "'", loc);
    bool seen = std::any_of(unique.begin(), unique.end(), [&](const SemaValue &u) {
      return constexprTruth(compareOp(ast::CompareOperator::Eq, u, element, loc)).value_or(false);
    });
    if (!seen)
      unique.push_back(element);
  }
  return makeObject(cls, {SemaValue::ofList(std::move(unique))});
}

void dictInsert(SemaValue &dict, const SemaValue &key, const SemaValue &value) {
  std::vector<SemaValue> &keys = dict.elems[0].elems;
  for (size_t i = 0; i < keys.size(); ++i)
    if (sameKey(keys[i], key)) {
      dict.elems[1].elems[i] = value;
      return;
    }
  keys.push_back(key);
  dict.elems[1].elems.push_back(value);
}

/// The value of `key` in a dict object, or nullopt.
std::optional<SemaValue> dictLookup(const SemaValue &dict, const SemaValue &key) {
  const std::vector<SemaValue> &keys = dict.elems[0].elems;
  // The last entry wins, as in a display that repeats a key.
  for (size_t i = keys.size(); i-- > 0;)
    if (sameKey(keys[i], key))
      return dict.elems[1].elems[i];
  return std::nullopt;
}

SemaValue Specializer::devicePropertiesItem(const SemaValue &properties, const SemaValue &key,
                                            SourceLoc loc) {
  if (isObject(properties, kDictClass)) {
    if (std::optional<SemaValue> value = dictLookup(properties, key))
      return *value;
    raisePython(kKeyError, pythonRepr(key, loc), loc);
  }
  if (!isObject(properties, kDevicePropertiesClass) || key.kind != Kind::String)
    error(loc, "cannot index " + properties.describe() + " with " + key.describe());
  int64_t capability = properties.elems[0].intValue;
  // What every GPU of a compute capability has (the CUDA programming guide's table): shared
  // memory a block may opt into, registers, the warp size.
  if (key.name == "max_shared_mem")
    return SemaValue::ofInt(*capabilityProperty(capability, "shared_memory_per_block_optin"));
  if (key.name == "max_num_regs")
    return SemaValue::ofInt(65536);
  if (key.name == "warpSize")
    return SemaValue::ofInt(32);
  if (key.name == "multiprocessor_count" || key.name == "sm_clock_rate" ||
      key.name == "mem_clock_rate" || key.name == "mem_bus_width")
    return unknownValue("the device property '" + key.name + "'",
                        "it differs between GPUs of one architecture, and tilec compiles ahead "
                        "of time for " +
                            targetArch_,
                        loc);
  raisePython(kKeyError, stringRepr(key.name), loc);
}

/// posixpath.normpath: collapses `.`, `..` and repeated slashes as Python does (a leading `//`
/// stays, `..` above the root is dropped, above a relative start kept; "" is ".").
static std::string normPath(const std::string &path) {
  if (path.empty())
    return ".";
  size_t leading = path.find_first_not_of('/');
  if (leading == std::string::npos)
    leading = path.size();
  // POSIX keeps exactly two leading slashes; three or more are one.
  std::string root = leading == 0 ? "" : leading == 2 ? "//" : "/";
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string::npos)
      end = path.size();
    std::string part = path.substr(pos, end - pos);
    pos = end + 1;
    if (part.empty() || part == ".")
      continue;
    if (part == ".." && !parts.empty() && parts.back() != "..") {
      parts.pop_back();
      continue;
    }
    if (part == ".." && !root.empty())
      continue;
    parts.push_back(part);
  }
  std::string result = root;
  for (size_t i = 0; i < parts.size(); ++i)
    result += (i ? "/" : "") + parts[i];
  return result.empty() ? "." : result;
}

namespace {

/// Adds the modules that the import statements of `stmts` load when Python runs them: those
/// of the module's top level and of the blocks it runs (if, try, with, class bodies), not those
/// of function bodies, which run only when the function is called. Relative imports name
/// modules of the file's own package, which `from . import x` loads under names tilec does
/// not spell out; they are left out.
void collectImportedModules(const ast::StmtList &stmts, std::set<std::string> &out) {
  auto addWithParents = [&](const std::string &dotted) {
    if (dotted.empty() || dotted[0] == '.')
      return;
    for (size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', dot + 1))
      out.insert(dotted.substr(0, dot));
    out.insert(dotted);
  };
  for (const ast::StmtPtr &stmt : stmts) {
    switch (stmt->kind) {
    case ast::StmtKind::FunctionDef:
      break;
    case ast::StmtKind::Import:
      for (const ast::ImportAlias &alias : stmt->names)
        addWithParents(alias.name);
      break;
    case ast::StmtKind::ImportFrom:
      addWithParents(stmt->module);
      break;
    default:
      collectImportedModules(stmt->body, out);
      collectImportedModules(stmt->orelse, out);
      for (const ast::ExceptHandler &handler : stmt->handlers)
        collectImportedModules(handler.body, out);
      collectImportedModules(stmt->finalbody, out);
      break;
    }
  }
}

} // namespace

bool Specializer::inSysModules(const std::string &dotted) const {
  // sys.modules holds the modules the process has imported. Of the host that runs the kernels,
  // tilec knows the files it loaded and what they import; a module no file imports (a test
  // harness's `absl.testing` or `pytest`, which only a test run loads) is not there.
  if (dotted == "sys" || dotted == "builtins")
    return true;
  std::set<std::string> imported;
  for (const ModuleState &state : modules_)
    if (state.ast)
      collectImportedModules(state.ast->body, imported);
  // The files it loaded are modules of the process too, under the names they were imported by
  // (a relative import's among them).
  if (graph_)
    for (const SourceModule &loaded : graph_->modules)
      imported.insert(loaded.name);
  return imported.count(dotted) != 0;
}

std::optional<SemaValue> Specializer::callOsPath(const std::string &fn, CallArgs &args) {
  // Python's posixpath, on the host that compiles: the paths are those of tilec's files
  // (`os.path.dirname(os.path.abspath(__file__))` to find a config next to the kernel).
  std::string display = "os.path." + fn;
  auto text = [&](const SemaValue &v) -> const std::string & {
    if (v.kind != Kind::String)
      raisePython(kTypeError,
                  display + "() expected str, bytes or os.PathLike object, not " + v.describe(),
                  args.loc);
    return v.name;
  };
  if (fn == "join") {
    if (!args.keywords.empty())
      raisePython(kTypeError, "join() takes no keyword arguments", args.loc);
    if (args.positional.empty())
      raisePython(kTypeError, "join() missing 1 required positional argument: 'a'", args.loc);
    std::string path = text(args.positional[0]);
    for (size_t i = 1; i < args.positional.size(); ++i) {
      const std::string &part = text(args.positional[i]);
      if (!part.empty() && part[0] == '/')
        path = part;
      else if (path.empty() || path.back() == '/')
        path += part;
      else
        path += "/" + part;
    }
    return SemaValue::ofString(path);
  }
  if (fn == "splitext") {
    auto a = bindCallArgs(*this, display, {"p"}, 1, args);
    const std::string &path = text(*a[0]);
    // The extension starts at the last dot of the last component, unless only dots precede it.
    size_t slash = path.rfind('/');
    size_t start = slash == std::string::npos ? 0 : slash + 1;
    size_t dot = path.rfind('.');
    if (dot != std::string::npos && dot > start && path.find_first_not_of('.', start) < dot)
      return SemaValue::ofTuple(
          {SemaValue::ofString(path.substr(0, dot)), SemaValue::ofString(path.substr(dot))});
    return SemaValue::ofTuple({SemaValue::ofString(path), SemaValue::ofString("")});
  }
  static const std::set<std::string> oneArgument = {"dirname",  "basename", "abspath",
                                                    "normpath", "realpath", "exists",
                                                    "isfile",   "isdir",    "isabs"};
  if (!oneArgument.count(fn))
    return std::nullopt;
  auto a = bindCallArgs(*this, display, {fn == "realpath" ? "filename" : "p"}, 1, args);
  const std::string &path = text(*a[0]);
  size_t cut = path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1;
  if (fn == "dirname") {
    std::string head = path.substr(0, cut);
    // Trailing slashes go, unless the head is only slashes (the root).
    if (head.find_first_not_of('/') != std::string::npos)
      head.erase(head.find_last_not_of('/') + 1);
    return SemaValue::ofString(head);
  }
  if (fn == "basename")
    return SemaValue::ofString(path.substr(cut));
  if (fn == "isabs")
    return SemaValue::ofBool(!path.empty() && path[0] == '/');
  if (fn == "normpath")
    return SemaValue::ofString(normPath(path));
  std::error_code ignored;
  if (fn == "abspath" || fn == "realpath") {
    std::string absolute = !path.empty() && path[0] == '/'
                               ? path
                               : std::filesystem::current_path().string() + "/" + path;
    if (fn == "abspath")
      return SemaValue::ofString(normPath(absolute));
    // realpath resolves the links of what exists and keeps the rest as written.
    return SemaValue::ofString(
        normPath(std::filesystem::weakly_canonical(normPath(absolute), ignored).string()));
  }
  if (fn == "exists")
    return SemaValue::ofBool(std::filesystem::exists(path, ignored));
  if (fn == "isfile")
    return SemaValue::ofBool(std::filesystem::is_regular_file(path, ignored));
  return SemaValue::ofBool(std::filesystem::is_directory(path, ignored));
}

SemaValue Specializer::callMath(const std::string &fn, CallArgs &args) {
  std::string display = "math." + fn;
  if (!args.keywords.empty())
    raisePython(kTypeError, display + "() takes no keyword arguments", args.loc);
  auto number = [&](const SemaValue &v) -> double {
    if (!v.isConstexprNumber())
      raisePython(kTypeError, "must be real number, not " + v.describe(), args.loc);
    return v.numberAsFloat();
  };
  auto integer = [&](const SemaValue &v) -> int64_t {
    if (v.kind != Kind::Int && v.kind != Kind::Bool)
      raisePython(kTypeError, "'" + v.describe() + "' object cannot be interpreted as an integer",
                  args.loc);
    return v.numberAsInt();
  };
  auto arity = [&](size_t n) {
    if (args.positional.size() != n)
      raisePython(kTypeError,
                  display + "() takes exactly " + std::to_string(n) + " argument" +
                      (n == 1 ? "" : "s") + " (" + std::to_string(args.positional.size()) +
                      " given)",
                  args.loc);
  };
  auto domain = [&](bool ok) {
    if (!ok)
      raisePython(kValueError, "math domain error", args.loc);
  };
  // Functions of one float, with their domains.
  using Unary = double (*)(double);
  static const std::map<std::string, std::pair<Unary, bool (*)(double)>> unary = {
      {"sqrt", {[](double x) { return std::sqrt(x); }, [](double x) { return x >= 0; }}},
      {"exp", {[](double x) { return std::exp(x); }, nullptr}},
      {"exp2", {[](double x) { return std::exp2(x); }, nullptr}},
      {"expm1", {[](double x) { return std::expm1(x); }, nullptr}},
      {"log2", {[](double x) { return std::log2(x); }, [](double x) { return x > 0; }}},
      {"log10", {[](double x) { return std::log10(x); }, [](double x) { return x > 0; }}},
      {"log1p", {[](double x) { return std::log1p(x); }, [](double x) { return x > -1; }}},
      {"fabs", {[](double x) { return std::fabs(x); }, nullptr}},
      {"sin", {[](double x) { return std::sin(x); }, nullptr}},
      {"cos", {[](double x) { return std::cos(x); }, nullptr}},
      {"tan", {[](double x) { return std::tan(x); }, nullptr}},
      {"atan", {[](double x) { return std::atan(x); }, nullptr}},
      {"tanh", {[](double x) { return std::tanh(x); }, nullptr}},
      {"erf", {[](double x) { return std::erf(x); }, nullptr}},
      {"erfc", {[](double x) { return std::erfc(x); }, nullptr}},
      {"degrees", {[](double x) { return x * 180.0 / M_PI; }, nullptr}},
      {"radians", {[](double x) { return x * M_PI / 180.0; }, nullptr}}};
  if (auto it = unary.find(fn); it != unary.end()) {
    arity(1);
    double x = number(args.positional[0]);
    domain(!it->second.second || std::isnan(x) || it->second.second(x));
    return SemaValue::ofFloat(it->second.first(x));
  }
  if (fn == "log") { // log(x[, base])
    if (args.positional.empty() || args.positional.size() > 2)
      raisePython(kTypeError, "log expected 1 or 2 arguments", args.loc);
    double x = number(args.positional[0]);
    domain(x > 0 || std::isnan(x));
    if (args.positional.size() == 1)
      return SemaValue::ofFloat(std::log(x));
    double base = number(args.positional[1]);
    domain(base > 0 && base != 1);
    return SemaValue::ofFloat(std::log(x) / std::log(base));
  }
  if (fn == "pow" || fn == "atan2" || fn == "copysign" || fn == "fmod" || fn == "hypot") {
    arity(2);
    double x = number(args.positional[0]), y = number(args.positional[1]);
    if (fn == "fmod")
      domain(y != 0 && !std::isinf(x));
    return SemaValue::ofFloat(fn == "pow"        ? std::pow(x, y)
                              : fn == "atan2"    ? std::atan2(x, y)
                              : fn == "copysign" ? std::copysign(x, y)
                              : fn == "fmod"     ? std::fmod(x, y)
                                                 : std::hypot(x, y));
  }
  if (fn == "ceil" || fn == "floor" || fn == "trunc") {
    arity(1);
    const SemaValue &v = args.positional[0];
    if (v.kind == Kind::Int || v.kind == Kind::Bool)
      return SemaValue::ofInt(integer(v));
    double x = number(v);
    double r = fn == "ceil" ? std::ceil(x) : fn == "floor" ? std::floor(x) : std::trunc(x);
    if (std::isnan(r) || std::isinf(r))
      raisePython(std::isnan(r) ? kValueError : *builtinExceptionClasses("OverflowError"),
                  std::string("cannot convert float ") + (std::isnan(r) ? "NaN" : "infinity") +
                      " to integer",
                  args.loc);
    if (std::fabs(r) >= 9.2e18)
      error(args.loc, display + "() of " + floatRepr(x) + " overflows 64-bit integers");
    return SemaValue::ofInt(static_cast<int64_t>(r));
  }
  if (fn == "isnan" || fn == "isinf" || fn == "isfinite") {
    arity(1);
    double x = number(args.positional[0]);
    return SemaValue::ofBool(fn == "isnan"   ? std::isnan(x)
                             : fn == "isinf" ? std::isinf(x)
                                             : std::isfinite(x));
  }
  if (fn == "isqrt") {
    arity(1);
    int64_t n = integer(args.positional[0]);
    if (n < 0)
      raisePython(kValueError, "isqrt() argument must be nonnegative", args.loc);
    int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
    while (r > 0 && static_cast<__int128>(r) * r > n)
      --r;
    while (static_cast<__int128>(r + 1) * (r + 1) <= n)
      ++r;
    return SemaValue::ofInt(r);
  }
  if (fn == "gcd" || fn == "lcm") {
    int64_t result = fn == "gcd" ? 0 : 1;
    for (const SemaValue &v : args.positional) {
      int64_t x = integer(v);
      if (fn == "gcd") {
        result = std::gcd(result, x);
        continue;
      }
      if (x == 0 || result == 0) {
        result = 0;
        continue;
      }
      __int128 l = static_cast<__int128>(std::abs(result)) / std::gcd(result, x) * std::abs(x);
      if (l > std::numeric_limits<int64_t>::max())
        error(args.loc, "math.lcm overflows 64-bit integers");
      result = static_cast<int64_t>(l);
    }
    return SemaValue::ofInt(result);
  }
  if (fn == "factorial") {
    arity(1);
    int64_t n = integer(args.positional[0]);
    if (n < 0)
      raisePython(kValueError, "factorial() not defined for negative values", args.loc);
    if (n > 20)
      error(args.loc, "math.factorial(" + std::to_string(n) + ") overflows 64-bit integers");
    int64_t r = 1;
    for (int64_t i = 2; i <= n; ++i)
      r *= i;
    return SemaValue::ofInt(r);
  }
  error(args.loc, "math." + fn + " is not supported yet");
}

/// torch.finfo(dtype) / torch.iinfo(dtype): the limits of a torch dtype, as PyTorch gives them.
SemaValue Specializer::torchTypeInfo(bool floating, CallArgs &args) {
  std::string display = floating ? "torch.finfo" : "torch.iinfo";
  auto a = bindCallArgs(*this, display, {"type"}, floating ? 0 : 1, args);
  std::string name = "float32"; // torch.finfo() is the default dtype's
  if (a[0]) {
    const SemaValue &t = *a[0];
    if (t.kind == Kind::Module && t.name.rfind("torch.", 0) == 0)
      name = t.name.substr(6);
    else
      raisePython(kTypeError,
                  display + "() argument 'type' must be torch.dtype, not " + t.describe(),
                  args.loc);
  }
  static const std::map<std::string, std::string> aliases = {
      {"float", "float32"}, {"half", "float16"}, {"double", "float64"}, {"int", "int32"},
      {"long", "int64"},    {"short", "int16"},  {"bool", "bool"}};
  if (auto it = aliases.find(name); it != aliases.end())
    name = it->second;
  // bits, then: finfo: eps, max, min (= -max), tiny (= smallest_normal), resolution;
  // iinfo: max, min.
  struct FloatInfo {
    int64_t bits;
    double eps, max, tiny, resolution;
  };
  static const std::map<std::string, FloatInfo> floats = {
      {"float16", {16, 0x1p-10, 65504.0, 0x1p-14, 0.001}},
      {"bfloat16", {16, 0x1p-7, 0x1.fep127, 0x1p-126, 0.01}},
      {"float32", {32, 0x1p-23, 0x1.fffffep127, 0x1p-126, 1e-06}},
      {"float64", {64, 0x1p-52, 0x1.fffffffffffffp1023, 0x1p-1022, 1e-15}},
      {"float8_e4m3fn", {8, 0.125, 448.0, 0x1p-6, 0.1}},
      {"float8_e5m2", {8, 0.25, 57344.0, 0x1p-14, 0.1}},
      // The fnuz variants (no negative zero, no infinity, one more exponent bias) that host
      // code picks for AMD's gfx942 and so on any other GPU (aiter's get_fp8_dtypes()).
      {"float8_e4m3fnuz", {8, 0.125, 240.0, 0x1p-7, 0.1}},
      {"float8_e5m2fnuz", {8, 0.25, 57344.0, 0x1p-15, 0.1}}};
  static const std::map<std::string, std::pair<int64_t, int64_t>> ints = {
      {"int8", {-128, 127}},
      {"int16", {-32768, 32767}},
      {"int32", {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()}},
      {"int64", {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}},
      {"uint8", {0, 255}},
      {"uint16", {0, 65535}},
      {"uint32", {0, 4294967295}}};
  if (floating) {
    auto it = floats.find(name);
    if (it == floats.end())
      raisePython(kTypeError,
                  "torch.finfo() requires a floating point input type. Use "
                  "torch.iinfo to handle 'torch.finfo'",
                  args.loc);
    const FloatInfo &f = it->second;
    return makeObject(kFinfoClass, {SemaValue::ofInt(f.bits), SemaValue::ofFloat(f.eps),
                                    SemaValue::ofFloat(f.max), SemaValue::ofFloat(-f.max),
                                    SemaValue::ofFloat(f.tiny), SemaValue::ofFloat(f.resolution),
                                    SemaValue::ofString(name)});
  }
  auto it = ints.find(name);
  if (it == ints.end())
    raisePython(kTypeError,
                "torch.iinfo() requires an integer input type. Use torch.finfo to "
                "handle '" +
                    name + "'",
                args.loc);
  int64_t bits = name.find("8") != std::string::npos    ? 8
                 : name.find("16") != std::string::npos ? 16
                 : name.find("32") != std::string::npos ? 32
                                                        : 64;
  return makeObject(kIinfoClass, {SemaValue::ofInt(bits), SemaValue::ofInt(it->second.second),
                                  SemaValue::ofInt(it->second.first), SemaValue::ofString(name)});
}

/// torch.device("cuda"), torch.device("cuda:1"), torch.device("cuda", 1), torch.device(type=...,
/// index=...) or torch.device(other_device), as PyTorch parses them.
SemaValue Specializer::torchDevice(CallArgs &args) {
  auto a = bindCallArgs(*this, "torch.device", {"type", "index"}, 1, args);
  if (isObject(*a[0], kTorchDeviceClass)) {
    if (a[1])
      raisePython(kTypeError, "device(): the index is given by the device already", args.loc);
    return *a[0];
  }
  if (a[0]->kind != Kind::String)
    raisePython(kTypeError,
                "device() received an invalid combination of arguments: " + a[0]->describe(),
                args.loc);
  std::string type = a[0]->name;
  SemaValue index = SemaValue::none();
  static const std::regex kDeviceString("([a-z_]+)(?::(0|[1-9][0-9]*))?");
  std::smatch m;
  if (!std::regex_match(type, m, kDeviceString))
    raisePython(kRuntimeError, "Invalid device string: '" + type + "'", args.loc);
  type = m[1].str();
  if (m[2].matched)
    index = SemaValue::ofInt(std::stoll(m[2].str()));
  if (a[1] && !a[1]->isNone()) {
    if (m[2].matched)
      raisePython(kRuntimeError,
                  "type (string) must not include an index because index was passed explicitly: " +
                      a[0]->name,
                  args.loc);
    if (a[1]->kind != Kind::Int)
      raisePython(kTypeError, "device(): index must be an int, not " + a[1]->describe(), args.loc);
    if (a[1]->intValue < 0)
      raisePython(kRuntimeError,
                  "Device index must not be negative, got " + std::to_string(a[1]->intValue),
                  args.loc);
    index = *a[1];
  }
  return makeObject(kTorchDeviceClass, {SemaValue::ofString(type), index});
}

SemaValue Specializer::callHostLibrary(const std::string &qualified, CallArgs &args) {
  if (qualified.rfind("math.", 0) == 0)
    return callMath(qualified.substr(5), args);
  if (qualified == "torch.finfo" || qualified == "torch.iinfo")
    return torchTypeInfo(qualified == "torch.finfo", args);
  if (qualified == "torch.device")
    return torchDevice(args);
  // Where Triton 3.6 defines it (lmdeploy's bitonic top-k wraps tl.core.get_int_dtype with
  // triton.runtime.jit.constexpr_function): the same as triton.constexpr_function.
  if (qualified == "triton.runtime.jit.constexpr_function")
    return callBuiltin(SemaValue::ofBuiltin("triton.constexpr_function"), args);
  if (qualified.rfind("str.", 0) == 0)
    return callStringMethod(qualified.substr(4), args);
  if (qualified.rfind("dict.", 0) == 0) {
    std::string fn = qualified.substr(5);
    if (fn == "get") {
      auto a = bindCallArgs(*this, qualified, {"self", "key", "default"}, 2, args);
      std::optional<SemaValue> value = dictLookup(*a[0], *a[1]);
      return value ? *value : a[2] ? *a[2] : SemaValue::none();
    }
    if (fn == "pop") {
      // Removes the key from the dict itself, as every name holding it sees (xopes'
      // generate_configs pops num_stages and num_warps, then takes the product of the rest).
      auto a = bindCallArgs(*this, qualified, {"self", "key", "default"}, 2, args);
      SemaValue updated = *a[0];
      std::vector<SemaValue> &keys = updated.elems[0].elems;
      std::vector<SemaValue> &values = updated.elems[1].elems;
      for (size_t i = 0; i < keys.size(); ++i) {
        if (!sameKey(keys[i], *a[1]))
          continue;
        SemaValue value = values[i];
        keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(i));
        values.erase(values.begin() + static_cast<std::ptrdiff_t>(i));
        if (updated.objectId != 0)
          replaceObject(updated, args.loc);
        return value;
      }
      if (a[2])
        return *a[2];
      raisePython(kKeyError, pythonRepr(*a[1], args.loc), args.loc);
    }
    auto a = bindCallArgs(*this, qualified, {"self"}, 1, args);
    const std::vector<SemaValue> &keys = a[0]->elems[0].elems;
    const std::vector<SemaValue> &values = a[0]->elems[1].elems;
    if (fn == "keys")
      return SemaValue::ofList(keys);
    if (fn == "values")
      return SemaValue::ofList(values);
    std::vector<SemaValue> items;
    for (size_t i = 0; i < keys.size(); ++i)
      items.push_back(SemaValue::ofTuple({keys[i], values[i]}));
    return SemaValue::ofList(std::move(items));
  }
  if (qualified.rfind(std::string(kMatchClass) + ".", 0) == 0)
    return callMatchMethod(qualified.substr(std::string(kMatchClass).size() + 1), args);
  if (qualified.rfind(std::string(kPatternClass) + ".", 0) == 0) {
    // p.match(s) is re.match(p, s); the methods' own pos and endpos have no re.* counterpart.
    std::string fn = qualified.substr(std::string(kPatternClass).size() + 1);
    size_t most = fn == "sub" ? 4 : 2; // the pattern, the string (sub: repl, string, count)
    bool position = std::any_of(args.keywords.begin(), args.keywords.end(), [](const auto &kw) {
      return kw.first == "pos" || kw.first == "endpos";
    });
    if (args.positional.size() > most || position)
      error(args.loc, "re.Pattern." + fn + " with pos or endpos is not supported yet");
    return callRegex(fn, args);
  }
  static const std::set<std::string> regexFunctions = {
      "re.match", "re.search", "re.fullmatch", "re.sub", "re.findall", "re.compile", "re.escape"};
  if (regexFunctions.count(qualified))
    return callRegex(qualified.substr(3), args);
  // functools' caches change no result: lru_cache(maxsize=1) is a decorator that returns the
  // function it wraps (Specializer::callValue), lru_cache(f) and cache(f) the function itself.
  if (qualified == "functools.lru_cache" || qualified == "functools.cache") {
    bool wrapsNow = args.positional.size() == 1 && args.keywords.empty() &&
                    args.positional[0].kind != Kind::Int && !args.positional[0].isNone();
    if (wrapsNow)
      return args.positional[0];
    if (qualified == "functools.cache")
      bindCallArgs(*this, qualified, {"user_function"}, 1, args);
    bindCallArgs(*this, qualified, {"maxsize", "typed"}, 0, args);
    return SemaValue::ofBuiltin(kCacheDecorator);
  }
  // functools.partial(f, *args, **keywords): called, f gets these arguments before the call's.
  if (qualified == "functools.partial") {
    if (args.positional.empty())
      raisePython(kTypeError, "type 'partial' takes at least one argument", args.loc);
    SemaValue partial = SemaValue::ofBuiltin(kPartialObject);
    std::vector<SemaValue> keywords;
    for (const auto &[name, value] : args.keywords)
      keywords.push_back(SemaValue::ofTuple({SemaValue::ofString(name), value}));
    partial.elems = {args.positional[0],
                     SemaValue::ofTuple({args.positional.begin() + 1, args.positional.end()}),
                     SemaValue::ofTuple(std::move(keywords))};
    return partial;
  }
  // The entry points of a plugin group (vLLM-style plugin loading, which its platform lookup
  // runs): the packages tilec takes as installed (torch, numpy, triton, packaging) register
  // none in such groups, so the selection is empty, as on a host without plugins.
  if (qualified == "importlib.metadata.entry_points") {
    auto a = bindCallArgs(*this, qualified, {"group"}, 0, args);
    if (!a[0] || a[0]->kind != Kind::String || a[0]->name == "console_scripts")
      error(args.loc, "importlib.metadata.entry_points is supported only for a plugin group "
                      "(entry_points(group=\"...\")), which the host's packages leave empty");
    return SemaValue::ofTuple({});
  }
  if (qualified == "importlib.import_module") {
    // importlib.import_module("triton.language.extra.cuda"): the module itself, where
    // __import__ gives its top-level package.
    auto a = bindCallArgs(*this, qualified, {"name", "package"}, 1, args);
    if (a[0]->kind != Kind::String)
      error(args.loc,
            "importlib.import_module takes the module's name as a string, not " + a[0]->describe());
    const std::string &dotted = a[0]->name;
    if (dotted.empty() || dotted[0] == '.' ||
        !isAlwaysInstalled(dotted.substr(0, dotted.find('.'))))
      error(args.loc, "importlib.import_module('" + dotted +
                          "'): only an absolute name of a module of Python's standard library, "
                          "torch, numpy, triton or packaging is supported yet; use an import "
                          "statement");
    return SemaValue::ofModule(dotted);
  }
  if (qualified == "importlib.metadata.version")
    return importlibVersion(args);
  if (qualified == "importlib.util.find_spec")
    return findSpec(args);
  if (qualified == "importlib.util.module_from_spec")
    return moduleFromSpec(args);
  if (qualified == std::string(kModuleLoaderClass) + ".exec_module") {
    // The module runs as tilec runs every module: each name when a kernel first uses it.
    bindCallArgs(*this, "exec_module", {"self", "module"}, 2, args);
    return SemaValue::none();
  }
  if (qualified == "triton.backends.backends.values" ||
      qualified == "triton.backends.backends.keys" ||
      qualified == "triton.backends.backends.items") {
    bindCallArgs(*this, qualified, {}, 0, args);
    const std::string view = qualified.substr(qualified.rfind('.') + 1);
    std::vector<SemaValue> elems;
    for (const char *name : {"nvidia", "amd"}) {
      SemaValue key = SemaValue::ofString(name);
      SemaValue backend = makeObject(kTritonBackendClass, {key});
      if (view == "keys")
        elems.push_back(key);
      else if (view == "values")
        elems.push_back(backend);
      else
        elems.push_back(SemaValue::ofTuple({key, backend}));
    }
    return SemaValue::ofList(std::move(elems));
  }
  if (qualified == std::string(kTritonConfigClass) + ".all_kwargs") {
    // Triton 3.6's Config.all_kwargs(): the kwargs, then the launch options that are not None
    // (num_warps, num_ctas, num_stages, maxnreg where given; ir_override is None here).
    auto a = bindCallArgs(*this, "all_kwargs", {"self"}, 1, args);
    const SemaValue &config = *a[0];
    SemaValue result = makeDict();
    const SemaValue &kwargs = config.elems[0];
    for (size_t i = 0; i < kwargs.elems[0].elems.size(); ++i)
      dictInsert(result, kwargs.elems[0].elems[i], kwargs.elems[1].elems[i]);
    dictInsert(result, SemaValue::ofString("num_warps"),
               config.elems[1].isNone() ? SemaValue::ofInt(4) : config.elems[1]);
    dictInsert(result, SemaValue::ofString("num_ctas"), SemaValue::ofInt(1));
    dictInsert(result, SemaValue::ofString("num_stages"),
               config.elems[2].isNone() ? SemaValue::ofInt(3) : config.elems[2]);
    if (!config.elems[3].isNone())
      dictInsert(result, SemaValue::ofString("maxnreg"), config.elems[3]);
    return result;
  }
  if (qualified == std::string(kTritonDriverClass) + ".is_active") {
    auto a = bindCallArgs(*this, "is_active", {"self"}, 1, args);
    return SemaValue::ofBool(a[0]->elems[0].name == "nvidia");
  }
  if (qualified == "itertools.product") {
    // product(*iterables, repeat=1) over tuples and lists, the last varying fastest, as a list
    // (consumed where it is made: a comprehension, list()).
    int64_t repeat = 1;
    for (const auto &[keyword, value] : args.keywords) {
      if (keyword != "repeat")
        raisePython(kTypeError, "'" + keyword + "' is an invalid keyword argument for product()",
                    args.loc);
      repeat = constantInt(value, args.loc, "repeat");
      if (repeat < 0)
        raisePython(kValueError, "repeat argument cannot be negative", args.loc);
    }
    std::vector<SemaValue> pools;
    for (int64_t r = 0; r < repeat; ++r)
      for (const SemaValue &iterable : args.positional) {
        if (iterable.kind != Kind::Tuple)
          error(args.loc, "itertools.product of " + iterable.describe() +
                              " is not supported yet (tuples and lists are)");
        pools.push_back(iterable);
      }
    std::vector<std::vector<SemaValue>> rows(1);
    for (const SemaValue &pool : pools) {
      std::vector<std::vector<SemaValue>> next;
      for (const std::vector<SemaValue> &row : rows)
        for (const SemaValue &item : pool.elems) {
          next.push_back(row);
          next.back().push_back(item);
        }
      rows = std::move(next);
      if (rows.size() > 100000)
        error(args.loc, "itertools.product makes more than 100000 tuples here");
    }
    std::vector<SemaValue> result;
    for (std::vector<SemaValue> &row : rows)
      result.push_back(SemaValue::ofTuple(std::move(row)));
    return SemaValue::ofList(std::move(result));
  }
  if (qualified == "itertools.chain") {
    std::vector<SemaValue> result;
    if (!args.keywords.empty())
      raisePython(kTypeError, "chain() takes no keyword arguments", args.loc);
    for (const SemaValue &iterable : args.positional) {
      if (iterable.kind != Kind::Tuple)
        error(args.loc, "itertools.chain of " + iterable.describe() +
                            " is not supported yet (tuples and lists are)");
      result.insert(result.end(), iterable.elems.begin(), iterable.elems.end());
    }
    return SemaValue::ofList(std::move(result));
  }
  if (qualified == "os.environ.get" || qualified == "os.getenv") {
    auto a = bindCallArgs(*this, qualified, {"key", "default"}, 1, args);
    if (a[0]->kind != Kind::String)
      raisePython(kTypeError, "str expected, not " + a[0]->describe(), args.loc);
    if (const char *value = std::getenv(a[0]->name.c_str()))
      return SemaValue::ofString(value);
    return a[1] ? *a[1] : SemaValue::none();
  }
  if (qualified == "json.load" || qualified == "json.loads")
    return callJson(qualified.substr(5), args);
  // sys.modules.keys(): a view of the same keys, which `in` tests as it tests sys.modules.
  if (qualified == "sys.modules.keys") {
    bindCallArgs(*this, qualified, {}, 0, args);
    return SemaValue::ofModule("sys.modules");
  }
  // sys.modules.get(name[, default]): the default for a module the program has not imported.
  // A loaded module's object is not modelled.
  if (qualified == "sys.modules.get") {
    auto a = bindCallArgs(*this, qualified, {"key", "default"}, 1, args);
    if (a[0]->kind != Kind::String || inSysModules(a[0]->name))
      error(args.loc, "sys.modules.get of a module that the program has imported is not "
                      "supported yet in module-level code that tilec evaluates (`name in "
                      "sys.modules` is)");
    return a[1] ? *a[1] : SemaValue::none();
  }
  if (qualified.rfind("os.path.", 0) == 0) {
    if (std::optional<SemaValue> result = callOsPath(qualified.substr(8), args))
      return *result;
  }
  // Warnings and log records go to the host's stderr and change no value that tilec computes
  // (hip-attention's autotune configs warn that autotuning is on): arguments checked, None.
  if (qualified == "warnings.warn") {
    bindCallArgs(*this, qualified, {"message", "category", "stacklevel", "source"}, 1, args);
    return SemaValue::none();
  }
  if (qualified == "logging.getLogger") {
    auto a = bindCallArgs(*this, qualified, {"name"}, 0, args);
    return makeObject(kLoggerClass,
                      {a[0] && !a[0]->isNone() ? *a[0] : SemaValue::ofString("root")});
  }
  static const std::set<std::string> loggingFunctions = {
      "logging.debug", "logging.info",     "logging.warning",  "logging.warn",
      "logging.error", "logging.critical", "logging.exception"};
  if (loggingFunctions.count(qualified) || qualified.rfind(std::string(kLoggerClass) + ".", 0) == 0)
    return SemaValue::none();
  if (qualified == "platform.system") {
    bindCallArgs(*this, qualified, {}, 0, args);
    return SemaValue::ofString("Linux");
  }
  if (qualified.rfind("triton.runtime.driver.", 0) == 0 ||
      qualified.rfind("torch.cuda.get_device_", 0) == 0 || qualified == "torch.cuda.device_count" ||
      qualified == "torch.cuda.current_device")
    return deviceQuery(qualified, args);
  // torch's deterministic mode as a freshly imported torch has it (off), unless module-level
  // code that tilec loaded turns it on or off, which it does not run.
  if (qualified == "torch.are_deterministic_algorithms_enabled" ||
      qualified == "torch.is_deterministic_algorithms_warn_only_enabled" ||
      qualified == "torch.get_deterministic_debug_mode") {
    bindCallArgs(*this, qualified, {}, 0, args);
    if (const ast::Expr *call =
            moduleLevelCallOf({"use_deterministic_algorithms", "set_deterministic_debug_mode"})) {
      std::string message = "called here";
      try {
        error(args.loc, "'" + qualified + "()' asks torch's deterministic mode, which " +
                            "module-level code changes: tilec evaluates module-level code on " +
                            "demand, not in the order Python runs it; not supported yet");
      } catch (const CompileError &e) {
        rethrowWithNote(e, call->loc, message);
      }
    }
    if (qualified == "torch.get_deterministic_debug_mode")
      return SemaValue::ofInt(0);
    return SemaValue::ofBool(false);
  }
  // The float32 matmul precision of a freshly imported torch ("highest"), as a heuristic reads
  // it at launch (cut-cross-entropy picks tf32 or ieee dots from it), unless module-level code
  // that tilec loaded sets it, which it does not run.
  if (qualified == "torch.get_float32_matmul_precision") {
    bindCallArgs(*this, qualified, {}, 0, args);
    if (const ast::Expr *call = moduleLevelCallOf({"set_float32_matmul_precision"})) {
      try {
        error(args.loc, "'" + qualified + "()' asks torch's float32 matmul precision, which " +
                            "module-level code changes: tilec evaluates module-level code on " +
                            "demand, not in the order Python runs it; not supported yet");
      } catch (const CompileError &e) {
        rethrowWithNote(e, call->loc, "called here");
      }
    }
    return SemaValue::ofString("highest");
  }
  if (qualified == "torch.cuda.is_available") {
    bindCallArgs(*this, qualified, {}, 0, args);
    return SemaValue::ofBool(true);
  }
  // torch's own test for Triton (torchao defines its kernels under `if has_triton():`): the host
  // that runs the kernels has Triton and a GPU it supports.
  if (qualified == "torch.utils._triton.has_triton" ||
      qualified == "torch.utils._triton.has_triton_package") {
    bindCallArgs(*this, qualified, {}, 0, args);
    return SemaValue::ofBool(true);
  }
  if (qualified == "packaging.version.Version" || qualified == "packaging.version.parse") {
    auto a = bindCallArgs(*this, qualified, {"version"}, 1, args);
    if (a[0]->kind != Kind::String)
      raisePython(kTypeError, "expected string or bytes-like object, got " + a[0]->describe(),
                  args.loc);
    std::optional<PyVersion> v = parseVersion(a[0]->name);
    if (!v)
      raisePython(kInvalidVersion, "Invalid version: " + stringRepr(a[0]->name), args.loc);
    return makeObject(kVersionClass, {SemaValue::ofString(v->str())});
  }
  // torch.version's other attributes (git_version, debug) are properties of the host's build
  // of torch that tilec is not told.
  if (qualified.rfind("torch.version.", 0) == 0) {
    std::string attribute = qualified.substr(0, qualified.find('.', 14));
    error(args.loc, "tilec cannot know " + attribute +
                        ", a property of the host's build of torch; it knows its version "
                        "(--torch-version), its CUDA version (--cuda-version) and what the GPU "
                        "compiled for (--arch) implies");
  }
  error(args.loc, "calling '" + qualified +
                      "' is not supported yet in module-level code that tilec evaluates");
}

} // namespace tilec::sema
