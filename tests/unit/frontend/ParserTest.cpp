// The parser: the AST shapes it builds from kernels, and the Python it accepts around them.
#include "TestUtil.h"

#include <catch2/catch.hpp>
#include <climits>

using namespace tilec;
using ast::ExprKind;
using ast::StmtKind;

namespace {

std::unique_ptr<ast::Module> parse(const std::string &source) {
  SourceManager sources;
  sources.setDiagnosticStream(nullptr);
  return parseModule(sources, sources.addFile("test.py", source));
}

/// The value of the single expression statement (or assignment) that `source` is.
ast::ExprPtr parseExpr(const std::string &source) {
  std::unique_ptr<ast::Module> module = parse(source + "\n");
  REQUIRE(module->body.size() == 1);
  return std::move(module->body[0]->value);
}

std::string locOf(const SourceLoc &loc) {
  return std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

// The vector-add kernel of the seed document 004 (around its line 198), comments included.
const char *addKernel = R"PY(import triton
import triton.language as tl
import torch

# 向量加法
@triton.jit
def add_kernel(
    x_ptr,      # 输入张量 X 的指针
    y_ptr,      # 输入张量 Y 的指针
    output_ptr, # 输出张量的指针
    n_elements, # 元素数量
    BLOCK_SIZE: tl.constexpr,  # 编译时常量
):
    # 获取当前程序实例的 ID (类似 blockIdx)
    pid = tl.program_id(axis=0)

    # 计算该实例负责的元素范围
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)

    # 创建 mask 处理边界
    mask = offsets < n_elements

    # 加载数据
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)

    # 计算
    output = x + y

    # 存储结果
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    output = torch.empty_like(x)
    n_elements = output.numel()

    # 计算 grid 大小
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']),)

    # 启动 kernel
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)

    return output
)PY";

} // namespace

TEST_CASE("the seed's add_kernel parses into the expected AST", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module = parse(addKernel);
  REQUIRE(module->body.size() == 5);

  const ast::Stmt &import = *module->body[1];
  REQUIRE(import.kind == StmtKind::Import);
  REQUIRE(import.names.size() == 1);
  CHECK(import.names[0].name == "triton.language");
  CHECK(import.names[0].asName == "tl");

  const ast::Stmt &kernel = *module->body[3];
  REQUIRE(kernel.kind == StmtKind::FunctionDef);
  CHECK(kernel.name == "add_kernel");
  CHECK(locOf(kernel.loc) == "7:1");
  REQUIRE(kernel.decorators.size() == 1);
  const ast::Expr &jit = *kernel.decorators[0];
  CHECK(jit.kind == ExprKind::Attribute);
  CHECK(jit.name == "jit");
  CHECK(jit.operands[0]->name == "triton");
  CHECK(locOf(jit.loc) == "6:2");

  REQUIRE(kernel.params.size() == 5);
  CHECK(kernel.params[0].name == "x_ptr");
  CHECK(kernel.params[0].annotation == nullptr);
  CHECK(locOf(kernel.params[3].loc) == "11:5");
  const ast::Param &blockSize = kernel.params[4];
  CHECK(blockSize.name == "BLOCK_SIZE");
  REQUIRE(blockSize.annotation);
  CHECK(blockSize.annotation->kind == ExprKind::Attribute);
  CHECK(blockSize.annotation->name == "constexpr");

  REQUIRE(kernel.body.size() == 8);
  // pid = tl.program_id(axis=0)
  const ast::Stmt &pid = *kernel.body[0];
  REQUIRE(pid.kind == StmtKind::Assign);
  CHECK(pid.targets[0]->name == "pid");
  const ast::Expr &programId = *pid.value;
  REQUIRE(programId.kind == ExprKind::Call);
  CHECK(programId.operands.size() == 1); // the callee only
  CHECK(programId.operands[0]->name == "program_id");
  REQUIRE(programId.keywords.size() == 1);
  CHECK(programId.keywords[0].name == "axis");
  CHECK(programId.keywords[0].value->intValue == 0);
  CHECK(locOf(programId.keywords[0].loc) == "15:25");

  // mask = offsets < n_elements
  const ast::Expr &mask = *kernel.body[3]->value;
  REQUIRE(mask.kind == ExprKind::Compare);
  CHECK(mask.compareOps == std::vector<ast::CompareOperator>{ast::CompareOperator::Lt});

  // tl.store(output_ptr + offsets, output, mask=mask): an expression statement.
  const ast::Stmt &store = *kernel.body[7];
  REQUIRE(store.kind == StmtKind::ExprStmt);
  REQUIRE(store.value->kind == ExprKind::Call);
  REQUIRE(store.value->operands.size() == 3);
  CHECK(store.value->operands[1]->kind == ExprKind::BinOp);
  CHECK(store.value->operands[1]->binOp == ast::BinaryOperator::Add);
  CHECK(store.value->keywords[0].name == "mask");
  CHECK(locOf(store.loc) == "32:5");

  // The host function: annotations, a lambda, a launch with a subscript.
  const ast::Stmt &host = *module->body[4];
  CHECK(host.kind == StmtKind::FunctionDef);
  REQUIRE(host.returns);
  CHECK(host.returns->name == "Tensor");
  CHECK(host.body[2]->value->kind == ExprKind::Lambda);
  const ast::Expr &launch = *host.body[3]->value;
  REQUIRE(launch.kind == ExprKind::Call);
  CHECK(launch.operands[0]->kind == ExprKind::Subscript);
  CHECK(launch.keywords[0].name == "BLOCK_SIZE");
  CHECK(host.body[4]->kind == StmtKind::Return);
}

TEST_CASE("subscripts: slices, None and tuples of them", "[frontend][parser]") {
  // x[:, None]
  ast::ExprPtr column = parseExpr("x[:, None]");
  REQUIRE(column->kind == ExprKind::Subscript);
  const ast::Expr &index = *column->operands[1];
  REQUIRE(index.kind == ExprKind::Tuple);
  REQUIRE(index.operands.size() == 2);
  const ast::Expr &all = *index.operands[0];
  REQUIRE(all.kind == ExprKind::Slice);
  REQUIRE(all.operands.size() == 3);
  CHECK(!all.operands[0]);
  CHECK(!all.operands[1]);
  CHECK(!all.operands[2]);
  CHECK(index.operands[1]->kind == ExprKind::NoneLit);

  ast::ExprPtr row = parseExpr("offs_n[None, :]");
  CHECK(row->operands[1]->operands[0]->kind == ExprKind::NoneLit);
  CHECK(row->operands[1]->operands[1]->kind == ExprKind::Slice);

  ast::ExprPtr stepped = parseExpr("a[1:n:2]");
  const ast::Expr &slice = *stepped->operands[1];
  REQUIRE(slice.kind == ExprKind::Slice);
  CHECK(slice.operands[0]->intValue == 1);
  CHECK(slice.operands[1]->name == "n");
  CHECK(slice.operands[2]->intValue == 2);

  ast::ExprPtr reversed = parseExpr("a[::-1]");
  CHECK(!reversed->operands[1]->operands[0]);
  CHECK(!reversed->operands[1]->operands[1]);
  CHECK(reversed->operands[1]->operands[2]->kind == ExprKind::UnaryOp);

  ast::ExprPtr upper = parseExpr("a[:k]");
  CHECK(!upper->operands[1]->operands[0]);
  CHECK(upper->operands[1]->operands[1]->name == "k");

  // A plain index is the expression itself; a trailing comma makes a tuple.
  CHECK(parseExpr("a[i]")->operands[1]->kind == ExprKind::Name);
  CHECK(parseExpr("a[i,]")->operands[1]->kind == ExprKind::Tuple);
  // Chained trailers: calls, subscripts and attributes, left to right.
  ast::ExprPtr chain = parseExpr("ptr.dtype.element_ty");
  CHECK(chain->name == "element_ty");
  CHECK(chain->operands[0]->name == "dtype");
}

TEST_CASE("for loops over range and tl.range", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module =
      parse("for i in range(0, k, bk):\n    acc += i\nelse:\n    pass\n"
            "for a, b in zip(x, y):\n    continue\n");
  const ast::Stmt &loop = *module->body[0];
  REQUIRE(loop.kind == StmtKind::For);
  CHECK(loop.targets[0]->name == "i");
  REQUIRE(loop.iter->kind == ExprKind::Call);
  CHECK(loop.iter->operands[0]->name == "range");
  CHECK(loop.iter->operands.size() == 4);
  REQUIRE(loop.body.size() == 1);
  CHECK(loop.body[0]->kind == StmtKind::AugAssign);
  REQUIRE(loop.orelse.size() == 1);
  CHECK(loop.orelse[0]->kind == StmtKind::Pass);
  // A tuple target.
  const ast::Expr &pair = *module->body[1]->targets[0];
  REQUIRE(pair.kind == ExprKind::Tuple);
  CHECK(pair.operands[1]->name == "b");
}

TEST_CASE("comparisons keep chains and the two-word operators", "[frontend][parser]") {
  ast::ExprPtr chain = parseExpr("0 <= x < n != m");
  REQUIRE(chain->kind == ExprKind::Compare);
  CHECK(chain->operands.size() == 4);
  CHECK(chain->compareOps == std::vector<ast::CompareOperator>{ast::CompareOperator::Le,
                                                               ast::CompareOperator::Lt,
                                                               ast::CompareOperator::Ne});
  CHECK(parseExpr("a not in b")->compareOps[0] == ast::CompareOperator::NotIn);
  CHECK(parseExpr("a is not None")->compareOps[0] == ast::CompareOperator::IsNot);
  CHECK(parseExpr("a is b")->compareOps[0] == ast::CompareOperator::Is);
  CHECK(parseExpr("a in b")->compareOps[0] == ast::CompareOperator::In);
  CHECK(parseExpr("a == b >= c")->compareOps[1] == ast::CompareOperator::Ge);
}

TEST_CASE("operator precedence and associativity follow Python", "[frontend][parser]") {
  // a + b * c: the product binds tighter.
  ast::ExprPtr sum = parseExpr("a + b * c");
  CHECK(sum->binOp == ast::BinaryOperator::Add);
  CHECK(sum->operands[1]->binOp == ast::BinaryOperator::Mul);
  // a - b - c is (a - b) - c.
  ast::ExprPtr difference = parseExpr("a - b - c");
  CHECK(difference->operands[0]->kind == ExprKind::BinOp);
  CHECK(difference->operands[1]->name == "c");
  // a ** b ** c is a ** (b ** c); -x ** 2 is -(x ** 2); 2 ** -1 has a unary exponent.
  ast::ExprPtr power = parseExpr("a ** b ** c");
  CHECK(power->operands[0]->name == "a");
  CHECK(power->operands[1]->binOp == ast::BinaryOperator::Pow);
  ast::ExprPtr negated = parseExpr("-x ** 2");
  CHECK(negated->kind == ExprKind::UnaryOp);
  CHECK(negated->operands[0]->binOp == ast::BinaryOperator::Pow);
  CHECK(parseExpr("2 ** -1")->operands[1]->unaryOp == ast::UnaryOperator::Neg);
  // Bitwise: | below ^ below & below shifts below arithmetic.
  ast::ExprPtr bits = parseExpr("a | b ^ c & d << e + f");
  CHECK(bits->binOp == ast::BinaryOperator::BitOr);
  CHECK(bits->operands[1]->binOp == ast::BinaryOperator::BitXor);
  CHECK(bits->operands[1]->operands[1]->binOp == ast::BinaryOperator::BitAnd);
  CHECK(bits->operands[1]->operands[1]->operands[1]->binOp == ast::BinaryOperator::LShift);
  // Comparisons bind looser than &: (a < b) & (c < d) needs its parentheses.
  ast::ExprPtr masks = parseExpr("(a < b) & (c < d)");
  CHECK(masks->binOp == ast::BinaryOperator::BitAnd);
  CHECK(masks->operands[0]->kind == ExprKind::Compare);
  // Boolean operators: not > and > or, and runs of one operator are flattened.
  ast::ExprPtr logic = parseExpr("not a and b and c or d");
  CHECK(logic->boolOp == ast::BoolOperator::Or);
  CHECK(logic->operands[0]->boolOp == ast::BoolOperator::And);
  CHECK(logic->operands[0]->operands.size() == 3);
  CHECK(logic->operands[0]->operands[0]->unaryOp == ast::UnaryOperator::Not);
  // Each operator spelling.
  CHECK(parseExpr("a // b")->binOp == ast::BinaryOperator::FloorDiv);
  CHECK(parseExpr("a % b")->binOp == ast::BinaryOperator::Mod);
  CHECK(parseExpr("a @ b")->binOp == ast::BinaryOperator::MatMul);
  CHECK(parseExpr("a / b")->binOp == ast::BinaryOperator::Div);
  CHECK(parseExpr("a >> b")->binOp == ast::BinaryOperator::RShift);
  CHECK(parseExpr("~a")->unaryOp == ast::UnaryOperator::Invert);
  CHECK(parseExpr("+a")->unaryOp == ast::UnaryOperator::Pos);
  // The conditional expression.
  ast::ExprPtr choice = parseExpr("x if c else y");
  REQUIRE(choice->kind == ExprKind::IfExp);
  CHECK(choice->operands[0]->name == "x");
  CHECK(choice->operands[1]->name == "c");
  CHECK(choice->operands[2]->name == "y");
}

TEST_CASE("assignments: chained, tuple, augmented, annotated", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module = parse("a = b = 1\n"
                                              "M, K = a.shape\n"
                                              "acc += tl.dot(a, b)\n"
                                              "x: tl.constexpr = 3\n"
                                              "y: int\n"
                                              "a_ptrs += BLOCK_K * stride_ak\n"
                                              "z //= 2; w <<= 1\n");
  REQUIRE(module->body.size() == 8);
  const ast::Stmt &chained = *module->body[0];
  REQUIRE(chained.kind == StmtKind::Assign);
  CHECK(chained.targets.size() == 2);
  CHECK(chained.targets[1]->name == "b");
  const ast::Stmt &unpack = *module->body[1];
  REQUIRE(unpack.targets[0]->kind == ExprKind::Tuple);
  CHECK(unpack.targets[0]->operands.size() == 2);
  CHECK(unpack.value->kind == ExprKind::Attribute);
  const ast::Stmt &accumulate = *module->body[2];
  REQUIRE(accumulate.kind == StmtKind::AugAssign);
  CHECK(accumulate.augOp == ast::BinaryOperator::Add);
  CHECK(accumulate.value->kind == ExprKind::Call);
  const ast::Stmt &annotated = *module->body[3];
  REQUIRE(annotated.kind == StmtKind::AnnAssign);
  CHECK(annotated.annotation->name == "constexpr");
  CHECK(annotated.value->intValue == 3);
  CHECK(module->body[4]->kind == StmtKind::AnnAssign);
  CHECK(!module->body[4]->value);
  CHECK(module->body[6]->augOp == ast::BinaryOperator::FloorDiv);
  CHECK(module->body[7]->augOp == ast::BinaryOperator::LShift);
}

TEST_CASE("if/elif/else nests elif in orelse", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module = parse("if a:\n    x = 1\nelif b:\n    x = 2\n"
                                              "elif c:\n    x = 3\nelse:\n    x = 4\n");
  REQUIRE(module->body.size() == 1);
  const ast::Stmt &first = *module->body[0];
  REQUIRE(first.kind == StmtKind::If);
  CHECK(first.test->name == "a");
  REQUIRE(first.orelse.size() == 1);
  const ast::Stmt &second = *first.orelse[0];
  REQUIRE(second.kind == StmtKind::If);
  CHECK(second.test->name == "b");
  CHECK(locOf(second.loc) == "3:1");
  REQUIRE(second.orelse.size() == 1);
  const ast::Stmt &third = *second.orelse[0];
  CHECK(third.test->name == "c");
  REQUIRE(third.orelse.size() == 1);
  CHECK(third.orelse[0]->kind == StmtKind::Assign);
  CHECK(third.orelse[0]->value->intValue == 4);
}

TEST_CASE("while, break, continue, pass, assert and docstrings", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module = parse(R"PY(
@triton.jit
def kernel(x):
    """Docstring: the first statement."""
    while x > 0:
        if x == 3:
            break
        x -= 1
        continue
    else:
        pass
    assert x >= 0, "x is negative"
    tl.static_assert(BLOCK % 16 == 0)
    return x
)PY");
  const ast::Stmt &kernel = *module->body[0];
  REQUIRE(kernel.body.size() == 5);
  const ast::Stmt &docstring = *kernel.body[0];
  REQUIRE(docstring.kind == StmtKind::ExprStmt);
  CHECK(docstring.value->kind == ExprKind::StringLit);
  CHECK(docstring.value->stringValue == "Docstring: the first statement.");
  const ast::Stmt &loop = *kernel.body[1];
  REQUIRE(loop.kind == StmtKind::While);
  CHECK(loop.body[0]->body[0]->kind == StmtKind::Break);
  CHECK(loop.body[2]->kind == StmtKind::Continue);
  CHECK(loop.orelse[0]->kind == StmtKind::Pass);
  const ast::Stmt &check = *kernel.body[2];
  REQUIRE(check.kind == StmtKind::Assert);
  CHECK(check.test->kind == ExprKind::Compare);
  CHECK(check.value->stringValue == "x is negative");
  CHECK(kernel.body[4]->kind == StmtKind::Return);
}

TEST_CASE("function parameters: defaults, *args, keyword-only, **kwargs", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module =
      parse("def f(a, b: int = 2, /, c=3, *args, d, e: float = 1.0, **kw) -> None:\n    pass\n"
            "def g(x, *, y):\n    pass\n");
  const std::vector<ast::Param> &params = module->body[0]->params;
  REQUIRE(params.size() == 7); // `/` is a marker, not a parameter
  CHECK(params[0].name == "a");
  CHECK(params[1].annotation->name == "int");
  CHECK(params[1].defaultValue->intValue == 2);
  CHECK(params[2].defaultValue->intValue == 3);
  CHECK(params[3].name == "args");
  CHECK(params[3].isVarArgs);
  CHECK(params[4].name == "d");
  CHECK(params[4].isKeywordOnly);
  CHECK(!params[4].defaultValue);
  CHECK(params[5].isKeywordOnly);
  CHECK(params[5].defaultValue->floatValue == 1.0);
  CHECK(params[6].name == "kw");
  CHECK(params[6].isKwArgs);
  CHECK(module->body[0]->returns->kind == ExprKind::NoneLit);

  const std::vector<ast::Param> &bare = module->body[1]->params;
  REQUIRE(bare.size() == 2);
  CHECK(!bare[0].isKeywordOnly);
  CHECK(bare[1].isKeywordOnly);
}

TEST_CASE("calls: positional, keyword and unpacked arguments", "[frontend][parser]") {
  ast::ExprPtr zeros = parseExpr("tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)");
  REQUIRE(zeros->operands.size() == 2);
  CHECK(zeros->operands[1]->kind == ExprKind::Tuple);
  CHECK(locOf(zeros->operands[1]->loc) == "1:10");
  CHECK(zeros->keywords[0].name == "dtype");
  CHECK(zeros->keywords[0].value->name == "float32");

  ast::ExprPtr unpacked = parseExpr("f(*args, x, key=1, **kw,)");
  REQUIRE(unpacked->operands.size() == 3);
  CHECK(unpacked->operands[1]->name == "starred expression");
  REQUIRE(unpacked->keywords.size() == 2);
  CHECK(unpacked->keywords[1].name.empty()); // **kw
  CHECK(unpacked->keywords[1].value->name == "kw");

  // `.to(dtype, bitcast=True)` on a call result.
  ast::ExprPtr cast = parseExpr("tl.load(p).to(tl.float32, bitcast=True)");
  CHECK(cast->operands[0]->name == "to");
  CHECK(cast->keywords[0].value->boolValue);
  CHECK(parseExpr("f()")->operands.size() == 1);
}

TEST_CASE("literals: numbers in every spelling", "[frontend][parser]") {
  CHECK(parseExpr("1_000")->intValue == 1000);
  CHECK(parseExpr("0x_FF")->intValue == 255);
  CHECK(parseExpr("0o17")->intValue == 15);
  CHECK(parseExpr("0B1010")->intValue == 10);
  CHECK(parseExpr("0")->intValue == 0);
  CHECK(parseExpr("00")->intValue == 0);
  CHECK(parseExpr("9223372036854775807")->intValue == INT64_MAX);
  // The most negative int64 is a negated literal whose magnitude alone does not fit.
  ast::ExprPtr minimum = parseExpr("-9223372036854775808");
  CHECK(minimum->kind == ExprKind::IntLit);
  CHECK(minimum->intValue == INT64_MIN);
  CHECK(parseExpr("-1")->kind == ExprKind::UnaryOp);

  ast::ExprPtr real = parseExpr("1.5e-3");
  CHECK(real->kind == ExprKind::FloatLit);
  CHECK(real->floatValue == 1.5e-3);
  CHECK(parseExpr(".5")->floatValue == 0.5);
  CHECK(parseExpr("5.")->floatValue == 5.0);
  CHECK(parseExpr("1e10")->floatValue == 1e10);
  CHECK(parseExpr("1_0.0_1")->floatValue == 10.01);
  CHECK(parseExpr("float('-inf')")->operands[1]->stringValue == "-inf");
  CHECK(parseExpr("3j")->name == "complex literal");
  CHECK(parseExpr("True")->boolValue);
  CHECK(parseExpr("False")->kind == ExprKind::BoolLit);
  CHECK(parseExpr("None")->kind == ExprKind::NoneLit);
}

TEST_CASE("literals: strings, escapes, prefixes, concatenation", "[frontend][parser]") {
  CHECK(parseExpr(R"('a\tb\n\\\'')")->stringValue == "a\tb\n\\'");
  CHECK(parseExpr(R"("\x41\101\u00e9\U0001F600")")->stringValue == "AA\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(parseExpr(R"(r'\d+\n')")->stringValue == "\\d+\\n");
  CHECK(parseExpr(R"(U"x")")->stringValue == "x");
  // Implicit concatenation, across lines inside parentheses.
  CHECK(parseExpr("('abc' \"def\"\n 'ghi')")->stringValue == "abcdefghi");
  // Triple quotes keep line breaks; a backslash at the end of a line joins it.
  CHECK(parseExpr("'''one\ntwo \\\nthree'''")->stringValue == "one\ntwo three");
  CHECK(parseExpr("\"\"\"He said \"hi\".\"\"\"")->stringValue == "He said \"hi\".");
  // Unknown escapes stay as written.
  CHECK(parseExpr(R"('\q')")->stringValue == "\\q");
  // Chinese text, decoded as UTF-8.
  CHECK(parseExpr("'编译时常量'")->stringValue == "编译时常量");
  // f-strings keep their source text.
  ast::ExprPtr formatted = parseExpr(R"(f"{pid} {op} {threshold!r:>10}")");
  CHECK(formatted->isFString);
  CHECK(formatted->stringValue == R"(f"{pid} {op} {threshold!r:>10}")");
  ast::ExprPtr mixed = parseExpr(R"('a' rf'{b}')");
  CHECK(mixed->isFString);
  CHECK(!parseExpr("'plain'")->isFString);
  CHECK(parseExpr("b'bytes' b'more'")->name == "bytes literal");
}

TEST_CASE("imports in every form", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module = parse("import a.b as c, d\n"
                                              "from . import x\n"
                                              "from ..pkg.mod import (y as z, w,)\n"
                                              "from triton.language import *\n"
                                              "from ... import q\n");
  const ast::Stmt &plain = *module->body[0];
  REQUIRE(plain.kind == StmtKind::Import);
  REQUIRE(plain.names.size() == 2);
  CHECK(plain.names[0].name == "a.b");
  CHECK(plain.names[0].asName == "c");
  CHECK(plain.names[1].name == "d");
  CHECK(plain.names[1].asName.empty());
  CHECK(module->body[1]->kind == StmtKind::ImportFrom);
  CHECK(module->body[1]->module == ".");
  const ast::Stmt &relative = *module->body[2];
  CHECK(relative.module == "..pkg.mod");
  REQUIRE(relative.names.size() == 2);
  CHECK(relative.names[0].name == "y");
  CHECK(relative.names[0].asName == "z");
  CHECK(module->body[3]->names[0].name == "*");
  CHECK(module->body[4]->module == "...");
}

TEST_CASE("constructs the AST does not model are kept by name", "[frontend][parser]") {
  std::unique_ptr<ast::Module> module = parse(R"PY(
class A(Base, metaclass=Meta):
    x = 1
with open(f) as g, lock:
    pass
try:
    pass
except ValueError as e:
    raise RuntimeError("bad") from e
finally:
    pass
del a[0], b
global g
async def h():
    await x
    async with a as b:
        pass
    async for i in y:
        pass
def gen():
    nonlocal_value = yield 1
    yield from other()
)PY");
  std::vector<std::string> names;
  for (const ast::StmtPtr &stmt : module->body)
    names.push_back(stmt->kind == StmtKind::Unsupported ? stmt->name : "<modelled>");
  CHECK(names == std::vector<std::string>{"class definition", "with statement", "try statement",
                                          "del statement", "global statement",
                                          "async function definition", "<modelled>"});
  // Their bodies are kept.
  CHECK(module->body[0]->body[0]->kind == StmtKind::Assign);
  const ast::StmtList &asyncBody = module->body[5]->body;
  CHECK(asyncBody[0]->value->name == "await expression");
  CHECK(asyncBody[1]->name == "async with statement");
  CHECK(asyncBody[2]->name == "async for statement");
  CHECK(module->body[6]->body[0]->value->name == "yield expression");

  // A lambda is a function "<lambda>" that returns its expression.
  ast::ExprPtr lambda = parseExpr("lambda x, *a, k=1, **kw: x");
  REQUIRE(lambda->kind == ExprKind::Lambda);
  CHECK(lambda->lambda->name == "<lambda>");
  CHECK(lambda->lambda->params.size() == 4);
  CHECK(lambda->lambda->params[2].isKeywordOnly);
  REQUIRE(lambda->lambda->body.size() == 1);
  CHECK(lambda->lambda->body[0]->kind == StmtKind::Return);
  CHECK(lambda->lambda->body[0]->value->name == "x");
  // List comprehensions and generator expressions are modelled (module-level Python runs
  // them): the element, then per `for` its target, iterable and condition (`if`s joined by
  // `and`, null without one).
  ast::ExprPtr comprehension = parseExpr("[x * 2 for x in y if x if z]");
  REQUIRE(comprehension->kind == ExprKind::Comprehension);
  CHECK(comprehension->boolValue);
  REQUIRE(comprehension->operands.size() == 4);
  CHECK(comprehension->operands[3]->kind == ExprKind::BoolOp);
  ast::ExprPtr generator = parseExpr("(a + b for a in x for b in y)");
  REQUIRE(generator->kind == ExprKind::Comprehension);
  CHECK_FALSE(generator->boolValue);
  REQUIRE(generator->operands.size() == 7);
  CHECK(generator->operands[3] == nullptr);
  CHECK(parseExpr("f(x for x in y)")->operands[1]->kind == ExprKind::Comprehension);
  // A dict comprehension: a comprehension named "dict" whose element is the (key, value) pair.
  ast::ExprPtr dict = parseExpr("{k: v for k, v in d.items() if k}");
  REQUIRE(dict->kind == ExprKind::Comprehension);
  CHECK(dict->name == "dict");
  REQUIRE(dict->operands.size() == 4);
  CHECK(dict->operands[0]->kind == ExprKind::Tuple);
  CHECK(dict->operands[0]->operands.size() == 2);
  CHECK(dict->operands[3] != nullptr);
  CHECK(parseExpr("{x for x in y}")->name == "set comprehension");
  // `**mapping` in a dict display is a null key before the mapping.
  ast::ExprPtr unpacking = parseExpr("{'BLOCK_M': 128, **extra}");
  CHECK(unpacking->kind == ExprKind::Dict);
  REQUIRE(unpacking->operands.size() == 4);
  CHECK(unpacking->operands[2] == nullptr);
  CHECK(unpacking->operands[3]->name == "extra");
  ast::ExprPtr empty = parseExpr("{}");
  CHECK(empty->kind == ExprKind::Dict);
  CHECK(empty->operands.empty());
  CHECK(parseExpr("{1, 2, *rest}")->name == "set display");
  ast::ExprPtr walrus = parseExpr("(n := 10)");
  CHECK(walrus->kind == ExprKind::NamedExpr);
  CHECK(walrus->name == "n");
  REQUIRE(walrus->operands.size() == 1);
  CHECK(walrus->operands[0]->intValue == 10);
  CHECK(parseExpr("f(a := g(1))")->operands[1]->kind == ExprKind::NamedExpr);
  CHECK(parseExpr("x[...]")->operands[1]->name == "ellipsis");
  ast::ExprPtr starred = parseExpr("a, *rest = xs");
  CHECK(starred->kind == ExprKind::Name); // the value of the assignment
  ast::ExprPtr list = parseExpr("[1, 2.0, *xs]");
  REQUIRE(list->kind == ExprKind::List);
  CHECK(list->operands[2]->name == "starred expression");
  CHECK(parseExpr("()")->kind == ExprKind::Tuple);
  CHECK(parseExpr("(1,)")->operands.size() == 1);
  // A parenthesized expression is the expression itself.
  CHECK(parseExpr("(a)")->kind == ExprKind::Name);
}

TEST_CASE("host code around kernels parses without error", "[frontend][parser]") {
  // PyTorch-style host code and general Python: none of it is a kernel, all of it must parse.
  const char *hostModule = R"PY(#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Benchmarks for the kernels, 中文说明."""
from __future__ import annotations

import os, sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import torch
import triton
import triton.language as tl

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BLOCK: tl.constexpr = 1024
CONFIGS = [triton.Config({'BLOCK_M': bm, 'BLOCK_N': bn}, num_warps=w)
           for bm in (64, 128) for bn in (32, 64) for w in [4, 8] if bm * bn <= 8192]


@dataclass(frozen=True)
class Result:
    """One measurement."""
    name: str
    ms: float = 0.0
    extra: Dict[str, float] = field(default_factory=dict)

    @property
    def gbps(self) -> float:
        return 2 * self.size * 4 / self.ms * 1e-6 if self.ms else float('nan')

    def __repr__(self):
        return f"Result({self.name!r}, {self.ms:.3f} ms, {len(self.extra)} extras)"


class Runner(object):
    counter = 0

    def __init__(self, *args, verbose=False, **kwargs):
        super().__init__()
        self.fns: List[Callable] = []
        self.verbose, self.cache = verbose, {}
        Runner.counter += 1

    def __call__(self, x, /, y=None, *, scale=1.0):
        with torch.no_grad(), torch.cuda.stream(torch.cuda.Stream()) as s:
            out = torch.empty_like(x)
        try:
            out = x @ y.T if y is not None else x
        except (RuntimeError, ValueError) as error:
            print(f'failed: {error}', file=sys.stderr)
            raise
        else:
            return out * scale
        finally:
            del out

    async def fetch(self, url):
        async with self.session.get(url) as response:
            return await response.json()


def grid(meta):
    return (triton.cdiv(N, meta['BLOCK_SIZE']), 1, 1)


def benchmark(sizes=(2 ** i for i in range(12, 28, 2)), provider: str = 'triton'):
    results = {size: [] for size in sizes}
    squares = {x * x for x in range(10)}
    total = sum(r.ms for rs in results.values() for r in rs)
    quantiles = [0.5, 0.2, 0.8]
    ms, min_ms, max_ms = triton.testing.do_bench(lambda: add(x, y), quantiles=quantiles)
    key = lambda item: (-item[1], item[0])
    ordered = sorted(results.items(), key=key)[::-1]
    first, *rest = ordered or [(None, None)]
    if (n := len(rest)) > 10 and not verbose:
        print("many", n, sep=": ", end="\n")
    elif n == 0:
        pass
    matrix = [[0] * 4 for _ in range(4)]
    matrix[1][2:] = [7, 8]
    text = ('a very long string '
            "continued " \
            r'raw \d' + b'bytes'.decode())
    value = 1 if total > 0 else -1 if total < 0 else 0
    flags = 0x_FF & ~0b1010 | 0o17 ^ 1_000 >> 2 << 1
    x = y = z = None
    x, (y, z) = 1, (2, 3)
    a = b'\x00\xff' + rb'\n'
    globals()['dynamic'] = ...
    return locals()


def gen():
    x = yield
    y = yield from range(3)
    yield x, y


for i, (a, b) in enumerate(zip(range(3), range(3))):
    while True:
        break
    else:
        continue

if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1 << 20)
    args = parser.parse_args()
    benchmark.run(print_data=True, show_plots=False)
)PY";
  std::string printed;
  REQUIRE_NOTHROW(printed = test::parseAndPrint(hostModule));
  CHECK(printed.find("Unsupported class definition <21:1>") != std::string::npos);
  CHECK(printed.find("FunctionDef benchmark") != std::string::npos);
}

TEST_CASE("locations are 1-based lines and columns in characters", "[frontend][parser]") {
  // Three Chinese characters before `y` count as three columns, not nine bytes.
  std::unique_ptr<ast::Module> module = parse("s = '中文字'; y = 1\n");
  CHECK(locOf(module->body[1]->loc) == "1:12");
  CHECK(locOf(module->body[1]->value->loc) == "1:16");
  // A tab is one column. A parenthesized expression starts inside its parentheses, as in
  // CPython's AST; an operation whose first operand is parenthesized starts at the '('.
  std::unique_ptr<ast::Module> nested = parse("def f():\n\tif a:\n\t\treturn (b +\n  c) * d\n");
  const ast::Stmt &ret = *nested->body[0]->body[0]->body[0];
  CHECK(locOf(ret.loc) == "3:3");
  CHECK(locOf(ret.value->loc) == "3:10");
  CHECK(locOf(ret.value->operands[0]->loc) == "3:11");
  CHECK(locOf(ret.value->operands[0]->operands[1]->loc) == "4:3");
}

TEST_CASE("a 35-line matmul kernel parses", "[frontend][parser]") {
  const char *matmulKernel = R"PY(import triton
import triton.language as tl

@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)
)PY";
  // Parse time is measured by the benchmarks, not asserted here (a busy CI machine would make
  // any bound flaky); this checks that a whole Triton matmul kernel parses into one function.
  auto module = parse(matmulKernel);
  REQUIRE(module->body.size() == 3);
  CHECK(module->body[2]->kind == tilec::ast::StmtKind::FunctionDef);
  CHECK(module->body[2]->name == "matmul_kernel");
}
