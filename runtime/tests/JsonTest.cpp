//===- JsonTest.cpp - The runtime's JSON reader ---------------------------===//

#include "Json.h"

#include <catch2/catch.hpp>
#include <string>

using tilec::rt::json::parse;
using tilec::rt::json::ParseError;
using tilec::rt::json::Value;

namespace {

/// The error parse() reports for \p text, as "line:col: message".
std::string errorOf(const std::string &text) {
  try {
    parse(text);
  } catch (const ParseError &error) {
    return std::to_string(error.Where.Line) + ":" + std::to_string(error.Where.Column) + ": " +
           error.Message;
  }
  return "(no error)";
}

} // namespace

TEST_CASE("json: scalars and containers", "[json]") {
  Value root = parse(R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": []} )");
  REQUIRE(root.isObject());
  REQUIRE(root.members().size() == 3);
  const Value *a = root.find("a");
  REQUIRE(a);
  REQUIRE(a->elements().size() == 5);
  CHECK(a->elements()[0].text() == "1");
  CHECK(a->elements()[1].text() == "-2.5e3");
  CHECK(a->elements()[2].asBool());
  CHECK_FALSE(a->elements()[3].asBool());
  CHECK(a->elements()[4].isNull());
  CHECK(root.find("b")->find("c")->text() == "d");
  CHECK(root.find("e")->elements().empty());
  CHECK(root.find("zzz") == nullptr);
}

TEST_CASE("json: member order is kept", "[json]") {
  Value root = parse(R"({"z": 1, "a": 2, "m": 3})");
  REQUIRE(root.members().size() == 3);
  CHECK(root.members()[0].first == "z");
  CHECK(root.members()[1].first == "a");
  CHECK(root.members()[2].first == "m");
}

TEST_CASE("json: string escapes", "[json]") {
  Value value = parse(R"("q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20ac \ud83d\ude00")");
  CHECK(value.text() == "q\" b\\ s/ \b\f\n\r\t \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST_CASE("json: integers are read exactly", "[json]") {
  CHECK(parse("1024").asInt64() == 1024);
  CHECK(parse("-7").asInt64() == -7);
  CHECK(parse("9223372036854775807").asInt64() == INT64_MAX);
  CHECK(parse("-9223372036854775808").asInt64() == INT64_MIN);
  CHECK_FALSE(parse("9223372036854775808").asInt64());
  CHECK_FALSE(parse("1.0").asInt64());
  CHECK_FALSE(parse("1e3").asInt64());
  CHECK_FALSE(parse("\"12\"").asInt64());
}

TEST_CASE("json: locations of values", "[json]") {
  Value root = parse("{\n  \"a\":\n    [1,\n     2]\n}");
  const Value *a = root.find("a");
  REQUIRE(a);
  CHECK(a->location().Line == 3);
  CHECK(a->location().Column == 5);
  CHECK(a->elements()[1].location().Line == 4);
  CHECK(a->elements()[1].location().Column == 6);
}

TEST_CASE("json: malformed documents are errors with a location", "[json]") {
  CHECK(errorOf("") == "1:1: expected a value, found end of input");
  CHECK(errorOf("   ") == "1:4: expected a value, found end of input");
  CHECK(errorOf(R"({"a": 1,})") == "1:9: expected a member name in double quotes, found '}'");
  CHECK(errorOf("[1, 2,]") == "1:7: expected a value, found ']'");
  CHECK(errorOf("[1 2]") == "1:4: expected ',' or ']' in an array, found '2'");
  CHECK(errorOf("{\"a\" 1}") == "1:6: expected ':', found '1'");
  CHECK(errorOf("{\"a\": 1\n\"b\": 2}") == "2:1: expected ',' or '}' in an object, found '\"'");
  CHECK(errorOf("{} x") == "1:4: unexpected 'x' after the JSON value");
  CHECK(errorOf("{\"a\": 1, \"a\": 2}") == "1:10: duplicate member \"a\"");
  CHECK(errorOf("012") == "1:2: numbers cannot have leading zeros");
  CHECK(errorOf("-") == "1:2: expected a digit, found end of input");
  CHECK(errorOf("1.") == "1:3: expected a digit after '.', found end of input");
  CHECK(errorOf("1e+") == "1:4: expected a digit in the exponent, found end of input");
  CHECK(errorOf("tru") == "1:1: expected a value, found 't'");
  CHECK(errorOf("nulls") == "1:5: unexpected 's' after a literal");
  CHECK(errorOf("\"abc") == "1:5: unterminated string");
  CHECK(errorOf("\"a\tb\"") == "1:3: control character byte 0x09 in a string (escape it)");
  CHECK(errorOf(R"("\x")") == "1:3: invalid escape in a string: backslash followed by 'x'");
  CHECK(errorOf(R"("\u12")") == "1:6: expected four hex digits after \\u, found '\"'");
  CHECK(errorOf(R"("\ude00")") == "1:8: unpaired low surrogate in \\u escape");
  CHECK(errorOf(R"("\ud83d x")") == "1:8: high surrogate in \\u escape without its low surrogate");
  CHECK(errorOf("// comment\n{}") == "1:1: expected a value, found '/'");
  CHECK(errorOf(std::string("{\"a\": \x01}")) == "1:7: expected a value, found byte 0x01");
}

TEST_CASE("json: nesting is limited, not recursed into without bound", "[json]") {
  std::string ok = std::string(64, '[') + std::string(64, ']');
  CHECK_NOTHROW(parse(ok));
  std::string deep = std::string(65, '[') + std::string(65, ']');
  CHECK(errorOf(deep) == "1:65: nesting deeper than 64 levels");
  // Far deeper than any stack would survive if the reader recursed without a limit.
  std::string hostile(1 << 20, '[');
  CHECK(errorOf(hostile) == "1:65: nesting deeper than 64 levels");
}

TEST_CASE("json: every truncation of a valid document is an error, never a crash", "[json]") {
  const std::string document =
      R"({"schema": "tilec-metadata", "version": 1, "k": [{"n": "x\u00e9", "v": -1.5e-3}]})";
  REQUIRE_NOTHROW(parse(document));
  for (size_t length = 0; length < document.size(); ++length) {
    INFO("prefix of length " << length);
    CHECK_THROWS_AS(parse(document.substr(0, length)), ParseError);
  }
}
