// The AST as an indented tree, for `tilec --emit ast` and for tests. One node per line:
//
//   FunctionDef add_kernel <3:1>
//     decorator: Attribute .jit <2:2>
//       Name triton <2:2>
//     Param x_ptr <3:16>
//     body:
//       Assign <4:5>
//         target: Name pid <4:5>
//         value: Call <4:11>
//
// A child's role (target, value, test...) prefixes its line where the parent has several kinds
// of children; lists of statements get a `body:` / `orelse:` line of their own.
#include "frontend/AST.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tilec::ast {

const char *spelling(BinaryOperator op) {
  switch (op) {
  case BinaryOperator::Add:
    return "+";
  case BinaryOperator::Sub:
    return "-";
  case BinaryOperator::Mul:
    return "*";
  case BinaryOperator::Div:
    return "/";
  case BinaryOperator::FloorDiv:
    return "//";
  case BinaryOperator::Mod:
    return "%";
  case BinaryOperator::Pow:
    return "**";
  case BinaryOperator::MatMul:
    return "@";
  case BinaryOperator::LShift:
    return "<<";
  case BinaryOperator::RShift:
    return ">>";
  case BinaryOperator::BitAnd:
    return "&";
  case BinaryOperator::BitOr:
    return "|";
  case BinaryOperator::BitXor:
    return "^";
  }
  return "?";
}

const char *spelling(UnaryOperator op) {
  switch (op) {
  case UnaryOperator::Neg:
    return "-";
  case UnaryOperator::Pos:
    return "+";
  case UnaryOperator::Invert:
    return "~";
  case UnaryOperator::Not:
    return "not";
  }
  return "?";
}

const char *spelling(CompareOperator op) {
  switch (op) {
  case CompareOperator::Lt:
    return "<";
  case CompareOperator::Le:
    return "<=";
  case CompareOperator::Gt:
    return ">";
  case CompareOperator::Ge:
    return ">=";
  case CompareOperator::Eq:
    return "==";
  case CompareOperator::Ne:
    return "!=";
  case CompareOperator::Is:
    return "is";
  case CompareOperator::IsNot:
    return "is not";
  case CompareOperator::In:
    return "in";
  case CompareOperator::NotIn:
    return "not in";
  }
  return "?";
}

const char *spelling(BoolOperator op) {
  return op == BoolOperator::And ? "and" : "or";
}

namespace {

/// A string as a Python literal would write it, so that the printed tree stays one node per
/// line whatever the string holds.
std::string quote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20 || c == 0x7F) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
        out += buffer;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

/// The shortest decimal text that reads back as the same double.
std::string formatDouble(double value) {
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

class Printer {
public:
  std::string print(const Module &module) {
    out_ << "Module\n";
    printStmts(module.body, 1);
    return out_.str();
  }

private:
  std::ostringstream out_;

  void line(int depth, const std::string &role, const std::string &text, SourceLoc loc) {
    out_ << std::string(2 * depth, ' ');
    if (!role.empty())
      out_ << role << ": ";
    out_ << text;
    if (loc.isValid())
      out_ << " <" << loc.line << ":" << loc.col << ">";
    out_ << "\n";
  }

  void label(int depth, const std::string &text) {
    out_ << std::string(2 * depth, ' ') << text << ":\n";
  }

  void printStmts(const StmtList &stmts, int depth) {
    for (const StmtPtr &stmt : stmts)
      printStmt(*stmt, depth);
  }

  void printBlock(const char *name, const StmtList &stmts, int depth) {
    if (stmts.empty())
      return;
    label(depth, name);
    printStmts(stmts, depth + 1);
  }

  /// The text of an expression's own line: its kind and payload.
  static std::string describe(const Expr &expr) {
    switch (expr.kind) {
    case ExprKind::Name:
      return "Name " + expr.name;
    case ExprKind::IntLit:
      return "IntLit " + std::to_string(expr.intValue);
    case ExprKind::FloatLit:
      return "FloatLit " + formatDouble(expr.floatValue);
    case ExprKind::BoolLit:
      return expr.boolValue ? "BoolLit True" : "BoolLit False";
    case ExprKind::NoneLit:
      return "NoneLit";
    case ExprKind::StringLit:
      return std::string(expr.isFString ? "StringLit (f-string) " : "StringLit ") +
             quote(expr.stringValue);
    case ExprKind::Attribute:
      return "Attribute ." + expr.name;
    case ExprKind::Subscript:
      return "Subscript";
    case ExprKind::Slice:
      return "Slice";
    case ExprKind::Call:
      return "Call";
    case ExprKind::BinOp:
      return std::string("BinOp ") + spelling(expr.binOp);
    case ExprKind::UnaryOp:
      return std::string("UnaryOp ") + spelling(expr.unaryOp);
    case ExprKind::Compare: {
      std::string text = "Compare ";
      for (size_t i = 0; i < expr.compareOps.size(); ++i)
        text += std::string(i ? ", " : "") + spelling(expr.compareOps[i]);
      return text;
    }
    case ExprKind::BoolOp:
      return std::string("BoolOp ") + spelling(expr.boolOp);
    case ExprKind::IfExp:
      return "IfExp";
    case ExprKind::Tuple:
      return "Tuple";
    case ExprKind::List:
      return "List";
    case ExprKind::Comprehension:
      return expr.boolValue ? "ListComp" : "GeneratorExp";
    case ExprKind::NamedExpr:
      return "NamedExpr " + expr.name;
    case ExprKind::Dict:
      return "Dict";
    case ExprKind::Lambda:
      return "Lambda";
    case ExprKind::Unsupported:
      return "Unsupported " + expr.name;
    }
    return "?";
  }

  /// Roles of the operands of the kinds whose operands are not all alike.
  static const char *operandRole(const Expr &expr, size_t index) {
    static const char *const subscript[] = {"value", "index"};
    static const char *const slice[] = {"lower", "upper", "step"};
    static const char *const ifExp[] = {"body", "test", "orelse"};
    switch (expr.kind) {
    case ExprKind::Subscript:
      return index < 2 ? subscript[index] : "";
    case ExprKind::Slice:
      return index < 3 ? slice[index] : "";
    case ExprKind::IfExp:
      return index < 3 ? ifExp[index] : "";
    case ExprKind::Call:
      return index == 0 ? "func" : "arg";
    default:
      return ""; // operators, tuples, lists, attributes: operands in order
    }
  }

  // Kept small: expressions nest as deeply as the parser allows, and this recurses once per
  // level.
  void printExpr(const Expr *expr, int depth, const std::string &role = "") {
    if (!expr) {
      line(depth, role, "<none>", SourceLoc{});
      return;
    }
    line(depth, role, describe(*expr), expr->loc);
    for (size_t i = 0; i < expr->operands.size(); ++i)
      printExpr(expr->operands[i].get(), depth + 1, operandRole(*expr, i));
    for (const Keyword &keyword : expr->keywords)
      printExpr(keyword.value.get(), depth + 1,
                keyword.name.empty() ? std::string("**") : "keyword " + keyword.name);
    if (expr->lambda) {
      for (const Param &param : expr->lambda->params)
        printParam(param, depth + 1);
      printExpr(expr->lambda->body[0]->value.get(), depth + 1, "body");
    }
  }

  void printParam(const Param &param, int depth) {
    std::string text = "Param ";
    text += param.isVarArgs ? "*" : param.isKwArgs ? "**" : "";
    text += param.name;
    if (param.isKeywordOnly)
      text += " (keyword-only)";
    line(depth, "", text, param.loc);
    if (param.annotation)
      printExpr(param.annotation.get(), depth + 1, "annotation");
    if (param.defaultValue)
      printExpr(param.defaultValue.get(), depth + 1, "default");
  }

  static const char *patternKindName(PatternKind kind) {
    switch (kind) {
    case PatternKind::Value:
      return "Value";
    case PatternKind::Singleton:
      return "Singleton";
    case PatternKind::Capture:
      return "Capture";
    case PatternKind::Star:
      return "Star";
    case PatternKind::As:
      return "As";
    case PatternKind::Or:
      return "Or";
    case PatternKind::Sequence:
      return "Sequence";
    case PatternKind::Mapping:
      return "Mapping";
    case PatternKind::Class:
      return "Class";
    }
    return "?";
  }

  void printPattern(const Pattern &pattern, int depth, const std::string &role) {
    std::string text = std::string("Pattern ") + patternKindName(pattern.kind);
    bool binds = pattern.kind == PatternKind::Capture || pattern.kind == PatternKind::Star ||
                 pattern.kind == PatternKind::As || pattern.kind == PatternKind::Mapping;
    if (binds && !pattern.name.empty())
      text += " " + pattern.name;
    else if (pattern.kind == PatternKind::Capture || pattern.kind == PatternKind::Star)
      text += " _";
    line(depth, role, text, pattern.loc);
    if (pattern.value)
      printExpr(pattern.value.get(), depth + 1, "value");
    for (size_t i = 0; i < pattern.patterns.size(); ++i) {
      if (i < pattern.keys.size())
        printExpr(pattern.keys[i].get(), depth + 1, "key");
      printPattern(*pattern.patterns[i], depth + 1, "");
    }
    for (size_t i = 0; i < pattern.keywordPatterns.size(); ++i)
      printPattern(*pattern.keywordPatterns[i], depth + 1, pattern.keywordNames[i]);
  }

  void printStmt(const Stmt &stmt, int depth) {
    switch (stmt.kind) {
    case StmtKind::FunctionDef:
      line(depth, "", "FunctionDef " + stmt.name, stmt.loc);
      for (const ExprPtr &decorator : stmt.decorators)
        printExpr(decorator.get(), depth + 1, "decorator");
      for (const Param &param : stmt.params)
        printParam(param, depth + 1);
      if (stmt.returns)
        printExpr(stmt.returns.get(), depth + 1, "returns");
      printBlock("body", stmt.body, depth + 1);
      return;
    case StmtKind::Return:
      line(depth, "", "Return", stmt.loc);
      if (stmt.value)
        printExpr(stmt.value.get(), depth + 1, "value");
      return;
    case StmtKind::Assign:
      line(depth, "", "Assign", stmt.loc);
      for (const ExprPtr &target : stmt.targets)
        printExpr(target.get(), depth + 1, "target");
      printExpr(stmt.value.get(), depth + 1, "value");
      return;
    case StmtKind::AugAssign:
      line(depth, "", std::string("AugAssign ") + spelling(stmt.augOp) + "=", stmt.loc);
      printExpr(stmt.targets[0].get(), depth + 1, "target");
      printExpr(stmt.value.get(), depth + 1, "value");
      return;
    case StmtKind::AnnAssign:
      line(depth, "", "AnnAssign", stmt.loc);
      printExpr(stmt.targets[0].get(), depth + 1, "target");
      printExpr(stmt.annotation.get(), depth + 1, "annotation");
      if (stmt.value)
        printExpr(stmt.value.get(), depth + 1, "value");
      return;
    case StmtKind::ExprStmt:
      line(depth, "", "ExprStmt", stmt.loc);
      printExpr(stmt.value.get(), depth + 1);
      return;
    case StmtKind::If:
      line(depth, "", "If", stmt.loc);
      printExpr(stmt.test.get(), depth + 1, "test");
      printBlock("body", stmt.body, depth + 1);
      printBlock("orelse", stmt.orelse, depth + 1);
      return;
    case StmtKind::For:
      line(depth, "", "For", stmt.loc);
      printExpr(stmt.targets[0].get(), depth + 1, "target");
      printExpr(stmt.iter.get(), depth + 1, "iter");
      printBlock("body", stmt.body, depth + 1);
      printBlock("orelse", stmt.orelse, depth + 1);
      return;
    case StmtKind::While:
      line(depth, "", "While", stmt.loc);
      printExpr(stmt.test.get(), depth + 1, "test");
      printBlock("body", stmt.body, depth + 1);
      printBlock("orelse", stmt.orelse, depth + 1);
      return;
    case StmtKind::Break:
      line(depth, "", "Break", stmt.loc);
      return;
    case StmtKind::Continue:
      line(depth, "", "Continue", stmt.loc);
      return;
    case StmtKind::Pass:
      line(depth, "", "Pass", stmt.loc);
      return;
    case StmtKind::Import:
    case StmtKind::ImportFrom: {
      std::string text = stmt.kind == StmtKind::Import ? "Import" : "ImportFrom " + stmt.module;
      line(depth, "", text, stmt.loc);
      for (const ImportAlias &alias : stmt.names)
        line(depth + 1, "",
             "Alias " + alias.name + (alias.asName.empty() ? "" : " as " + alias.asName),
             alias.loc);
      return;
    }
    case StmtKind::Assert:
      line(depth, "", "Assert", stmt.loc);
      printExpr(stmt.test.get(), depth + 1, "test");
      if (stmt.value)
        printExpr(stmt.value.get(), depth + 1, "msg");
      return;
    case StmtKind::Match:
      line(depth, "", "Match", stmt.loc);
      printExpr(stmt.value.get(), depth + 1, "subject");
      for (const MatchCase &matchCase : stmt.cases) {
        line(depth + 1, "", "Case", matchCase.loc);
        printPattern(*matchCase.pattern, depth + 2, "pattern");
        if (matchCase.guard)
          printExpr(matchCase.guard.get(), depth + 2, "guard");
        printBlock("body", matchCase.body, depth + 2);
      }
      return;
    case StmtKind::Unsupported:
      line(depth, "", "Unsupported " + stmt.name, stmt.loc);
      for (const ExprPtr &decorator : stmt.decorators)
        printExpr(decorator.get(), depth + 1, "decorator");
      printBlock("body", stmt.body, depth + 1);
      for (const ExceptHandler &handler : stmt.handlers) {
        line(depth + 1, "", "Except" + (handler.name.empty() ? "" : " as " + handler.name),
             handler.loc);
        if (handler.type)
          printExpr(handler.type.get(), depth + 2, "type");
        printBlock("body", handler.body, depth + 2);
      }
      printBlock("orelse", stmt.orelse, depth + 1);
      printBlock("finally", stmt.finalbody, depth + 1);
      return;
    }
  }
};

} // namespace

std::string print(const Module &module) {
  return Printer().print(module);
}

} // namespace tilec::ast
