// Diagnostics of the frontend: the exact `file:line:col: error:` text, source line and caret.
#include "TestUtil.h"

#include <catch2/catch.hpp>
#include <sstream>

using tilec::test::firstErrorLine;
using tilec::test::parseError;

TEST_CASE("a syntax error is reported at the offending token", "[frontend][errors]") {
  CHECK(parseError("x = 1\ny = = 2\n") == "test.py:2:5: error: invalid syntax\n"
                                          "y = = 2\n"
                                          "    ^\n");
  CHECK(firstErrorLine("for x y:\n    pass\n") == "test.py:1:7: error: invalid syntax");
  CHECK(firstErrorLine("x = 1 +\n") == "test.py:1:8: error: invalid syntax");
  CHECK(firstErrorLine("f(a b)\n") == "test.py:1:5: error: invalid syntax");
  // A match statement holds case blocks only; `case` elsewhere is a name (CPython's positions).
  CHECK(firstErrorLine("match x:\n    pass\n") == "test.py:2:5: error: invalid syntax");
  CHECK(firstErrorLine("case 1:\n    pass\n") == "test.py:1:6: error: invalid syntax");
}

TEST_CASE("a compound statement without its colon: expected ':'", "[frontend][errors]") {
  // Located right after the header, not after the trailing comment.
  CHECK(parseError("def f(x)  # no colon\n    pass\n") == "test.py:1:9: error: expected ':'\n"
                                                          "def f(x)  # no colon\n"
                                                          "        ^\n");
  CHECK(firstErrorLine("if a < b\n    pass\n") == "test.py:1:9: error: expected ':'");
  CHECK(firstErrorLine("while True\n    pass\n") == "test.py:1:11: error: expected ':'");
  CHECK(firstErrorLine("class A\n    pass\n") == "test.py:1:8: error: expected ':'");
}

TEST_CASE("indentation errors, each with Python's message", "[frontend][errors]") {
  CHECK(parseError("x = 1\n    y = 2\n") == "test.py:2:5: error: unexpected indent\n"
                                            "    y = 2\n"
                                            "    ^\n");
  CHECK(firstErrorLine("if x: pass\n    y = 2\n") == "test.py:2:5: error: unexpected indent");
  CHECK(parseError("def f():\n    if x:\n        y = 1\n      z = 2\n") ==
        "test.py:4:7: error: unindent does not match any outer indentation level\n"
        "      z = 2\n"
        "      ^\n");
  CHECK(parseError("for i in range(3):\nprint(i)\n") ==
        "test.py:2:1: error: expected an indented block\n"
        "print(i)\n"
        "^\n");
  // At the end of the input, located after the colon.
  CHECK(firstErrorLine("def f():\n    if x:\n") ==
        "test.py:2:10: error: expected an indented block");
}

TEST_CASE("unterminated strings and unbalanced brackets", "[frontend][errors]") {
  CHECK(parseError("x = 1\nmsg = 'hello\n") == "test.py:2:7: error: unterminated string literal\n"
                                               "msg = 'hello\n"
                                               "      ^\n");
  CHECK(firstErrorLine("s = rb\"abc\n") == "test.py:1:5: error: unterminated string literal");
  CHECK(firstErrorLine("def f():\n    \"\"\"doc\n    x = 1\n") ==
        "test.py:2:5: error: unterminated triple-quoted string literal");
  CHECK(firstErrorLine("x = (1, 2]\n") == "test.py:1:10: error: closing parenthesis ']' does not "
                                          "match opening parenthesis '('");
  CHECK(firstErrorLine("x = [1,\n 2)\n") == "test.py:2:3: error: closing parenthesis ')' does "
                                            "not match opening parenthesis '[' on line 1");
  CHECK(firstErrorLine("x = 1)\n") == "test.py:1:6: error: unmatched ')'");
  CHECK(firstErrorLine("y = 0\nx = tl.load(ptr,\ny = 2\n") ==
        "test.py:2:12: error: '(' was never closed");
  CHECK(firstErrorLine("x = 3 $ 4\n") == "test.py:1:7: error: invalid character '$'");
  CHECK(firstErrorLine("x = a \\ b\n") ==
        "test.py:1:7: error: unexpected character after line continuation character");
}

TEST_CASE("the first error in the source wins", "[frontend][errors]") {
  // A syntax error before a lexical one is reported...
  CHECK(firstErrorLine("def f(x)\n    y = 'abc\n") == "test.py:1:9: error: expected ':'");
  // ...except that a plain "invalid syntax" gives way to a malformed token later on, and to a
  // bracket left open on an earlier line, as in CPython.
  CHECK(firstErrorLine("x = = 1\ny = 'abc\n") == "test.py:2:5: error: unterminated string literal");
  CHECK(firstErrorLine("x = foo(a,\ny = 2\n") == "test.py:1:8: error: '(' was never closed");
  CHECK(firstErrorLine("x = (a b\n") == "test.py:1:8: error: invalid syntax");
  // A lexical error before a syntax error is reported.
  CHECK(firstErrorLine("s = 'abc\nx = = 1\n") == "test.py:1:5: error: unterminated string literal");
}

TEST_CASE("checks CPython makes beyond the grammar", "[frontend][errors]") {
  CHECK(firstErrorLine("f() = 1\n") == "test.py:1:1: error: cannot assign to function call "
                                       "here. Maybe you meant '==' instead of '='?");
  CHECK(firstErrorLine("x, 1 = y\n") ==
        "test.py:1:4: error: cannot assign to literal here. Maybe you meant '==' instead of '='?");
  CHECK(firstErrorLine("for f() in x:\n    pass\n") ==
        "test.py:1:5: error: cannot assign to function call");
  CHECK(firstErrorLine("del f()\n") == "test.py:1:5: error: cannot delete function call");
  CHECK(firstErrorLine("(a, b) += 1\n") ==
        "test.py:1:1: error: 'tuple' is an illegal expression for augmented assignment");
  CHECK(firstErrorLine("a, b: int\n") ==
        "test.py:1:1: error: only single target (not tuple) can be annotated");
  CHECK(firstErrorLine("f(a=1, b)\n") ==
        "test.py:1:8: error: positional argument follows keyword argument");
  CHECK(firstErrorLine("f(**k, b)\n") ==
        "test.py:1:8: error: positional argument follows keyword argument unpacking");
  CHECK(firstErrorLine("f(a.b=1)\n") ==
        "test.py:1:3: error: expression cannot contain assignment, perhaps you meant \"==\"?");
  CHECK(firstErrorLine("f(a=1, a=2)\n") == "test.py:1:8: error: keyword argument repeated: a");
  CHECK(firstErrorLine("f(x for x in y, 1)\n") ==
        "test.py:1:3: error: Generator expression must be parenthesized");
  CHECK(firstErrorLine("def f(a=1, b):\n    pass\n") ==
        "test.py:1:12: error: non-default argument follows default argument");
  CHECK(firstErrorLine("def f(a, a):\n    pass\n") ==
        "test.py:1:10: error: duplicate argument 'a' in function definition");
  CHECK(firstErrorLine("def f(*):\n    pass\n") ==
        "test.py:1:7: error: named arguments must follow bare *");
  CHECK(firstErrorLine("def f(**k, a):\n    pass\n") ==
        "test.py:1:12: error: arguments cannot follow var-keyword argument");
  CHECK(firstErrorLine("return 1\n") == "test.py:1:1: error: 'return' outside function");
  CHECK(firstErrorLine("def f():\n    break\n") == "test.py:2:5: error: 'break' outside loop");
  CHECK(firstErrorLine("for x in y:\n    def g():\n        continue\n") ==
        "test.py:3:9: error: 'continue' not properly in loop");
  CHECK(firstErrorLine("x = *a\n") == "test.py:1:5: error: can't use starred expression here");
  CHECK(firstErrorLine("d = {1: 2, 3}\n") ==
        "test.py:1:12: error: ':' expected after dictionary key");
  CHECK(firstErrorLine("s = b'a' 'b'\n") ==
        "test.py:1:5: error: cannot mix bytes and nonbytes literals");
  CHECK(firstErrorLine("try:\n    pass\nexcept:\n    pass\nexcept E:\n    pass\n") ==
        "test.py:3:1: error: default 'except:' must be last");
  CHECK(firstErrorLine("yield 1\n") == "test.py:1:1: error: 'yield' outside function");
  CHECK(firstErrorLine("await x\n") == "test.py:1:1: error: 'await' outside function");
  CHECK(firstErrorLine("def f():\n    await x\n") ==
        "test.py:2:5: error: 'await' outside async function");
  CHECK(firstErrorLine("async def f():\n    g = lambda: await x\n") ==
        "test.py:2:17: error: 'await' outside async function");
  CHECK(firstErrorLine("def f():\n    async for x in y:\n        pass\n") ==
        "test.py:2:5: error: 'async for' outside async function");
  CHECK(firstErrorLine("def f():\n    return [x async for x in y]\n") ==
        "test.py:2:15: error: asynchronous comprehension outside of an asynchronous function");
  // ...but an asynchronous generator expression is allowed anywhere.
  CHECK(firstErrorLine("def f():\n    return (await x async for x in y)\n") == "<no error>");
}

TEST_CASE("nesting is bounded, so that deep input cannot overflow the stack",
          "[frontend][errors]") {
  auto repeat = [](const std::string &text, int times) {
    std::string out;
    for (int i = 0; i < times; ++i)
      out += text;
    return out;
  };
  // Up to CPython's limit of 200 brackets...
  CHECK(firstErrorLine("x = " + repeat("(", 200) + "1" + repeat(")", 200) + "\n") == "<no error>");
  CHECK(firstErrorLine("x = " + repeat("[", 201) + repeat("]", 201) + "\n") ==
        "test.py:1:205: error: too many nested parentheses");
  // ...and of 100 indentation levels, the module level included.
  std::string blocks;
  for (int level = 0; level <= 100; ++level)
    blocks += std::string(level, ' ') + "if x:\n";
  CHECK(firstErrorLine(blocks + std::string(101, ' ') + "pass\n") ==
        "test.py:101:101: error: too many levels of indentation");
  // Chains the lexer does not see: unary operators, powers, conditional expressions...
  CHECK(firstErrorLine("x = " + repeat("-", 3000) + "1\n") == "<no error>");
  CHECK(firstErrorLine("x = " + repeat("-", 5000) + "1\n")
            .find("error: expression is too deeply nested") != std::string::npos);
  CHECK(firstErrorLine("x = " + repeat("not ", 5000) + "1\n")
            .find("error: expression is too deeply nested") != std::string::npos);
  CHECK(firstErrorLine("x = " + repeat("2 ** ", 3000) + "1\n")
            .find("error: expression is too deeply nested") != std::string::npos);
  // ...and left-nested ones, which the parser builds in a loop.
  CHECK(firstErrorLine("x = a" + repeat(".b", 2000) + "\n") == "<no error>");
  CHECK(firstErrorLine("x = a" + repeat(" + a", 10000) + "\n") ==
        "test.py:1:5: error: expression is too deeply nested");
  CHECK(firstErrorLine("x = a" + repeat("[0]", 10000) + "\n") ==
        "test.py:1:5: error: expression is too deeply nested");
  CHECK(firstErrorLine("if a:\n    pass\n" + repeat("elif a:\n    pass\n", 4000)) ==
        "test.py:1:1: error: too many 'elif' clauses");
}

TEST_CASE("literals the compiler cannot represent", "[frontend][errors]") {
  // Integers beyond 64 bits parse (host code may use them) as Unsupported nodes, which sema
  // rejects only inside a kernel.
  CHECK(firstErrorLine("N = 1 << 70\nBIG = 18446744073709551616\nM = 0x1_0000_0000_0000_0000\n") ==
        "<no error>");
  CHECK(firstErrorLine("s = '\\x4'\n") == "test.py:1:5: error: truncated \\xXX escape");
  CHECK(firstErrorLine("x = 1\ny = '\xff'\n") ==
        "test.py:2:6: error: invalid UTF-8 in source file");
}

TEST_CASE("errors go to the diagnostic stream and into CompileError", "[frontend][errors]") {
  tilec::SourceManager sources;
  std::ostringstream diagnostics;
  sources.setDiagnosticStream(&diagnostics);
  uint32_t file = sources.addFile("kernel.tl", "@triton.jit\ndef k(x):\n    x = (1 +\n");
  CHECK_THROWS_AS(tilec::parseModule(sources, file), tilec::CompileError);
  CHECK(diagnostics.str() == "kernel.tl:3:9: error: '(' was never closed\n"
                             "    x = (1 +\n"
                             "        ^\n");
}
