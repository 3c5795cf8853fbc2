// The abstract syntax tree of a kernel source file.
//
// The parser accepts any Python 3 module (a Triton .py file with PyTorch host code around its
// kernels compiles in place), but only `@triton.jit` functions and module-level constants are ever
// analysed. So the AST models the statements and expressions that kernels use precisely, and keeps
// everything else as an `Unsupported*` node that remembers what it was and where: sema reports
// "not supported yet" if such a node is reached inside a kernel and ignores it elsewhere.
//
// Nodes own their children through unique_ptr. Every node has the location of its first token.
#pragma once

#include "frontend/SourceManager.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind {
  Name,          // x
  IntLit,        // 42, 0x10 (arbitrary precision is not needed: kernels use 64-bit values)
  FloatLit,      // 1.0, 1e-5
  BoolLit,       // True / False
  NoneLit,       // None
  StringLit,     // "abc", f-strings are kept as their raw text with `isFString`
  Attribute,     // value.attr
  Subscript,     // value[index]          (index may be a Tuple, Slice or None literal)
  Slice,         // lower:upper:step      (only inside a Subscript)
  Call,          // func(args, name=kw)
  BinOp,         // a + b
  UnaryOp,       // -a, ~a, not a, +a
  Compare,       // a < b, chains `a < b < c` keep all operands
  BoolOp,        // a and b and c
  IfExp,         // a if cond else b
  Tuple,         // (a, b) or a, b
  List,          // [a, b]; a set display {a, b} is one named "set"
  Comprehension, // [e for x in xs if c] (boolValue: a list) or (e for x in xs) (a generator)
  NamedExpr,     // target := value (name: the target, operands[0]: the value)
  Dict,          // {k0: v0, **m, k1: v1} (operands: k0, v0, null, m, k1, v1)
  Lambda,        // lambda params: body (lambda: a FunctionDef "<lambda>" returning the body)
  Unsupported,   // set, comprehensions of both, await, yield, starred...: kept by name
};

/// The name of the Unsupported expression that `...` (Ellipsis) parses to: a bare `...` statement
/// is a `pass`, and sema refuses it elsewhere in a kernel as Triton does.
inline constexpr const char *kEllipsis = "ellipsis";

enum class BinaryOperator {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, LShift, RShift, BitAnd, BitOr, BitXor
};
enum class UnaryOperator { Neg, Pos, Invert, Not };
enum class CompareOperator { Lt, Le, Gt, Ge, Eq, Ne, Is, IsNot, In, NotIn };
enum class BoolOperator { And, Or };

/// Python spelling of an operator ("+", "//", "is not", ...), for messages and the AST printer.
const char *spelling(BinaryOperator op);
const char *spelling(UnaryOperator op);
const char *spelling(CompareOperator op);
const char *spelling(BoolOperator op);

struct Keyword {
  std::string name; // empty for `**kwargs`
  ExprPtr value;
  SourceLoc loc;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;

  // Payloads; which ones are meaningful depends on `kind` (see the comments on ExprKind).
  std::string name;    // Name: identifier; Attribute: attribute name; Unsupported: what it was
  int64_t intValue = 0;     // IntLit
  bool intIsUint64 = false; // IntLit: intValue holds the bits of a literal in [2^63, 2^64)
  double floatValue = 0.0;  // FloatLit
  bool boolValue = false;   // BoolLit
  std::string stringValue;  // StringLit: the decoded text
  bool isFString = false;   // StringLit

  BinaryOperator binOp = BinaryOperator::Add;
  UnaryOperator unaryOp = UnaryOperator::Neg;
  BoolOperator boolOp = BoolOperator::And;
  std::vector<CompareOperator> compareOps; // Compare: one per operand after the first

  /// Children:
  ///  Attribute: [value]          Subscript: [value, index]      Slice: [lower?, upper?, step?]
  ///  Call: [func, positional...]  BinOp/UnaryOp: operands         Compare/BoolOp: operands
  ///  IfExp: [body, test, orelse]  Tuple/List: elements
  ///  Comprehension: [element, then per `for` clause its target, its iterable and its
  ///  condition (the clause's `if`s joined by `and`; null without one)]
  /// Slice keeps three entries and uses null for an omitted part.
  std::vector<ExprPtr> operands;
  std::vector<Keyword> keywords; // Call only

  /// Lambda: the function it makes, a FunctionDef named "<lambda>" whose body returns the
  /// lambda's expression, so that it is called as any Python function of the module is.
  std::shared_ptr<Stmt> lambda;

  /// StringLit with isFString: the literal text around its replacement fields (one more than
  /// the fields), and per field its conversion ('s', 'r', 'a', or 0 for none) and its format
  /// spec as written, with the spec as an f-string of its own where it holds replacement fields
  /// (`{x:>{width}}`; else null); the fields' expressions are `operands`.
  std::vector<std::string> fstringLiterals;
  std::vector<char> fstringConversions;
  std::vector<std::string> fstringSpecs;
  std::vector<ExprPtr> fstringSpecFields;

  Expr(ExprKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
};

/// Whether `pred` holds for `expr` or for an expression inside it (operands and keyword values,
/// recursively, in order; a lambda's body is a statement and is not entered). Stops at the first.
template <typename Predicate> bool anySubexpression(const Expr &expr, const Predicate &pred) {
  if (pred(expr))
    return true;
  for (const ExprPtr &operand : expr.operands)
    if (operand && anySubexpression(*operand, pred))
      return true;
  for (const Keyword &keyword : expr.keywords)
    if (keyword.value && anySubexpression(*keyword.value, pred))
      return true;
  return false;
}

/// Calls `visit` on `expr` and on every expression inside it, as anySubexpression walks them.
template <typename Visitor> void forEachSubexpression(const Expr &expr, const Visitor &visit) {
  anySubexpression(expr, [&](const Expr &e) {
    visit(e);
    return false;
  });
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind {
  FunctionDef, // def name(params): body          with its decorators
  Return,      // return [value]
  Assign,      // a = b = value                   (targets may be tuples: a, b = ...)
  AugAssign,   // a += value
  AnnAssign,   // a: ann [= value]
  ExprStmt,    // a call, a docstring...
  If,          // if/elif/else                    (elif is an If inside orelse)
  For,         // for target in iter: body [else]
  While,       // while test: body [else]
  Break,
  Continue,
  Pass,
  Import,      // import a.b as c, d
  ImportFrom,  // from a.b import c as d
  Assert,      // assert test, msg
  Match,       // match value: cases             (Python 3.10)
  Unsupported, // class, with, try, raise, del, global, nonlocal, async..., kept by name
};

struct Param {
  std::string name;
  ExprPtr annotation; // null when absent
  ExprPtr defaultValue; // null when absent
  SourceLoc loc;
  bool isVarArgs = false;   // *args
  bool isKwArgs = false;    // **kwargs
  bool isKeywordOnly = false; // after a bare `*` or *args
};

struct ImportAlias {
  std::string name;   // dotted: "triton.language"
  std::string asName; // empty when there is no `as`
  SourceLoc loc;
};

/// One `except` clause of a try statement.
struct ExceptHandler {
  ExprPtr type;     // the exception class or tuple of classes; null for a bare `except:`
  std::string name; // `as NAME`, empty when absent
  StmtList body;
  SourceLoc loc;
};

//===----------------------------------------------------------------------===//
// Patterns of match statements
//===----------------------------------------------------------------------===//

enum class PatternKind {
  Value,     // 1, -2.5, "s", a.b          (value: the literal or dotted name, compared with ==)
  Singleton, // None, True, False          (value: the literal, compared with `is`)
  Capture,   // x, or the wildcard _       (name; empty for _)
  Star,      // *rest in a sequence        (name; empty for *_)
  As,        // pattern as name            (patterns[0], name)
  Or,        // p | q | r                  (patterns)
  Sequence,  // [p, *q], (p, q), p, q      (patterns, at most one Star)
  Mapping,   // {k: p, **rest}             (keys, patterns; name: the ** target, may be empty)
  Class,     // C(p, x=q)                  (value: the class; patterns positional;
             //                             keywordNames with keywordPatterns)
};

struct Pattern;
using PatternPtr = std::unique_ptr<Pattern>;

struct Pattern {
  PatternKind kind;
  SourceLoc loc;
  ExprPtr value;
  std::string name;
  std::vector<PatternPtr> patterns;
  std::vector<ExprPtr> keys;
  std::vector<std::string> keywordNames;
  std::vector<PatternPtr> keywordPatterns;

  Pattern(PatternKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
};

/// Appends the names `pattern` binds when it matches (captures, `as` targets, stars and a
/// mapping's `**rest`; the alternatives of an `|` all bind the same ones).
inline void patternNames(const Pattern &pattern, std::vector<std::string> &names) {
  if (!pattern.name.empty())
    names.push_back(pattern.name);
  if (pattern.kind == PatternKind::Or) {
    patternNames(*pattern.patterns[0], names);
    return;
  }
  for (const PatternPtr &inner : pattern.patterns)
    patternNames(*inner, names);
  for (const PatternPtr &inner : pattern.keywordPatterns)
    patternNames(*inner, names);
}

/// One `case pattern if guard: body` of a match statement.
struct MatchCase {
  PatternPtr pattern;
  ExprPtr guard; // null without `if`
  StmtList body;
  SourceLoc loc;
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;

  // FunctionDef
  std::string name;               // FunctionDef: function name; Unsupported: what it was
  std::vector<ExprPtr> decorators; // the expressions after each @
  std::vector<Param> params;
  ExprPtr returns;                // `-> annotation`, may be null

  // Assign: targets (one per `=`), value.  AugAssign: targets[0] op= value.
  // AnnAssign: targets[0] : annotation [= value]. The Unsupported "class definition": targets[0]
  // is the class's name, value (when it has bases) a Call whose operands are its bases (it has
  // no callee).
  std::vector<ExprPtr> targets;
  ExprPtr value;        // Assign/AugAssign/AnnAssign/Return/ExprStmt; Assert: message
  ExprPtr annotation;   // AnnAssign
  BinaryOperator augOp = BinaryOperator::Add;

  // If/While: test, body, orelse.  For: targets[0] in iter, body, orelse.  Assert: test.
  ExprPtr test;
  ExprPtr iter;
  StmtList body;   // FunctionDef, If, For, While, and Unsupported compound statements
  StmtList orelse;

  // The Unsupported "try statement": body is the try block, orelse its `else`; these are its
  // `except` clauses and `finally` block. Only Python functions evaluated at module level run
  // them (a kernel has no exceptions).
  std::vector<ExceptHandler> handlers;
  StmtList finalbody;

  // The Unsupported "with statement": the context manager expressions, in order (a kernel
  // evaluates them first, as Triton's code generator does, for its diagnostics).
  std::vector<ExprPtr> withItems;
  // Parallel to withItems: each item's `as` target, null where it has none.
  std::vector<ExprPtr> withTargets;

  // Match: value is the subject, these its cases in order.
  std::vector<MatchCase> cases;

  // Import / ImportFrom
  std::string module; // ImportFrom: the dotted module name, with leading dots for relative ones
  std::vector<ImportAlias> names;

  Stmt(StmtKind kind, SourceLoc loc) : kind(kind), loc(loc) {}
};

struct Module {
  uint32_t file = 0; // the SourceManager index of the file this module was parsed from
  StmtList body;
};

/// Prints the AST as an indented tree, one node per line, with locations (`--emit ast`).
std::string print(const Module &module);

} // namespace tilec::ast
