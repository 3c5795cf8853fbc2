// Files that module-level Python reads at import time, and the json module that parses them:
//
//   with open(os.path.join(os.path.dirname(__file__), "configs.json")) as f:
//       CONFIGS = json.load(f)
//
// open() reads text files only (mode "r"), as a kernel's tuning tables are read; the file is
// read when the `with` runs, and becomes a dependency of the output (-MD), as an imported module
// is. A path that is not absolute is relative to tilec's working directory, as Python's is to the
// process's. A missing file raises FileNotFoundError, so `try`/`except OSError` takes the path
// Python takes. json.load and json.loads give Python's values: objects are dicts in their order,
// arrays lists, integers ints (tilec's constants hold 128 bits), numbers with a fraction or an
// exponent floats, true/false/null True/False/None, and NaN/Infinity as Python accepts them.
#include "sema/Imports.h"
#include "sema/Specializer.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec::sema {

using Kind = SemaValue::Kind;

namespace {

constexpr const char *kTextFileClass = "io.TextIOWrapper";

const std::vector<std::string> kFileNotFound = *builtinExceptionClasses("FileNotFoundError");
const std::vector<std::string> kIsADirectory = *builtinExceptionClasses("IsADirectoryError");
const std::vector<std::string> kFileTypeError = *builtinExceptionClasses("TypeError");
// json.JSONDecodeError is a ValueError.
const std::vector<std::string> kJsonDecodeError =
    libraryExceptionClasses("JSONDecodeError", "ValueError");

/// A recursive-descent reader of JSON text, as Python's json module reads it.
class JsonReader {
public:
  JsonReader(const std::string &text, Specializer &specializer, SourceLoc loc)
      : text_(text), specializer_(specializer), loc_(loc) {}

  SemaValue document() {
    skipSpace();
    SemaValue value = parseValue(0);
    skipSpace();
    if (at_ != text_.size())
      fail("Extra data");
    return value;
  }

private:
  static constexpr unsigned kMaxDepth = 500;
  const std::string &text_;
  Specializer &specializer_;
  SourceLoc loc_;
  size_t at_ = 0;

  /// Python's message: "Expecting value: line 1 column 1 (char 0)".
  [[noreturn]] void fail(const std::string &what) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < at_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    specializer_.raisePython(kJsonDecodeError,
                             what + ": line " + std::to_string(line) + " column " +
                                 std::to_string(column) + " (char " + std::to_string(at_) + ")",
                             loc_);
  }

  void skipSpace() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
      ++at_;
  }

  bool takeWord(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (text_.compare(at_, n, word) != 0)
      return false;
    at_ += n;
    return true;
  }

  SemaValue parseValue(unsigned depth) {
    if (depth > kMaxDepth)
      specializer_.raisePython(*builtinExceptionClasses("RecursionError"),
                               "maximum recursion depth exceeded while decoding a JSON document",
                               loc_);
    if (at_ >= text_.size())
      fail("Expecting value");
    char c = text_[at_];
    if (c == '{')
      return parseObject(depth);
    if (c == '[')
      return parseArray(depth);
    if (c == '"')
      return SemaValue::ofString(parseString());
    if (takeWord("true"))
      return SemaValue::ofBool(true);
    if (takeWord("false"))
      return SemaValue::ofBool(false);
    if (takeWord("null"))
      return SemaValue::none();
    if (takeWord("NaN"))
      return SemaValue::ofFloat(std::nan(""));
    if (takeWord("Infinity"))
      return SemaValue::ofFloat(HUGE_VAL);
    if (takeWord("-Infinity"))
      return SemaValue::ofFloat(-HUGE_VAL);
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber();
    fail("Expecting value");
  }

  SemaValue parseObject(unsigned depth) {
    ++at_; // '{'
    SemaValue dict = makeDict();
    skipSpace();
    if (at_ < text_.size() && text_[at_] == '}') {
      ++at_;
      return dict;
    }
    for (;;) {
      skipSpace();
      if (at_ >= text_.size() || text_[at_] != '"')
        fail("Expecting property name enclosed in double quotes");
      SemaValue key = SemaValue::ofString(parseString());
      skipSpace();
      if (at_ >= text_.size() || text_[at_] != ':')
        fail("Expecting ':' delimiter");
      ++at_;
      skipSpace();
      SemaValue value = parseValue(depth + 1);
      // A key given twice keeps its first place and its last value, as a Python dict built in
      // order does.
      dictInsert(dict, key, value);
      skipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') {
        ++at_;
        return dict;
      }
      fail("Expecting ',' delimiter");
    }
  }

  SemaValue parseArray(unsigned depth) {
    ++at_; // '['
    std::vector<SemaValue> elements;
    skipSpace();
    if (at_ < text_.size() && text_[at_] == ']') {
      ++at_;
      return SemaValue::ofList(std::move(elements));
    }
    for (;;) {
      skipSpace();
      elements.push_back(parseValue(depth + 1));
      skipSpace();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == ']') {
        ++at_;
        return SemaValue::ofList(std::move(elements));
      }
      fail("Expecting ',' delimiter");
    }
  }

  void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  uint32_t hex4() {
    if (at_ + 4 > text_.size())
      fail("Invalid \\uXXXX escape");
    uint32_t code = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text_[at_++];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= h - '0';
      else if (h >= 'a' && h <= 'f')
        code |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        code |= h - 'A' + 10;
      else
        fail("Invalid \\uXXXX escape");
    }
    return code;
  }

  std::string parseString() {
    size_t start = at_++;
    std::string out;
    for (;;) {
      if (at_ >= text_.size()) {
        at_ = start;
        fail("Unterminated string starting at");
      }
      char c = text_[at_];
      if (c == '"') {
        ++at_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("Invalid control character at");
      if (c != '\\') {
        out += c;
        ++at_;
        continue;
      }
      ++at_;
      if (at_ >= text_.size()) {
        at_ = start;
        fail("Unterminated string starting at");
      }
      char e = text_[at_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t code = hex4();
        // A surrogate pair is one character; a lone surrogate stays one, as Python keeps it
        // (which UTF-8 cannot hold: refused).
        if (code >= 0xD800 && code < 0xDC00 && text_.compare(at_, 2, "\\u") == 0) {
          size_t saved = at_;
          at_ += 2;
          uint32_t low = hex4();
          if (low >= 0xDC00 && low < 0xE000)
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          else
            at_ = saved;
        }
        if (code >= 0xD800 && code < 0xE000)
          specializer_.error(loc_, "json: a lone surrogate in a string is not supported yet");
        appendUtf8(out, code);
        break;
      }
      default:
        at_ -= 2;
        fail("Invalid \\escape");
      }
    }
  }

  SemaValue parseNumber() {
    size_t start = at_;
    if (text_[at_] == '-')
      ++at_;
    if (at_ >= text_.size() || !(text_[at_] >= '0' && text_[at_] <= '9')) {
      at_ = start;
      fail("Expecting value");
    }
    // A leading zero ends the integer part, as in Python's scanner ("01" is extra data).
    if (text_[at_] == '0')
      ++at_;
    else
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
        ++at_;
    bool isFloat = false;
    if (at_ + 1 < text_.size() && text_[at_] == '.' && text_[at_ + 1] >= '0' &&
        text_[at_ + 1] <= '9') {
      isFloat = true;
      ++at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
        ++at_;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      size_t exponent = at_ + 1;
      if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-'))
        ++exponent;
      if (exponent < text_.size() && text_[exponent] >= '0' && text_[exponent] <= '9') {
        isFloat = true;
        at_ = exponent;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9')
          ++at_;
      }
    }
    std::string digits = text_.substr(start, at_ - start);
    if (isFloat)
      return SemaValue::ofFloat(std::strtod(digits.c_str(), nullptr));
    bool negative = digits[0] == '-';
    unsigned __int128 magnitude = 0;
    const unsigned __int128 limit = static_cast<unsigned __int128>(1) << 127;
    for (size_t i = negative ? 1 : 0; i < digits.size(); ++i) {
      magnitude = magnitude * 10 + static_cast<unsigned>(digits[i] - '0');
      if (magnitude > limit)
        specializer_.error(loc_, "json: the integer " + digits +
                                     " is beyond the 128 bits of tilec's constants");
    }
    if (!negative && magnitude == limit)
      specializer_.error(loc_, "json: the integer " + digits +
                                   " is beyond the 128 bits of tilec's constants");
    __int128 value = negative ? -static_cast<__int128>(magnitude - 1) - 1
                              : static_cast<__int128>(magnitude);
    if (negative && magnitude == 0)
      value = 0;
    return SemaValue::ofWideInt(value);
  }
};

} // namespace

bool isTextFile(const SemaValue &value) {
  return value.kind == Kind::Object && value.name == kTextFileClass;
}

SemaValue Specializer::openFile(CallArgs &args) {
  auto a = bindCallArgs(*this, "open",
                        {"file", "mode", "buffering", "encoding", "errors", "newline", "closefd",
                         "opener"},
                        1, args);
  const SemaValue &file = *a[0];
  if (file.kind != Kind::String)
    error(args.loc, "open() of " + file.describe() +
                        " is not supported yet (a path given as a string is)");
  if (a[1]) {
    if (a[1]->kind != Kind::String)
      raisePython(kFileTypeError, "open() argument 'mode' must be str, not " + a[1]->describe(),
                  args.loc);
    if (a[1]->name != "r" && a[1]->name != "rt" && a[1]->name != "tr")
      error(args.loc, "open() with mode '" + a[1]->name +
                          "' is not supported yet: tilec reads text files only (mode 'r')");
  }
  if (a[3] && !a[3]->isNone() &&
      (a[3]->kind != Kind::String || (a[3]->name != "utf-8" && a[3]->name != "utf8" &&
                                      a[3]->name != "UTF-8" && a[3]->name != "ascii")))
    error(args.loc, "open() with encoding " + a[3]->repr() + " is not supported yet (UTF-8 is)");
  if (a[5] && !a[5]->isNone())
    error(args.loc, "open() with newline= is not supported yet");
  std::filesystem::path path(file.name);
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec).lexically_normal();
  if (std::filesystem::is_directory(absolute, ec))
    raisePython(kIsADirectory, "[Errno 21] Is a directory: " + file.repr(), args.loc);
  std::ifstream in(absolute, std::ios::binary);
  if (!in)
    raisePython(kFileNotFound, "[Errno 2] No such file or directory: " + file.repr(), args.loc);
  std::ostringstream content;
  content << in.rdbuf();
  std::string text = content.str();
  // Text mode with universal newlines, as Python reads by default.
  std::string normalised;
  normalised.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      normalised += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n')
        ++i;
      continue;
    }
    normalised += text[i];
  }
  // A UTF-8 byte-order mark stays, as Python's utf-8 codec keeps it (json.loads then refuses it).
  if (graph_)
    graph_->recordDataFile(absolute.string());
  SemaValue object;
  object.kind = Kind::Object;
  object.name = kTextFileClass;
  object.elems = {SemaValue::ofString(file.name), SemaValue::ofString(std::move(normalised))};
  return object;
}

std::optional<SemaValue> Specializer::textFileAttribute(const SemaValue &file,
                                                        const std::string &attr, SourceLoc loc) {
  if (!isTextFile(file))
    return std::nullopt;
  if (attr == "name")
    return file.elems[0];
  if (attr == "mode")
    return SemaValue::ofString("r");
  if (attr == "read" || attr == "readlines" || attr == "close") {
    SemaValue method = SemaValue::ofBuiltin(std::string(kTextFileClass) + "." + attr);
    method.elems.push_back(file);
    return method;
  }
  error(loc, "a file's attribute '" + attr +
                 "' is not supported yet (name, mode, read(), readlines() and close() are)");
}

SemaValue Specializer::callTextFileMethod(const std::string &method, CallArgs &args) {
  // Each call reads the whole file: tilec's file objects have no position (a second read()
  // would give '' in Python).
  const SemaValue &file = args.positional[0];
  const std::string &text = file.elems[1].name;
  if (args.positional.size() != 1 || !args.keywords.empty())
    error(args.loc, "a file's " + method + "() with arguments is not supported yet");
  if (method == "close")
    return SemaValue::none();
  if (method == "read")
    return SemaValue::ofString(text);
  std::vector<SemaValue> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(SemaValue::ofString(text.substr(start, end - start)));
    start = end;
  }
  return SemaValue::ofList(std::move(lines));
}

SemaValue Specializer::enterContext(const SemaValue &manager, SourceLoc loc) {
  // A file is its own context manager; leaving the `with` closes it, which changes no value.
  if (isTextFile(manager))
    return manager;
  error(loc, "a `with` over " + manager.describe() +
                 " is not supported yet in Python code that tilec evaluates (a file that open() "
                 "reads is)");
}

SemaValue Specializer::callJson(const std::string &fn, CallArgs &args) {
  if (fn != "load" && fn != "loads")
    error(args.loc, "json." + fn + " is not supported yet (json.load and json.loads are)");
  auto a = bindCallArgs(*this, "json." + fn, {fn == "load" ? "fp" : "s"}, 1, args);
  std::string text;
  if (fn == "load") {
    if (!isTextFile(*a[0]))
      error(args.loc, "json.load of " + a[0]->describe() +
                          " is not supported yet (a file that open() reads is)");
    text = a[0]->elems[1].name;
  } else {
    if (a[0]->kind != Kind::String)
      raisePython(kFileTypeError,
                  "the JSON object must be str, bytes or bytearray, not " + a[0]->describe(),
                  args.loc);
    text = a[0]->name;
  }
  // Python's json.loads refuses a str that starts with a byte-order mark.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
    raisePython(kJsonDecodeError, "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 "
                                  "(char 0)",
                args.loc);
  return JsonReader(text, *this, args.loc).document();
}

} // namespace tilec::sema
