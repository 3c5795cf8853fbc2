// ast::print, the tree `tilec --emit ast` shows, and the operator spellings.
#include "TestUtil.h"

#include <catch2/catch.hpp>

using namespace tilec;

TEST_CASE("the AST prints as an indented tree with locations", "[frontend][printer]") {
  const char *source = R"PY(import triton.language as tl

@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr = 128):
    """Doubles x."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = 0 <= offs < n
    if BLOCK > 64:
        x = tl.load(x_ptr + offs[:, None], mask=mask, other=-1.5)
    elif not mask:
        x = x_ptr[::2]
    else:
        x = [1, 2] if n else (3,)
    for i in range(4):
        x **= 2
    return x
)PY";
  CHECK(test::parseAndPrint(source) == R"(Module
  Import <1:1>
    Alias triton.language as tl <1:8>
  FunctionDef kernel <4:1>
    decorator: Attribute .jit <3:2>
      Name triton <3:2>
    Param x_ptr <4:12>
    Param n <4:19>
    Param BLOCK <4:22>
      annotation: Attribute .constexpr <4:29>
        Name tl <4:29>
      default: IntLit 128 <4:44>
    body:
      ExprStmt <5:5>
        StringLit "Doubles x." <5:5>
      Assign <6:5>
        target: Name offs <6:5>
        value: BinOp + <6:12>
          BinOp * <6:12>
            Call <6:12>
              func: Attribute .program_id <6:12>
                Name tl <6:12>
              arg: IntLit 0 <6:26>
            Name BLOCK <6:31>
          Call <6:39>
            func: Attribute .arange <6:39>
              Name tl <6:39>
            arg: IntLit 0 <6:49>
            arg: Name BLOCK <6:52>
      Assign <7:5>
        target: Name mask <7:5>
        value: Compare <=, < <7:12>
          IntLit 0 <7:12>
          Name offs <7:17>
          Name n <7:24>
      If <8:5>
        test: Compare > <8:8>
          Name BLOCK <8:8>
          IntLit 64 <8:16>
        body:
          Assign <9:9>
            target: Name x <9:9>
            value: Call <9:13>
              func: Attribute .load <9:13>
                Name tl <9:13>
              arg: BinOp + <9:21>
                Name x_ptr <9:21>
                Subscript <9:29>
                  value: Name offs <9:29>
                  index: Tuple <9:34>
                    Slice <9:34>
                      lower: <none>
                      upper: <none>
                      step: <none>
                    NoneLit <9:37>
              keyword mask: Name mask <9:49>
              keyword other: UnaryOp - <9:61>
                FloatLit 1.5 <9:62>
        orelse:
          If <10:5>
            test: UnaryOp not <10:10>
              Name mask <10:14>
            body:
              Assign <11:9>
                target: Name x <11:9>
                value: Subscript <11:13>
                  value: Name x_ptr <11:13>
                  index: Slice <11:19>
                    lower: <none>
                    upper: <none>
                    step: IntLit 2 <11:21>
            orelse:
              Assign <13:9>
                target: Name x <13:9>
                value: IfExp <13:13>
                  body: List <13:13>
                    IntLit 1 <13:14>
                    IntLit 2 <13:17>
                  test: Name n <13:23>
                  orelse: Tuple <13:30>
                    IntLit 3 <13:31>
      For <14:5>
        target: Name i <14:9>
        iter: Call <14:14>
          func: Name range <14:14>
          arg: IntLit 4 <14:20>
        body:
          AugAssign **= <15:9>
            target: Name x <15:9>
            value: IntLit 2 <15:15>
      Return <16:5>
        value: Name x <16:12>
)");
}

TEST_CASE("strings print escaped, one node per line", "[frontend][printer]") {
  std::string printed = test::parseAndPrint("s = 'a\\nb\\t\"c\"'\nf = f'{x}\\n'\n");
  CHECK(printed.find(R"(value: StringLit "a\nb\t\"c\"" <1:5>)") != std::string::npos);
  CHECK(printed.find(R"(value: StringLit (f-string) "f'{x}\\n'" <2:5>)") != std::string::npos);
}

TEST_CASE("operators spell as in Python", "[frontend][printer]") {
  CHECK(std::string(ast::spelling(ast::BinaryOperator::FloorDiv)) == "//");
  CHECK(std::string(ast::spelling(ast::BinaryOperator::Pow)) == "**");
  CHECK(std::string(ast::spelling(ast::BinaryOperator::MatMul)) == "@");
  CHECK(std::string(ast::spelling(ast::BinaryOperator::BitXor)) == "^");
  CHECK(std::string(ast::spelling(ast::BinaryOperator::RShift)) == ">>");
  CHECK(std::string(ast::spelling(ast::UnaryOperator::Invert)) == "~");
  CHECK(std::string(ast::spelling(ast::UnaryOperator::Not)) == "not");
  CHECK(std::string(ast::spelling(ast::CompareOperator::IsNot)) == "is not");
  CHECK(std::string(ast::spelling(ast::CompareOperator::NotIn)) == "not in");
  CHECK(std::string(ast::spelling(ast::CompareOperator::Ge)) == ">=");
  CHECK(std::string(ast::spelling(ast::BoolOperator::And)) == "and");
  CHECK(std::string(ast::spelling(ast::BoolOperator::Or)) == "or");
}
