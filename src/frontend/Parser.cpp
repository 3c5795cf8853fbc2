// Source text -> parse tree -> AST.
//
// Parsing runs in two stages, the standard strategy for ANTLR 4: SLL prediction with a bail-out
// error strategy first (fast, and enough for every valid Python file this grammar has met), then,
// only if that fails, full LL prediction with an error listener that reports the first syntax
// error. The tree is then walked by ASTBuilder, which also makes the checks CPython's parser
// makes but this grammar leaves out (see the comment at the top of PythonParser.g4).
#include "frontend/Parser.h"

#include "PythonParser.h"
#include "antlr4-runtime.h"
#include "frontend/IndentingLexer.h"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>

namespace tilec {

namespace {

using antlr4::ParserRuleContext;
using antlr4::Token;
using antlr4::tree::ParseTree;
using antlr4::tree::TerminalNode;
using grammar::PythonLexer;
using grammar::PythonParser;

//===----------------------------------------------------------------------===//
// Input checks
//===----------------------------------------------------------------------===//

/// Finds the first byte that is not part of well-formed UTF-8 (ANTLR's decoder would throw on
/// it); returns text.size() when there is none.
size_t findInvalidUtf8(const std::string &text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t length;
    uint32_t minimum;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if ((lead & 0xE0) == 0xC0) {
      length = 2;
      minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      minimum = 0x10000;
    } else {
      return i;
    }
    if (i + length > text.size())
      return i;
    uint32_t codePoint = lead & (0xFF >> (length + 1));
    for (size_t k = 1; k < length; ++k) {
      unsigned char next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80)
        return i;
      codePoint = (codePoint << 6) | (next & 0x3F);
    }
    if (codePoint < minimum || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF))
      return i;
    i += length;
  }
  return text.size();
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
SourceLoc locationOfByte(uint32_t file, const std::string &text, size_t offset) {
  SourceLoc loc{file, 1, 1};
  for (size_t i = 0; i < offset; ++i) {
    unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      ++loc.line;
      loc.col = 1;
    } else if ((byte & 0xC0) != 0x80) {
      ++loc.col;
    }
  }
  return loc;
}

void appendUtf8(std::string &out, uint32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

//===----------------------------------------------------------------------===//
// Syntax errors
//===----------------------------------------------------------------------===//

/// Thrown out of the ANTLR parser by the listener below, caught in parseModule once ANTLR's
/// frames are gone, and only then reported (SourceManager::error throws CompileError).
struct SyntaxErrorFound {
  const Token *token;
  std::string message;
};

/// Stops the parse at the first syntax error, with a message in Python's words.
class FirstSyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  void syntaxError(antlr4::Recognizer *recognizer, Token *offendingSymbol, size_t, size_t,
                   const std::string &, std::exception_ptr) override {
    throw SyntaxErrorFound{offendingSymbol, messageFor(recognizer, offendingSymbol)};
  }

private:
  static std::string messageFor(antlr4::Recognizer *recognizer, const Token *offending) {
    if (offending && offending->getType() == PythonLexer::INDENT)
      return "unexpected indent";
    auto *parser = dynamic_cast<antlr4::Parser *>(recognizer);
    if (!parser || !offending)
      return "invalid syntax";
    antlr4::misc::IntervalSet expected = parser->getExpectedTokens();
    // `def f(x)` + newline, `if x y:`: the header of a compound statement lacks its colon.
    if (expected.contains(static_cast<size_t>(PythonLexer::COLON)) &&
        (offending->getType() == PythonLexer::NEWLINE || expected.size() == 1))
      return "expected ':'";
    return "invalid syntax";
  }
};

/// Bounds how deeply the parser's rules nest. Brackets and indentation are bounded by the lexer;
/// this catches the rest (a thousand unary minus signs, `not not ...`, `a if b else c if ...`),
/// which would otherwise recurse until the stack overflows, here or in the stages that walk the
/// AST. A parse listener, because the parser's exitRule() is not virtual.
class RuleDepthLimiter : public antlr4::tree::ParseTreeListener {
public:
  static constexpr size_t kMaxRuleDepth = 4000;

  explicit RuleDepthLimiter(antlr4::Parser &parser) : parser_(parser) {}

  void enterEveryRule(ParserRuleContext *) override {
    if (++depth_ > kMaxRuleDepth)
      throw SyntaxErrorFound{parser_.getCurrentToken(), "expression is too deeply nested"};
  }
  void exitEveryRule(ParserRuleContext *) override { --depth_; }
  void visitTerminal(TerminalNode *) override {}
  void visitErrorNode(antlr4::tree::ErrorNode *) override {}

  void reset() { depth_ = 0; }

private:
  antlr4::Parser &parser_;
  size_t depth_ = 0;
};

//===----------------------------------------------------------------------===//
// Parse tree -> AST
//===----------------------------------------------------------------------===//

/// What a target expression is, in Python's messages ("cannot assign to function call").
std::string describeExpr(const ast::Expr &expr) {
  switch (expr.kind) {
  case ast::ExprKind::Name:
    return "name";
  case ast::ExprKind::IntLit:
  case ast::ExprKind::FloatLit:
  case ast::ExprKind::StringLit:
    return "literal";
  case ast::ExprKind::BoolLit:
    return expr.boolValue ? "True" : "False";
  case ast::ExprKind::NoneLit:
    return "None";
  case ast::ExprKind::Attribute:
    return "attribute";
  case ast::ExprKind::Subscript:
    return "subscript";
  case ast::ExprKind::Slice:
    return "slice";
  case ast::ExprKind::Call:
    return "function call";
  case ast::ExprKind::BinOp:
  case ast::ExprKind::UnaryOp:
    return "expression";
  case ast::ExprKind::Compare:
    return "comparison";
  case ast::ExprKind::BoolOp:
    return "expression";
  case ast::ExprKind::IfExp:
    return "conditional expression";
  case ast::ExprKind::Tuple:
    return "tuple";
  case ast::ExprKind::List:
    return "list";
  case ast::ExprKind::Comprehension:
    return expr.name == "dict" ? "dict comprehension"
           : expr.boolValue    ? "list comprehension"
                               : "generator expression";
  case ast::ExprKind::NamedExpr:
    return "named expression";
  case ast::ExprKind::Dict:
    return "dict display";
  case ast::ExprKind::Lambda:
    return "lambda";
  case ast::ExprKind::Unsupported:
    return expr.name;
  }
  return "expression";
}

enum class TargetUse { Assign, For, Delete };

class ASTBuilder {
public:
  ASTBuilder(const SourceManager &sources, uint32_t file) : sources_(sources), file_(file) {}
  /// A builder for an f-string field's expression, parsed as "(" + text + ")" on its own: its
  /// first line starts one column left of `origin`, where the text is in the file.
  ASTBuilder(const SourceManager &sources, uint32_t file, SourceLoc origin)
      : sources_(sources), file_(file), origin_(origin) {}

  std::unique_ptr<ast::Module> buildModule(PythonParser::File_inputContext *ctx) {
    auto module = std::make_unique<ast::Module>();
    module->file = file_;
    for (PythonParser::StmtContext *stmt : ctx->stmt())
      buildStmt(stmt, module->body);
    return module;
  }

private:
  using ExprPtr = ast::ExprPtr;

  const SourceManager &sources_;
  uint32_t file_;
  std::optional<SourceLoc> origin_;
  /// Enclosing loops and functions of the code being built, for Python's checks of `break`,
  /// `continue`, `return`, `yield` and `await`.
  int loopDepth_ = 0;
  int functionDepth_ = 0;
  bool inAsyncFunction_ = false;

  /// Left-nested chains (`a + b + c`, `x.y[i](z)`, `if/elif/elif`) are loops in the parse tree
  /// but one AST level per link, so the parser's depth limit does not bound them. Everything that
  /// walks the AST (its destructor included) recurses once per level, so the links of the chains
  /// enclosing the node being built are counted and bounded too.
  static constexpr size_t kMaxChainDepth = 3000;
  size_t chainDepth_ = 0;

  /// Counts `links` more levels of chain for as long as it lives.
  class ChainScope {
  public:
    ChainScope(ASTBuilder &builder, size_t links, SourceLoc at,
               const char *message = "expression is too deeply nested")
        : builder_(builder), links_(links) {
      builder_.chainDepth_ += links_;
      if (builder_.chainDepth_ > kMaxChainDepth)
        builder_.error(at, message);
    }
    ~ChainScope() { builder_.chainDepth_ -= links_; }
    ChainScope(const ChainScope &) = delete;
    ChainScope &operator=(const ChainScope &) = delete;

  private:
    ASTBuilder &builder_;
    size_t links_;
  };

  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  SourceLoc loc(const Token *token) const {
    uint32_t line = static_cast<uint32_t>(token->getLine());
    uint32_t column = static_cast<uint32_t>(token->getCharPositionInLine() + 1);
    if (!origin_)
      return SourceLoc{file_, line, column};
    // The field's text is parsed after a "(" of ours.
    if (line == 1)
      return SourceLoc{file_, origin_->line, origin_->col + column - 2};
    return SourceLoc{file_, origin_->line + line - 1, column};
  }
  SourceLoc loc(TerminalNode *node) const { return loc(node->getSymbol()); }
  SourceLoc loc(ParserRuleContext *ctx) const { return loc(ctx->getStart()); }

  [[noreturn]] void error(SourceLoc at, const std::string &message) const {
    sources_.error(at, message);
  }

  static ExprPtr makeExpr(ast::ExprKind kind, SourceLoc at) {
    return std::make_unique<ast::Expr>(kind, at);
  }
  static ExprPtr unsupported(const std::string &what, SourceLoc at) {
    ExprPtr expr = makeExpr(ast::ExprKind::Unsupported, at);
    expr->name = what;
    return expr;
  }
  static ast::StmtPtr makeStmt(ast::StmtKind kind, SourceLoc at) {
    return std::make_unique<ast::Stmt>(kind, at);
  }
  static ast::StmtPtr unsupportedStmt(const char *what, SourceLoc at) {
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::Unsupported, at);
    stmt->name = what;
    return stmt;
  }

  enum class Scope { Function, AsyncFunction, Lambda, Class };

  /// Runs `build` in the loop and function context of a new function, lambda or class body.
  template <typename Fn> void inNewScope(Scope scope, Fn build) {
    int savedLoops = loopDepth_, savedFunctions = functionDepth_;
    bool savedAsync = inAsyncFunction_;
    loopDepth_ = 0;
    functionDepth_ = scope == Scope::Class ? 0 : functionDepth_ + 1;
    inAsyncFunction_ = scope == Scope::AsyncFunction;
    build();
    loopDepth_ = savedLoops;
    functionDepth_ = savedFunctions;
    inAsyncFunction_ = savedAsync;
  }

  /// Checks that an `await`, `async for` or `async with` (`what`) is inside an async function.
  void checkAsyncContext(SourceLoc at, const std::string &what) const {
    if (inAsyncFunction_)
      return;
    // CPython says "outside function" only for an `await` outside any function.
    bool anyFunction = functionDepth_ > 0 || what != "await";
    error(at, "'" + what + "' outside " + (anyFunction ? "async function" : "function"));
  }

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  void buildStmt(PythonParser::StmtContext *ctx, ast::StmtList &out) {
    if (auto *simple = ctx->simple_stmts()) {
      buildSimpleStmts(simple, out);
      return;
    }
    out.push_back(buildCompoundStmt(ctx->compound_stmt()));
  }

  void buildSimpleStmts(PythonParser::Simple_stmtsContext *ctx, ast::StmtList &out) {
    for (PythonParser::Simple_stmtContext *stmt : ctx->simple_stmt())
      out.push_back(buildSimpleStmt(stmt));
  }

  ast::StmtList buildBlock(PythonParser::BlockContext *ctx) {
    ast::StmtList body;
    if (auto *simple = ctx->simple_stmts()) {
      buildSimpleStmts(simple, body);
      return body;
    }
    for (PythonParser::StmtContext *stmt : ctx->stmt())
      buildStmt(stmt, body);
    return body;
  }

  ast::StmtPtr buildSimpleStmt(PythonParser::Simple_stmtContext *ctx) {
    if (auto *stmt = ctx->expr_stmt())
      return buildExprStmt(stmt);
    if (auto *stmt = ctx->pass_stmt())
      return makeStmt(ast::StmtKind::Pass, loc(stmt));
    if (auto *stmt = ctx->flow_stmt())
      return buildFlowStmt(stmt);
    if (auto *stmt = ctx->import_stmt())
      return buildImport(stmt);
    if (auto *stmt = ctx->assert_stmt()) {
      ast::StmtPtr result = makeStmt(ast::StmtKind::Assert, loc(stmt));
      result->test = buildTest(stmt->test(0));
      if (stmt->test().size() > 1)
        result->value = buildTest(stmt->test(1));
      return result;
    }
    if (auto *stmt = ctx->del_stmt()) {
      ExprPtr targets = buildExprlist(stmt->exprlist());
      checkTarget(*targets, TargetUse::Delete);
      return unsupportedStmt("del statement", loc(stmt));
    }
    if (auto *stmt = ctx->global_stmt()) {
      // The names are kept: sema refuses module-level names that functions rebind this way.
      ast::StmtPtr result = unsupportedStmt("global statement", loc(stmt));
      for (auto *name : stmt->NAME())
        result->names.push_back(ast::ImportAlias{name->getText(), "", loc(name)});
      return result;
    }
    if (auto *stmt = ctx->type_alias_stmt()) {
      // Python evaluates the value lazily, when the alias's __value__ is asked for: the name is
      // bound (to a TypeAliasType) and nothing runs. Its type parameters are names of its own.
      ast::StmtPtr result = unsupportedStmt("type alias statement", loc(stmt));
      ExprPtr name = makeExpr(ast::ExprKind::Name, loc(stmt->NAME()));
      name->name = stmt->NAME()->getText();
      result->targets.push_back(std::move(name));
      return result;
    }
    return unsupportedStmt("nonlocal statement", loc(ctx->nonlocal_stmt()));
  }

  ast::StmtPtr buildExprStmt(PythonParser::Expr_stmtContext *ctx) {
    SourceLoc at = loc(ctx);
    ExprPtr first = buildTestlistStarExpr(ctx->testlist_star_expr());

    if (auto *ann = ctx->annassign()) {
      if (first->kind == ast::ExprKind::Tuple || first->kind == ast::ExprKind::List)
        error(first->loc, std::string("only single target (not ") +
                              (first->kind == ast::ExprKind::Tuple ? "tuple" : "list") +
                              ") can be annotated");
      if (first->kind != ast::ExprKind::Name && first->kind != ast::ExprKind::Attribute &&
          first->kind != ast::ExprKind::Subscript)
        error(first->loc, "illegal target for annotation");
      ast::StmtPtr stmt = makeStmt(ast::StmtKind::AnnAssign, at);
      stmt->targets.push_back(std::move(first));
      stmt->annotation = buildTest(ann->test());
      if (auto *value = ann->assign_value())
        stmt->value = buildAssignValue(value);
      return stmt;
    }

    if (auto *aug = ctx->augassign()) {
      if (first->kind != ast::ExprKind::Name && first->kind != ast::ExprKind::Attribute &&
          first->kind != ast::ExprKind::Subscript)
        error(first->loc,
              "'" + describeExpr(*first) + "' is an illegal expression for augmented assignment");
      ast::StmtPtr stmt = makeStmt(ast::StmtKind::AugAssign, at);
      stmt->augOp = augmentedOperator(aug->getText());
      stmt->targets.push_back(std::move(first));
      stmt->value =
          ctx->yield_expr() ? buildYieldExpr(ctx->yield_expr()) : buildTestlist(ctx->testlist());
      return stmt;
    }

    std::vector<PythonParser::Assign_valueContext *> values = ctx->assign_value();
    if (values.empty()) {
      // A bare `...` statement (a placeholder body: `if FLAG: ...`) evaluates Ellipsis and drops
      // it; Triton's visit_Expr accepts it as a no-op, so it is a `pass`.
      if (first->kind == ast::ExprKind::Unsupported && first->name == ast::kEllipsis)
        return makeStmt(ast::StmtKind::Pass, at);
      ast::StmtPtr stmt = makeStmt(ast::StmtKind::ExprStmt, at);
      stmt->value = std::move(first);
      return stmt;
    }
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::Assign, at);
    checkTarget(*first, TargetUse::Assign);
    stmt->targets.push_back(std::move(first));
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      if (values[i]->yield_expr())
        error(loc(values[i]), "assignment to yield expression not possible");
      ExprPtr target = buildAssignValue(values[i]);
      checkTarget(*target, TargetUse::Assign);
      stmt->targets.push_back(std::move(target));
    }
    stmt->value = buildAssignValue(values.back());
    return stmt;
  }

  ExprPtr buildAssignValue(PythonParser::Assign_valueContext *ctx) {
    if (auto *yield = ctx->yield_expr())
      return buildYieldExpr(yield);
    return buildTestlistStarExpr(ctx->testlist_star_expr());
  }

  static ast::BinaryOperator augmentedOperator(const std::string &text) {
    // The operator is the text without its '='.
    return binaryOperator(text.substr(0, text.size() - 1));
  }

  static ast::BinaryOperator binaryOperator(const std::string &text) {
    static const std::pair<const char *, ast::BinaryOperator> operators[] = {
        {"+", ast::BinaryOperator::Add},       {"-", ast::BinaryOperator::Sub},
        {"*", ast::BinaryOperator::Mul},       {"/", ast::BinaryOperator::Div},
        {"//", ast::BinaryOperator::FloorDiv}, {"%", ast::BinaryOperator::Mod},
        {"**", ast::BinaryOperator::Pow},      {"@", ast::BinaryOperator::MatMul},
        {"<<", ast::BinaryOperator::LShift},   {">>", ast::BinaryOperator::RShift},
        {"&", ast::BinaryOperator::BitAnd},    {"|", ast::BinaryOperator::BitOr},
        {"^", ast::BinaryOperator::BitXor}};
    for (const auto &[spelling, op] : operators)
      if (text == spelling)
        return op;
    // The grammar produces no other operator token in these positions.
    return ast::BinaryOperator::Add;
  }

  /// Checks that `target` can be assigned to (or deleted), as Python's parser does.
  void checkTarget(const ast::Expr &target, TargetUse use) const {
    switch (target.kind) {
    case ast::ExprKind::Name:
    case ast::ExprKind::Attribute:
    case ast::ExprKind::Subscript:
      return;
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List:
      for (const ExprPtr &element : target.operands)
        checkTarget(*element, use);
      return;
    case ast::ExprKind::Unsupported:
      if (target.name == "starred expression" && use != TargetUse::Delete)
        return;
      break;
    default:
      break;
    }
    std::string what = describeExpr(target);
    if (use == TargetUse::Delete)
      error(target.loc, "cannot delete " + what);
    if (use == TargetUse::Assign)
      error(target.loc, "cannot assign to " + what + " here. Maybe you meant '==' instead of '='?");
    error(target.loc, "cannot assign to " + what);
  }

  ast::StmtPtr buildFlowStmt(PythonParser::Flow_stmtContext *ctx) {
    if (auto *stmt = ctx->break_stmt()) {
      if (loopDepth_ == 0)
        error(loc(stmt), "'break' outside loop");
      return makeStmt(ast::StmtKind::Break, loc(stmt));
    }
    if (auto *stmt = ctx->continue_stmt()) {
      if (loopDepth_ == 0)
        error(loc(stmt), "'continue' not properly in loop");
      return makeStmt(ast::StmtKind::Continue, loc(stmt));
    }
    if (auto *stmt = ctx->return_stmt()) {
      if (functionDepth_ == 0)
        error(loc(stmt), "'return' outside function");
      ast::StmtPtr result = makeStmt(ast::StmtKind::Return, loc(stmt));
      if (auto *value = stmt->testlist_star_expr())
        result->value = buildTestlistStarExpr(value);
      return result;
    }
    if (auto *stmt = ctx->raise_stmt()) {
      // `raise X(...) [from cause]`: the exception in `value` (module-level Python functions run
      // it; Specializer::execRaise); the cause is checked and dropped.
      ast::StmtPtr result = unsupportedStmt("raise statement", loc(stmt));
      std::vector<PythonParser::TestContext *> tests = stmt->test();
      for (size_t i = 0; i < tests.size(); ++i) {
        ast::ExprPtr expr = buildTest(tests[i]);
        if (i == 0)
          result->value = std::move(expr);
      }
      return result;
    }
    auto *yield = ctx->yield_stmt();
    ast::StmtPtr result = makeStmt(ast::StmtKind::ExprStmt, loc(yield));
    result->value = buildYieldExpr(yield->yield_expr());
    return result;
  }

  static std::string dottedName(PythonParser::Dotted_nameContext *ctx) {
    std::string name;
    for (TerminalNode *part : ctx->NAME()) {
      if (!name.empty())
        name += '.';
      name += part->getText();
    }
    return name;
  }

  ast::StmtPtr buildImport(PythonParser::Import_stmtContext *ctx) {
    if (auto *import = ctx->import_name()) {
      ast::StmtPtr stmt = makeStmt(ast::StmtKind::Import, loc(import));
      for (PythonParser::Dotted_as_nameContext *alias : import->dotted_as_names()->dotted_as_name())
        stmt->names.push_back(ast::ImportAlias{dottedName(alias->dotted_name()),
                                               alias->NAME() ? alias->NAME()->getText() : "",
                                               loc(alias)});
      return stmt;
    }
    auto *from = ctx->import_from();
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::ImportFrom, loc(from));
    // Leading dots of a relative import: '.' tokens, and '...' tokens worth three each.
    for (ParseTree *child : from->children) {
      auto *terminal = dynamic_cast<TerminalNode *>(child);
      if (!terminal)
        break; // the dotted name
      size_t type = terminal->getSymbol()->getType();
      if (type == PythonLexer::DOT)
        stmt->module += ".";
      else if (type == PythonLexer::ELLIPSIS)
        stmt->module += "...";
      else if (type == PythonLexer::IMPORT)
        break;
    }
    if (auto *module = from->dotted_name())
      stmt->module += dottedName(module);
    if (stmt->module.empty())
      error(loc(from->IMPORT()), "invalid syntax");
    if (from->STAR()) {
      stmt->names.push_back(ast::ImportAlias{"*", "", loc(from->STAR())});
      return stmt;
    }
    for (PythonParser::Import_as_nameContext *alias : from->import_as_names()->import_as_name()) {
      std::vector<TerminalNode *> names = alias->NAME();
      stmt->names.push_back(ast::ImportAlias{
          names[0]->getText(), names.size() > 1 ? names[1]->getText() : "", loc(alias)});
    }
    return stmt;
  }

  ast::StmtPtr buildCompoundStmt(PythonParser::Compound_stmtContext *ctx) {
    if (auto *stmt = ctx->if_stmt())
      return buildIf(stmt);
    if (auto *stmt = ctx->while_stmt())
      return buildWhile(stmt);
    if (auto *stmt = ctx->for_stmt())
      return buildFor(stmt);
    if (auto *stmt = ctx->funcdef())
      return buildFunctionDef(stmt);
    if (auto *stmt = ctx->classdef())
      return buildClassDef(stmt);
    if (auto *stmt = ctx->try_stmt())
      return buildTry(stmt);
    if (auto *stmt = ctx->with_stmt())
      return buildWith(stmt);
    if (auto *stmt = ctx->decorated())
      return buildDecorated(stmt);
    if (auto *stmt = ctx->match_stmt())
      return buildMatch(stmt);
    return buildAsync(ctx->async_stmt());
  }

  ast::StmtPtr buildIf(PythonParser::If_stmtContext *ctx) {
    ChainScope chain(*this, ctx->elif_clause().size(), loc(ctx), "too many 'elif' clauses");
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::If, loc(ctx));
    stmt->test = buildNamedexprTest(ctx->namedexpr_test());
    stmt->body = buildBlock(ctx->block());
    // `elif` chains become If statements nested in the previous one's orelse.
    ast::Stmt *last = stmt.get();
    for (PythonParser::Elif_clauseContext *elif : ctx->elif_clause()) {
      ast::StmtPtr nested = makeStmt(ast::StmtKind::If, loc(elif));
      nested->test = buildNamedexprTest(elif->namedexpr_test());
      nested->body = buildBlock(elif->block());
      ast::Stmt *next = nested.get();
      last->orelse.push_back(std::move(nested));
      last = next;
    }
    if (auto *orelse = ctx->else_clause())
      last->orelse = buildBlock(orelse->block());
    return stmt;
  }

  ast::StmtList buildLoopBody(PythonParser::BlockContext *ctx) {
    ++loopDepth_;
    ast::StmtList body = buildBlock(ctx);
    --loopDepth_;
    return body;
  }

  ast::StmtPtr buildWhile(PythonParser::While_stmtContext *ctx) {
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::While, loc(ctx));
    stmt->test = buildNamedexprTest(ctx->namedexpr_test());
    stmt->body = buildLoopBody(ctx->block());
    if (auto *orelse = ctx->else_clause())
      stmt->orelse = buildBlock(orelse->block());
    return stmt;
  }

  ast::StmtPtr buildFor(PythonParser::For_stmtContext *ctx) {
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::For, loc(ctx));
    ExprPtr target = buildExprlist(ctx->exprlist());
    checkTarget(*target, TargetUse::For);
    stmt->targets.push_back(std::move(target));
    stmt->iter = buildTestlistStarExpr(ctx->testlist_star_expr());
    stmt->body = buildLoopBody(ctx->block());
    if (auto *orelse = ctx->else_clause())
      stmt->orelse = buildBlock(orelse->block());
    return stmt;
  }

  ast::StmtPtr buildFunctionDef(PythonParser::FuncdefContext *ctx, bool isAsync = false) {
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::FunctionDef, loc(ctx));
    stmt->name = ctx->NAME()->getText();
    if (auto *params = ctx->parameters()->typedargslist())
      stmt->params = buildTypedParams(params);
    if (auto *returns = ctx->test())
      stmt->returns = buildTest(returns);
    inNewScope(isAsync ? Scope::AsyncFunction : Scope::Function,
               [&] { stmt->body = buildBlock(ctx->block()); });
    return stmt;
  }

  ast::StmtPtr buildClassDef(PythonParser::ClassdefContext *ctx) {
    ast::StmtPtr stmt = unsupportedStmt("class definition", loc(ctx));
    // The name the class statement binds, for what asks which names a module has bound so far
    // (an import cycle's partially initialised module).
    ExprPtr name = makeExpr(ast::ExprKind::Name, loc(ctx));
    name->name = ctx->NAME()->getText();
    stmt->targets.push_back(std::move(name));
    if (auto *bases = ctx->arglist()) {
      // The bases, as a call's arguments: sema recognises typing.NamedTuple classes by them.
      stmt->value = makeExpr(ast::ExprKind::Call, loc(bases));
      buildArguments(bases, *stmt->value);
    }
    inNewScope(Scope::Class, [&] { stmt->body = buildBlock(ctx->block()); });
    return stmt;
  }

  //===--------------------------------------------------------------------===//
  // Match statements
  //===--------------------------------------------------------------------===//

  ast::StmtPtr buildMatch(PythonParser::Match_stmtContext *ctx) {
    ast::StmtPtr stmt = makeStmt(ast::StmtKind::Match, loc(ctx));
    stmt->value = buildSequence(ctx->subject_expr());
    std::vector<PythonParser::Case_blockContext *> blocks = ctx->case_block();
    for (size_t i = 0; i < blocks.size(); ++i) {
      ast::MatchCase matchCase;
      matchCase.loc = loc(blocks[i]);
      matchCase.pattern = buildCasePatterns(blocks[i]->sequence_items());
      if (auto *guard = blocks[i]->namedexpr_test())
        matchCase.guard = buildNamedexprTest(guard);
      // CPython: a case that matches anything, without a guard, must be the last one.
      if (!matchCase.guard && i + 1 < blocks.size())
        if (std::optional<std::string> why = irrefutable(*matchCase.pattern))
          error(matchCase.pattern->loc, *why + " makes remaining patterns unreachable");
      matchCase.body = buildBlock(blocks[i]->block());
      stmt->cases.push_back(std::move(matchCase));
    }
    return stmt;
  }

  static ast::PatternPtr makePattern(ast::PatternKind kind, SourceLoc at) {
    return std::make_unique<ast::Pattern>(kind, at);
  }

  /// Why `pattern` matches every subject ("name capture 'x'", "wildcard"), or nullopt.
  static std::optional<std::string> irrefutable(const ast::Pattern &pattern) {
    switch (pattern.kind) {
    case ast::PatternKind::Capture:
      return pattern.name.empty() ? std::string("wildcard") : "name capture '" + pattern.name + "'";
    case ast::PatternKind::As:
      return irrefutable(*pattern.patterns[0]);
    case ast::PatternKind::Or:
      for (const ast::PatternPtr &alternative : pattern.patterns)
        if (std::optional<std::string> why = irrefutable(*alternative))
          return why;
      return std::nullopt;
    default:
      return std::nullopt;
    }
  }

  /// The names a pattern binds, in order, with CPython's check that none is bound twice.
  void boundNames(const ast::Pattern &pattern, std::vector<std::string> &names) const {
    auto add = [&](const std::string &name, SourceLoc at) {
      if (name.empty())
        return;
      if (std::find(names.begin(), names.end(), name) != names.end())
        error(at, "multiple assignments to name '" + name + "' in pattern");
      names.push_back(name);
    };
    switch (pattern.kind) {
    case ast::PatternKind::Capture:
    case ast::PatternKind::Star:
      add(pattern.name, pattern.loc);
      return;
    case ast::PatternKind::As:
      boundNames(*pattern.patterns[0], names);
      add(pattern.name, pattern.loc);
      return;
    case ast::PatternKind::Or: {
      // Every alternative binds the same names (checked where the Or is built).
      std::vector<std::string> first;
      boundNames(*pattern.patterns[0], first);
      for (const std::string &name : first)
        add(name, pattern.loc);
      return;
    }
    case ast::PatternKind::Mapping:
      for (const ast::PatternPtr &value : pattern.patterns)
        boundNames(*value, names);
      add(pattern.name, pattern.loc);
      return;
    default:
      for (const ast::PatternPtr &element : pattern.patterns)
        boundNames(*element, names);
      for (const ast::PatternPtr &element : pattern.keywordPatterns)
        boundNames(*element, names);
      return;
    }
  }

  /// A case's patterns: one pattern, or an open sequence `case a, *rest:`.
  ast::PatternPtr buildCasePatterns(PythonParser::Sequence_itemsContext *ctx) {
    ast::PatternPtr pattern = buildSequenceItems(ctx, loc(ctx), /*bracketed=*/false);
    std::vector<std::string> names;
    boundNames(*pattern, names);
    return pattern;
  }

  /// `p`, `p, q`, `(p)`, `(p,)`, `[p]`: a sequence pattern, or the one pattern of a group.
  ast::PatternPtr buildSequenceItems(PythonParser::Sequence_itemsContext *ctx, SourceLoc at,
                                     bool bracketed) {
    ast::PatternPtr sequence = makePattern(ast::PatternKind::Sequence, at);
    if (!ctx)
      return sequence;
    bool sawComma = !ctx->COMMA().empty();
    bool sawStar = false;
    for (PythonParser::Sequence_itemContext *item : ctx->sequence_item()) {
      if (auto *pattern = item->pattern()) {
        sequence->patterns.push_back(buildPattern(pattern));
        continue;
      }
      if (sawStar)
        error(loc(item), "multiple starred names in sequence pattern");
      sawStar = true;
      ast::PatternPtr star = makePattern(ast::PatternKind::Star, loc(item));
      std::string name = item->NAME()->getText();
      star->name = name == "_" ? "" : name;
      sequence->patterns.push_back(std::move(star));
    }
    if (bracketed || sawComma || sequence->patterns.size() != 1)
      return sequence;
    if (sequence->patterns[0]->kind == ast::PatternKind::Star)
      error(sequence->patterns[0]->loc, "can't use starred expression here");
    return std::move(sequence->patterns[0]);
  }

  ast::PatternPtr buildPattern(PythonParser::PatternContext *ctx) {
    ast::PatternPtr pattern = buildOrPattern(ctx->or_pattern());
    if (!ctx->NAME())
      return pattern;
    std::string name = ctx->NAME()->getText();
    if (name == "_")
      error(loc(ctx->NAME()), "cannot use '_' as a target");
    ast::PatternPtr as = makePattern(ast::PatternKind::As, loc(ctx));
    as->name = name;
    as->patterns.push_back(std::move(pattern));
    return as;
  }

  ast::PatternPtr buildOrPattern(PythonParser::Or_patternContext *ctx) {
    std::vector<PythonParser::Closed_patternContext *> alternatives = ctx->closed_pattern();
    if (alternatives.size() == 1)
      return buildClosedPattern(alternatives[0]);
    ast::PatternPtr result = makePattern(ast::PatternKind::Or, loc(ctx));
    std::vector<std::string> firstNames;
    for (size_t i = 0; i < alternatives.size(); ++i) {
      ast::PatternPtr alternative = buildClosedPattern(alternatives[i]);
      if (i + 1 < alternatives.size())
        if (std::optional<std::string> why = irrefutable(*alternative))
          error(alternative->loc, *why + " makes remaining patterns unreachable");
      std::vector<std::string> names;
      boundNames(*alternative, names);
      std::sort(names.begin(), names.end());
      if (i == 0)
        firstNames = names;
      else if (names != firstNames)
        error(alternative->loc, "alternative patterns bind different names");
      result->patterns.push_back(std::move(alternative));
    }
    return result;
  }

  ast::PatternPtr buildClosedPattern(PythonParser::Closed_patternContext *ctx) {
    SourceLoc at = loc(ctx);
    if (auto *literal = dynamic_cast<PythonParser::LiteralPatternContext *>(ctx))
      return buildLiteralPattern(literal->literal_pattern());
    if (auto *named = dynamic_cast<PythonParser::NamePatternContext *>(ctx)) {
      std::vector<TerminalNode *> parts = named->dotted_name()->NAME();
      if (!named->OPEN_PAREN() && parts.size() == 1) {
        ast::PatternPtr capture = makePattern(ast::PatternKind::Capture, at);
        std::string name = parts[0]->getText();
        capture->name = name == "_" ? "" : name;
        return capture;
      }
      ExprPtr value = buildDottedName(named->dotted_name());
      if (!named->OPEN_PAREN()) {
        ast::PatternPtr pattern = makePattern(ast::PatternKind::Value, at);
        pattern->value = std::move(value);
        return pattern;
      }
      ast::PatternPtr pattern = makePattern(ast::PatternKind::Class, at);
      pattern->value = std::move(value);
      if (auto *arguments = named->pattern_arguments())
        for (PythonParser::Pattern_argumentContext *argument : arguments->pattern_argument()) {
          if (!argument->NAME()) {
            if (!pattern->keywordNames.empty())
              error(loc(argument), "positional patterns follow keyword patterns");
            pattern->patterns.push_back(buildPattern(argument->pattern()));
            continue;
          }
          std::string name = argument->NAME()->getText();
          if (std::find(pattern->keywordNames.begin(), pattern->keywordNames.end(), name) !=
              pattern->keywordNames.end())
            error(loc(argument), "attribute name repeated in class pattern: " + name);
          pattern->keywordNames.push_back(name);
          pattern->keywordPatterns.push_back(buildPattern(argument->pattern()));
        }
      return pattern;
    }
    if (auto *paren = dynamic_cast<PythonParser::ParenPatternContext *>(ctx))
      return buildSequenceItems(paren->sequence_items(), at, /*bracketed=*/false);
    if (auto *list = dynamic_cast<PythonParser::ListPatternContext *>(ctx))
      return buildSequenceItems(list->sequence_items(), at, /*bracketed=*/true);
    auto *mapping = dynamic_cast<PythonParser::MappingPatternContext *>(ctx);
    ast::PatternPtr pattern = makePattern(ast::PatternKind::Mapping, at);
    std::vector<PythonParser::Mapping_itemContext *> items = mapping->mapping_item();
    for (size_t i = 0; i < items.size(); ++i) {
      PythonParser::Mapping_itemContext *item = items[i];
      if (!item->pattern()) {
        // `**rest` comes last.
        if (i + 1 < items.size())
          error(loc(items[i + 1]), "invalid syntax");
        std::string name = item->NAME()->getText();
        if (name == "_")
          error(loc(item->NAME()), "invalid syntax");
        pattern->name = name;
        continue;
      }
      if (auto *literal = item->literal_pattern()) {
        ast::PatternPtr key = buildLiteralPattern(literal);
        pattern->keys.push_back(std::move(key->value));
      } else {
        pattern->keys.push_back(buildDottedName(item->dotted_name()));
      }
      pattern->patterns.push_back(buildPattern(item->pattern()));
    }
    return pattern;
  }

  /// `a.b.c` as the Name and Attribute expressions it stands for.
  ExprPtr buildDottedName(PythonParser::Dotted_nameContext *ctx) {
    std::vector<TerminalNode *> parts = ctx->NAME();
    ExprPtr value = makeExpr(ast::ExprKind::Name, loc(parts[0]));
    value->name = parts[0]->getText();
    for (size_t i = 1; i < parts.size(); ++i) {
      ExprPtr attribute = makeExpr(ast::ExprKind::Attribute, value->loc);
      attribute->name = parts[i]->getText();
      attribute->operands.push_back(std::move(value));
      value = std::move(attribute);
    }
    return value;
  }

  ast::PatternPtr buildLiteralPattern(PythonParser::Literal_patternContext *ctx) {
    SourceLoc at = loc(ctx);
    if (ctx->NONE() || ctx->TRUE() || ctx->FALSE()) {
      ast::PatternPtr pattern = makePattern(ast::PatternKind::Singleton, at);
      if (ctx->NONE()) {
        pattern->value = makeExpr(ast::ExprKind::NoneLit, at);
      } else {
        pattern->value = makeExpr(ast::ExprKind::BoolLit, at);
        pattern->value->boolValue = ctx->TRUE() != nullptr;
      }
      return pattern;
    }
    ast::PatternPtr pattern = makePattern(ast::PatternKind::Value, at);
    if (!ctx->STRING().empty()) {
      pattern->value = buildStrings(ctx->STRING(), at);
      if (pattern->value->kind == ast::ExprKind::StringLit && pattern->value->isFString)
        error(at, "patterns may only match literals and attribute lookups");
      return pattern;
    }
    // A number, negated, or a complex number `1 + 2j`.
    PythonParser::Signed_numberContext *number = ctx->signed_number();
    if (ctx->ADD() || ctx->MINUS()) {
      pattern->value = unsupported("complex literal", at);
      return pattern;
    }
    auto *token = dynamic_cast<TerminalNode *>(number->children.back());
    size_t type = token->getSymbol()->getType();
    ExprPtr value = buildNumber(token->getText(), type == PythonLexer::INTEGER,
                                type == PythonLexer::IMAG_NUMBER, loc(token));
    if (number->MINUS()) {
      ExprPtr negated = makeExpr(ast::ExprKind::UnaryOp, at);
      negated->unaryOp = ast::UnaryOperator::Neg;
      negated->operands.push_back(std::move(value));
      value = std::move(negated);
    }
    pattern->value = std::move(value);
    return pattern;
  }

  ast::StmtPtr buildTry(PythonParser::Try_stmtContext *ctx) {
    ast::StmtPtr stmt = unsupportedStmt("try statement", loc(ctx));
    stmt->body = buildBlock(ctx->block());
    std::vector<PythonParser::Except_clauseContext *> handlers = ctx->except_clause();
    for (size_t i = 0; i < handlers.size(); ++i) {
      if (!handlers[i]->test() && i + 1 < handlers.size())
        error(loc(handlers[i]), "default 'except:' must be last");
      ast::ExceptHandler handler;
      handler.loc = loc(handlers[i]);
      if (handlers[i]->test())
        handler.type = buildTest(handlers[i]->test());
      if (handlers[i]->NAME())
        handler.name = handlers[i]->NAME()->getText();
      handler.body = buildBlock(handlers[i]->block());
      stmt->handlers.push_back(std::move(handler));
    }
    if (auto *orelse = ctx->else_clause())
      stmt->orelse = buildBlock(orelse->block());
    if (auto *finally = ctx->finally_clause())
      stmt->finalbody = buildBlock(finally->block());
    return stmt;
  }

  ast::StmtPtr buildWith(PythonParser::With_stmtContext *ctx, const char *what = "with statement") {
    ast::StmtPtr stmt = unsupportedStmt(what, loc(ctx));
    for (PythonParser::With_itemContext *item : ctx->with_item()) {
      stmt->withItems.push_back(buildTest(item->test()));
      ExprPtr bound;
      if (auto *target = item->expr()) {
        bound = buildExpr(target);
        checkTarget(*bound, TargetUse::Assign);
      }
      stmt->withTargets.push_back(std::move(bound));
    }
    stmt->body = buildBlock(ctx->block());
    return stmt;
  }

  /// `@eval('''triton.heuristics({...})''')`, a workaround some projects use to write a
  /// decorator that older Python grammars refused: Python evaluates the string in the module's
  /// scope, where the decorator expression itself would be evaluated, so the decorator is the
  /// string's expression.
  ExprPtr expandEvalDecorator(ExprPtr decorator) const {
    if (decorator->kind != ast::ExprKind::Call || decorator->operands.size() != 2 ||
        !decorator->keywords.empty())
      return decorator;
    const ast::Expr &callee = *decorator->operands[0];
    const ast::Expr &source = *decorator->operands[1];
    if (callee.kind != ast::ExprKind::Name || callee.name != "eval" ||
        source.kind != ast::ExprKind::StringLit || source.isFString)
      return decorator;
    // What reads the decorator later (the dict of @triton.heuristics) may read its text in the
    // file again, so the string must be one token whose text is its value: no escapes, no
    // concatenation, no bytes. Another string keeps the eval() call, which tilec then refuses.
    const SourceFile &file = sources_.file(file_);
    size_t start = file.lineStarts.at(source.loc.line - 1) + source.loc.col - 1;
    size_t quote = file.text.find_first_of("'\"", start);
    if (quote == std::string::npos || file.text.find_first_of("bBfF", start) < quote)
      return decorator;
    size_t quoteLength = file.text.compare(quote, 3, std::string(3, file.text[quote])) == 0 ? 3 : 1;
    size_t bodyStart = quote + quoteLength;
    std::string closing(quoteLength, file.text[quote]);
    if (file.text.compare(bodyStart, source.stringValue.size(), source.stringValue) != 0 ||
        file.text.compare(bodyStart + source.stringValue.size(), quoteLength, closing) != 0)
      return decorator;
    SourceLoc at = source.loc;
    at.col += static_cast<uint32_t>(bodyStart - start);
    return parseFieldExpression(source.stringValue, at, "eval() of a decorator");
  }

  ast::StmtPtr buildDecorated(PythonParser::DecoratedContext *ctx) {
    std::vector<ExprPtr> decorators;
    for (PythonParser::DecoratorContext *decorator : ctx->decorators()->decorator())
      decorators.push_back(expandEvalDecorator(buildNamedexprTest(decorator->namedexpr_test())));
    ast::StmtPtr stmt;
    if (auto *def = ctx->funcdef())
      stmt = buildFunctionDef(def);
    else if (auto *cls = ctx->classdef())
      stmt = buildClassDef(cls);
    else
      stmt = buildAsyncFunctionDef(ctx->async_funcdef()->funcdef(), loc(ctx->async_funcdef()));
    stmt->decorators = std::move(decorators);
    return stmt;
  }

  ast::StmtPtr buildAsyncFunctionDef(PythonParser::FuncdefContext *def, SourceLoc at) {
    // Built as a function for its checks, then kept only by name.
    ast::StmtPtr function = buildFunctionDef(def, /*isAsync=*/true);
    ast::StmtPtr stmt = unsupportedStmt("async function definition", at);
    stmt->body = std::move(function->body);
    return stmt;
  }

  ast::StmtPtr buildAsync(PythonParser::Async_stmtContext *ctx) {
    if (auto *def = ctx->funcdef())
      return buildAsyncFunctionDef(def, loc(ctx));
    if (auto *with = ctx->with_stmt()) {
      checkAsyncContext(loc(ctx), "async with");
      ast::StmtPtr stmt = buildWith(with, "async with statement");
      stmt->loc = loc(ctx);
      return stmt;
    }
    checkAsyncContext(loc(ctx), "async for");
    ast::StmtPtr loop = buildFor(ctx->for_stmt());
    ast::StmtPtr stmt = unsupportedStmt("async for statement", loc(ctx));
    stmt->body = std::move(loop->body);
    return stmt;
  }

  //===--------------------------------------------------------------------===//
  // Parameters and arguments
  //===--------------------------------------------------------------------===//

  /// One parameter as the grammar gives it, before the order checks.
  struct RawParam {
    enum Kind { Plain, VarArgs, BareStar, KwArgs, Slash } kind;
    SourceLoc loc;
    TerminalNode *name = nullptr;
    PythonParser::TestContext *annotation = nullptr;
    PythonParser::TestContext *defaultValue = nullptr;
    PythonParser::Star_exprContext *starredAnnotation = nullptr; // `*args: *Ts`
  };

  std::vector<ast::Param> buildTypedParams(PythonParser::TypedargslistContext *ctx) {
    std::vector<RawParam> raw;
    for (PythonParser::Typed_paramContext *param : ctx->typed_param()) {
      RawParam p{RawParam::Plain, loc(param)};
      if (param->DIV())
        p.kind = RawParam::Slash;
      else if (param->POWER())
        p.kind = RawParam::KwArgs;
      else if (param->STAR())
        p.kind = param->star_tfpdef() ? RawParam::VarArgs : RawParam::BareStar;
      if (auto *def = param->tfpdef()) {
        p.name = def->NAME();
        p.annotation = def->test();
      }
      if (auto *def = param->star_tfpdef()) {
        p.name = def->NAME();
        p.annotation = def->test();
        p.starredAnnotation = def->star_expr();
      }
      p.defaultValue = param->test();
      raw.push_back(p);
    }
    return buildParams(raw);
  }

  std::vector<ast::Param> buildUntypedParams(PythonParser::VarargslistContext *ctx) {
    std::vector<RawParam> raw;
    for (PythonParser::Untyped_paramContext *param : ctx->untyped_param()) {
      RawParam p{RawParam::Plain, loc(param)};
      if (param->DIV())
        p.kind = RawParam::Slash;
      else if (param->POWER())
        p.kind = RawParam::KwArgs;
      else if (param->STAR())
        p.kind = param->NAME() ? RawParam::VarArgs : RawParam::BareStar;
      p.name = param->NAME();
      p.defaultValue = param->test();
      raw.push_back(p);
    }
    return buildParams(raw);
  }

  /// Checks the order of parameters as Python does and builds them. `/` and a bare `*` are
  /// markers, not parameters: the first leaves no trace, the second makes the following
  /// parameters keyword-only.
  std::vector<ast::Param> buildParams(const std::vector<RawParam> &raw) {
    std::vector<ast::Param> params;
    std::set<std::string> names;
    bool seenSlash = false, seenStar = false, seenDefault = false, keywordOnly = false;
    for (size_t i = 0; i < raw.size(); ++i) {
      const RawParam &p = raw[i];
      if (p.kind == RawParam::Slash) {
        if (seenSlash)
          error(p.loc, "/ may appear only once");
        if (seenStar)
          error(p.loc, "/ must be ahead of *");
        if (params.empty())
          error(p.loc, "at least one argument must precede /");
        seenSlash = true;
        continue;
      }
      if (!params.empty() && params.back().isKwArgs)
        error(p.loc, "arguments cannot follow var-keyword argument");
      if (p.kind == RawParam::VarArgs || p.kind == RawParam::BareStar) {
        if (seenStar)
          error(p.loc, "* argument may appear only once");
        seenStar = true;
        keywordOnly = true;
        if (p.kind == RawParam::BareStar) {
          bool namedFollows = i + 1 < raw.size() && raw[i + 1].kind == RawParam::Plain;
          if (!namedFollows)
            error(p.loc, "named arguments must follow bare *");
          continue;
        }
      }
      if (p.kind == RawParam::Plain && !keywordOnly) {
        if (p.defaultValue)
          seenDefault = true;
        else if (seenDefault)
          error(p.loc, "non-default argument follows default argument");
      }
      std::string name = p.name->getText();
      if (!names.insert(name).second)
        error(loc(p.name), "duplicate argument '" + name + "' in function definition");
      ast::Param param;
      param.name = name;
      param.loc = p.loc;
      param.isVarArgs = p.kind == RawParam::VarArgs;
      param.isKwArgs = p.kind == RawParam::KwArgs;
      param.isKeywordOnly = p.kind == RawParam::Plain && keywordOnly;
      if (p.annotation)
        param.annotation = buildTest(p.annotation);
      if (p.starredAnnotation)
        param.annotation = buildStarExpr(p.starredAnnotation);
      if (p.defaultValue)
        param.defaultValue = buildTest(p.defaultValue);
      params.push_back(std::move(param));
    }
    return params;
  }

  /// Adds the arguments of a call to `call` (positional ones after the callee in operands).
  void buildArguments(PythonParser::ArglistContext *ctx, ast::Expr &call) {
    std::vector<PythonParser::ArgumentContext *> arguments = ctx->argument();
    bool seenKeyword = false, seenKeywordUnpacking = false;
    std::set<std::string> keywordNames;
    for (PythonParser::ArgumentContext *arg : arguments) {
      SourceLoc at = loc(arg);
      std::vector<PythonParser::TestContext *> tests = arg->test();
      if (arg->POWER()) {
        seenKeywordUnpacking = true;
        call.keywords.push_back(ast::Keyword{"", buildTest(tests[0]), at});
        continue;
      }
      if (arg->ASSIGN()) {
        ExprPtr name = buildTest(tests[0]);
        if (name->kind != ast::ExprKind::Name)
          error(name->loc, "expression cannot contain assignment, perhaps you meant \"==\"?");
        if (!keywordNames.insert(name->name).second)
          error(name->loc, "keyword argument repeated: " + name->name);
        seenKeyword = true;
        call.keywords.push_back(ast::Keyword{name->name, buildTest(tests[1]), at});
        continue;
      }
      // A positional argument.
      if (arg->STAR()) {
        if (seenKeywordUnpacking)
          error(at, "iterable argument unpacking follows keyword argument unpacking");
        // `f(x, *args)`: the unpacked value is operands[0] (Triton splices a tuple there).
        ExprPtr starred = unsupported("starred expression", at);
        starred->operands.push_back(buildTest(tests[0]));
        call.operands.push_back(std::move(starred));
        continue;
      }
      if (seenKeywordUnpacking)
        error(at, "positional argument follows keyword argument unpacking");
      if (seenKeyword)
        error(at, "positional argument follows keyword argument");
      if (arg->WALRUS()) {
        call.operands.push_back(buildWalrus(tests[0], tests[1], at));
        continue;
      }
      if (auto *comprehension = arg->comp_for()) {
        if (arguments.size() > 1)
          error(at, "Generator expression must be parenthesized");
        call.operands.push_back(buildGeneratorExpression(tests[0], comprehension, at));
        continue;
      }
      call.operands.push_back(buildTest(tests[0]));
    }
  }

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  /// A comma-separated list: the element itself when there is one and no comma, else a Tuple.
  /// Starred elements are allowed only in a tuple.
  ExprPtr buildSequence(ParserRuleContext *ctx) {
    std::vector<ExprPtr> elements;
    bool sawComma = false;
    for (ParseTree *child : ctx->children) {
      if (auto *terminal = dynamic_cast<TerminalNode *>(child)) {
        sawComma |= terminal->getSymbol()->getType() == PythonLexer::COMMA;
        continue;
      }
      elements.push_back(buildAny(child));
    }
    if (elements.size() == 1 && !sawComma) {
      if (isStarred(*elements[0]))
        error(elements[0]->loc, "can't use starred expression here");
      return std::move(elements[0]);
    }
    ExprPtr tuple = makeExpr(ast::ExprKind::Tuple, loc(ctx));
    tuple->operands = std::move(elements);
    return tuple;
  }

  static bool isStarred(const ast::Expr &expr) {
    return expr.kind == ast::ExprKind::Unsupported && expr.name == "starred expression";
  }

  /// Builds any expression-level context found among the children of a list rule.
  ExprPtr buildAny(ParseTree *tree) {
    if (auto *ctx = dynamic_cast<PythonParser::TestContext *>(tree))
      return buildTest(ctx);
    if (auto *ctx = dynamic_cast<PythonParser::Star_exprContext *>(tree))
      return buildStarExpr(ctx);
    if (auto *ctx = dynamic_cast<PythonParser::ExprContext *>(tree))
      return buildExpr(ctx);
    if (auto *ctx = dynamic_cast<PythonParser::Namedexpr_testContext *>(tree))
      return buildNamedexprTest(ctx);
    auto *ctx = dynamic_cast<ParserRuleContext *>(tree);
    error(loc(ctx), "invalid syntax"); // not reached: the list rules hold only the above
  }

  ExprPtr buildTestlistStarExpr(PythonParser::Testlist_star_exprContext *ctx) {
    return buildSequence(ctx);
  }
  ExprPtr buildTestlist(PythonParser::TestlistContext *ctx) { return buildSequence(ctx); }
  ExprPtr buildExprlist(PythonParser::ExprlistContext *ctx) { return buildSequence(ctx); }

  ExprPtr buildStarExpr(PythonParser::Star_exprContext *ctx) {
    buildExpr(ctx->expr());
    return unsupported("starred expression", loc(ctx));
  }

  ExprPtr buildYieldExpr(PythonParser::Yield_exprContext *ctx) {
    if (functionDepth_ == 0)
      error(loc(ctx), "'yield' outside function");
    if (auto *value = ctx->test())
      buildTest(value);
    if (auto *value = ctx->testlist_star_expr())
      buildTestlistStarExpr(value);
    return unsupported("yield expression", loc(ctx));
  }

  ExprPtr buildNamedexprTest(PythonParser::Namedexpr_testContext *ctx) {
    std::vector<PythonParser::TestContext *> tests = ctx->test();
    if (tests.size() == 1)
      return buildTest(tests[0]);
    return buildWalrus(tests[0], tests[1], loc(ctx));
  }

  /// `name := value`: a NamedExpr whose name is the target.
  ExprPtr buildWalrus(PythonParser::TestContext *targetCtx, PythonParser::TestContext *valueCtx,
                      SourceLoc at) {
    ExprPtr target = buildTest(targetCtx);
    if (target->kind != ast::ExprKind::Name)
      error(target->loc, "cannot use assignment expressions with " + describeExpr(*target));
    ExprPtr named = makeExpr(ast::ExprKind::NamedExpr, at);
    named->name = target->name;
    named->operands.push_back(buildTest(valueCtx));
    return named;
  }

  ExprPtr buildTest(PythonParser::TestContext *ctx) {
    if (auto *lambda = ctx->lambdef())
      return buildLambda(lambda->varargslist(), loc(ctx),
                         [&] { return buildTest(lambda->test()); });
    std::vector<PythonParser::Or_testContext *> parts = ctx->or_test();
    if (parts.size() == 1)
      return buildOrTest(parts[0]);
    ExprPtr expr = makeExpr(ast::ExprKind::IfExp, loc(ctx));
    expr->operands.push_back(buildOrTest(parts[0]));
    expr->operands.push_back(buildOrTest(parts[1]));
    expr->operands.push_back(buildTest(ctx->test()));
    return expr;
  }

  ExprPtr buildTestNocond(PythonParser::Test_nocondContext *ctx) {
    if (auto *test = ctx->or_test())
      return buildOrTest(test);
    auto *lambda = ctx->lambdef_nocond();
    return buildLambda(lambda->varargslist(), loc(ctx),
                       [&] { return buildTestNocond(lambda->test_nocond()); });
  }

  /// `lambda params: body` as a function "<lambda>" whose body is `return body`.
  template <typename BuildBody>
  ExprPtr buildLambda(PythonParser::VarargslistContext *params, SourceLoc at, BuildBody body) {
    auto def = std::make_shared<ast::Stmt>(ast::StmtKind::FunctionDef, at);
    def->name = "<lambda>";
    if (params)
      def->params = buildUntypedParams(params);
    ast::StmtPtr result = makeStmt(ast::StmtKind::Return, at);
    inNewScope(Scope::Lambda, [&] { result->value = body(); });
    def->body.push_back(std::move(result));
    ExprPtr expr = makeExpr(ast::ExprKind::Lambda, at);
    expr->lambda = std::move(def);
    return expr;
  }

  ExprPtr buildOrTest(PythonParser::Or_testContext *ctx) {
    std::vector<PythonParser::And_testContext *> parts = ctx->and_test();
    if (parts.size() == 1)
      return buildAndTest(parts[0]);
    ExprPtr expr = makeExpr(ast::ExprKind::BoolOp, loc(ctx));
    expr->boolOp = ast::BoolOperator::Or;
    for (PythonParser::And_testContext *part : parts)
      expr->operands.push_back(buildAndTest(part));
    return expr;
  }

  ExprPtr buildAndTest(PythonParser::And_testContext *ctx) {
    std::vector<PythonParser::Not_testContext *> parts = ctx->not_test();
    if (parts.size() == 1)
      return buildNotTest(parts[0]);
    ExprPtr expr = makeExpr(ast::ExprKind::BoolOp, loc(ctx));
    expr->boolOp = ast::BoolOperator::And;
    for (PythonParser::Not_testContext *part : parts)
      expr->operands.push_back(buildNotTest(part));
    return expr;
  }

  // Iterative, as buildFactor: `not not ... x` may nest thousands deep.
  ExprPtr buildNotTest(PythonParser::Not_testContext *ctx) {
    std::vector<SourceLoc> nots;
    for (; !ctx->comparison(); ctx = ctx->not_test())
      nots.push_back(loc(ctx));
    ExprPtr expr = buildComparison(ctx->comparison());
    for (auto at = nots.rbegin(); at != nots.rend(); ++at) {
      ExprPtr negation = makeExpr(ast::ExprKind::UnaryOp, *at);
      negation->unaryOp = ast::UnaryOperator::Not;
      negation->operands.push_back(std::move(expr));
      expr = std::move(negation);
    }
    return expr;
  }

  static ast::CompareOperator compareOperator(PythonParser::Comp_opContext *ctx) {
    if (ctx->NOT())
      return ctx->IN() ? ast::CompareOperator::NotIn : ast::CompareOperator::IsNot;
    switch (ctx->getStart()->getType()) {
    case PythonLexer::LESS_THAN:
      return ast::CompareOperator::Lt;
    case PythonLexer::LT_EQ:
      return ast::CompareOperator::Le;
    case PythonLexer::GREATER_THAN:
      return ast::CompareOperator::Gt;
    case PythonLexer::GT_EQ:
      return ast::CompareOperator::Ge;
    case PythonLexer::EQUALS:
      return ast::CompareOperator::Eq;
    case PythonLexer::NOT_EQ:
      return ast::CompareOperator::Ne;
    case PythonLexer::IN:
      return ast::CompareOperator::In;
    default:
      return ast::CompareOperator::Is;
    }
  }

  ExprPtr buildComparison(PythonParser::ComparisonContext *ctx) {
    std::vector<PythonParser::ExprContext *> operands = ctx->expr();
    if (operands.size() == 1)
      return buildExpr(operands[0]);
    ExprPtr expr = makeExpr(ast::ExprKind::Compare, loc(ctx));
    for (PythonParser::Comp_opContext *op : ctx->comp_op())
      expr->compareOps.push_back(compareOperator(op));
    for (PythonParser::ExprContext *operand : operands)
      expr->operands.push_back(buildExpr(operand));
    return expr;
  }

  /// A left-associative chain `a op b op c` of one precedence level, whose children alternate
  /// operand and operator (a token or a one-token rule).
  template <typename OperandCtx, typename BuildOperand>
  ExprPtr buildBinaryChain(ParserRuleContext *ctx, BuildOperand buildOperand) {
    const std::vector<ParseTree *> &children = ctx->children;
    ChainScope chain(*this, children.size() / 2, loc(ctx));
    ExprPtr result = buildOperand(static_cast<OperandCtx *>(children[0]));
    for (size_t i = 1; i + 1 < children.size(); i += 2) {
      ExprPtr expr = makeExpr(ast::ExprKind::BinOp, loc(ctx));
      expr->binOp = binaryOperator(children[i]->getText());
      expr->operands.push_back(std::move(result));
      expr->operands.push_back(buildOperand(static_cast<OperandCtx *>(children[i + 1])));
      result = std::move(expr);
    }
    return result;
  }

  ExprPtr buildExpr(PythonParser::ExprContext *ctx) {
    return buildBinaryChain<PythonParser::Xor_exprContext>(
        ctx, [this](PythonParser::Xor_exprContext *c) { return buildXorExpr(c); });
  }
  ExprPtr buildXorExpr(PythonParser::Xor_exprContext *ctx) {
    return buildBinaryChain<PythonParser::And_exprContext>(
        ctx, [this](PythonParser::And_exprContext *c) { return buildAndExpr(c); });
  }
  ExprPtr buildAndExpr(PythonParser::And_exprContext *ctx) {
    return buildBinaryChain<PythonParser::Shift_exprContext>(
        ctx, [this](PythonParser::Shift_exprContext *c) { return buildShiftExpr(c); });
  }
  ExprPtr buildShiftExpr(PythonParser::Shift_exprContext *ctx) {
    return buildBinaryChain<PythonParser::Arith_exprContext>(
        ctx, [this](PythonParser::Arith_exprContext *c) { return buildArithExpr(c); });
  }
  ExprPtr buildArithExpr(PythonParser::Arith_exprContext *ctx) {
    return buildBinaryChain<PythonParser::TermContext>(
        ctx, [this](PythonParser::TermContext *c) { return buildTerm(c); });
  }
  ExprPtr buildTerm(PythonParser::TermContext *ctx) {
    return buildBinaryChain<PythonParser::FactorContext>(
        ctx, [this](PythonParser::FactorContext *c) { return buildFactor(c); });
  }

  /// A factor: unary operators over a power (`- ~ x ** y`). Right-nested chains of these
  /// (`- - - x`, `a ** b ** c ** ...`) may nest thousands deep, so they are built with an
  /// explicit stack: one recursive call per level would take far more stack than the parser did.
  ExprPtr buildFactor(PythonParser::FactorContext *ctx) {
    struct PendingPower {
      std::vector<PythonParser::FactorContext *> unary; // outermost first
      ExprPtr base;
      SourceLoc loc;
    };
    std::vector<PendingPower> pending;
    ExprPtr result;
    for (;;) {
      std::vector<PythonParser::FactorContext *> unary;
      for (; !ctx->power(); ctx = ctx->factor())
        unary.push_back(ctx);
      PythonParser::PowerContext *power = ctx->power();
      if (!power->factor()) {
        if (!unary.empty() && unary.back()->unary_op()->MINUS() && isInt64MinMagnitude(power)) {
          // -9223372036854775808 is a valid int64 although its magnitude alone is not.
          result = makeExpr(ast::ExprKind::IntLit, loc(unary.back()));
          result->intValue = INT64_MIN;
          unary.pop_back();
        } else {
          result = buildAtomExpr(power->atom_expr());
        }
        result = applyUnary(unary, std::move(result));
        break;
      }
      // Right-associative: the exponent is a factor, which may itself be a power.
      pending.push_back(
          PendingPower{std::move(unary), buildAtomExpr(power->atom_expr()), loc(power)});
      ctx = power->factor();
    }
    for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
      ExprPtr pow = makeExpr(ast::ExprKind::BinOp, it->loc);
      pow->binOp = ast::BinaryOperator::Pow;
      pow->operands.push_back(std::move(it->base));
      pow->operands.push_back(std::move(result));
      result = applyUnary(it->unary, std::move(pow));
    }
    return result;
  }

  /// Wraps `operand` in the unary operators of `unary` (outermost first).
  ExprPtr applyUnary(const std::vector<PythonParser::FactorContext *> &unary, ExprPtr operand) {
    for (auto it = unary.rbegin(); it != unary.rend(); ++it) {
      PythonParser::Unary_opContext *op = (*it)->unary_op();
      ExprPtr result = makeExpr(ast::ExprKind::UnaryOp, loc(*it));
      result->unaryOp = op->MINUS() ? ast::UnaryOperator::Neg
                        : op->ADD() ? ast::UnaryOperator::Pos
                                    : ast::UnaryOperator::Invert;
      result->operands.push_back(std::move(operand));
      operand = std::move(result);
    }
    return operand;
  }

  /// Whether `ctx` is just the integer literal 9223372036854775808 (2^63).
  static bool isInt64MinMagnitude(PythonParser::PowerContext *ctx) {
    if (ctx->factor() || ctx->atom_expr()->AWAIT() || !ctx->atom_expr()->trailer().empty())
      return false;
    auto *number = dynamic_cast<PythonParser::NumberAtomContext *>(ctx->atom_expr()->atom());
    if (!number || !number->INTEGER())
      return false;
    std::optional<uint64_t> magnitude = parseIntegerText(number->INTEGER()->getText());
    return magnitude && *magnitude == uint64_t(1) << 63;
  }

  ExprPtr buildAtomExpr(PythonParser::Atom_exprContext *ctx) {
    SourceLoc at = loc(ctx);
    std::vector<PythonParser::TrailerContext *> trailers = ctx->trailer();
    ChainScope chain(*this, trailers.size(), at);
    ExprPtr expr = buildAtom(ctx->atom());
    for (PythonParser::TrailerContext *trailer : trailers) {
      if (auto *call = dynamic_cast<PythonParser::CallTrailerContext *>(trailer)) {
        ExprPtr result = makeExpr(ast::ExprKind::Call, at);
        result->operands.push_back(std::move(expr));
        if (auto *args = call->arglist())
          buildArguments(args, *result);
        expr = std::move(result);
      } else if (auto *subscript = dynamic_cast<PythonParser::SubscriptTrailerContext *>(trailer)) {
        ExprPtr result = makeExpr(ast::ExprKind::Subscript, at);
        result->operands.push_back(std::move(expr));
        result->operands.push_back(buildSubscriptList(subscript->subscriptlist()));
        expr = std::move(result);
      } else {
        auto *attribute = static_cast<PythonParser::AttributeTrailerContext *>(trailer);
        ExprPtr result = makeExpr(ast::ExprKind::Attribute, at);
        result->name = attribute->NAME()->getText();
        result->operands.push_back(std::move(expr));
        expr = std::move(result);
      }
    }
    if (ctx->AWAIT()) {
      checkAsyncContext(at, "await");
      return unsupported("await expression", at);
    }
    return expr;
  }

  ExprPtr buildSubscriptList(PythonParser::SubscriptlistContext *ctx) {
    std::vector<PythonParser::SubscriptContext *> subscripts = ctx->subscript();
    if (subscripts.size() == 1 && ctx->COMMA().empty())
      return buildSubscript(subscripts[0]);
    ExprPtr tuple = makeExpr(ast::ExprKind::Tuple, loc(ctx));
    for (PythonParser::SubscriptContext *subscript : subscripts)
      tuple->operands.push_back(buildSubscript(subscript));
    return tuple;
  }

  ExprPtr buildSubscript(PythonParser::SubscriptContext *ctx) {
    if (auto *star = ctx->star_expr())
      return buildStarExpr(star);
    if (!ctx->COLON())
      return buildNamedexprTest(ctx->namedexpr_test());
    if (auto *lower = ctx->namedexpr_test(); lower && lower->WALRUS())
      error(loc(ctx->COLON()), "invalid syntax");
    // lower? ':' upper? (':' step?)?
    ExprPtr slice = makeExpr(ast::ExprKind::Slice, loc(ctx));
    slice->operands.resize(3);
    for (ParseTree *child : ctx->children) {
      if (auto *lower = dynamic_cast<PythonParser::Namedexpr_testContext *>(child))
        slice->operands[0] = buildNamedexprTest(lower);
      else if (auto *upper = dynamic_cast<PythonParser::TestContext *>(child))
        slice->operands[1] = buildTest(upper);
      else if (auto *step = dynamic_cast<PythonParser::SliceopContext *>(child))
        slice->operands[2] = step->test() ? buildTest(step->test()) : nullptr;
    }
    return slice;
  }

  ExprPtr buildAtom(PythonParser::AtomContext *ctx) {
    SourceLoc at = loc(ctx);
    if (auto *name = dynamic_cast<PythonParser::NameAtomContext *>(ctx)) {
      ExprPtr expr = makeExpr(ast::ExprKind::Name, at);
      expr->name = name->NAME()->getText();
      return expr;
    }
    if (auto *number = dynamic_cast<PythonParser::NumberAtomContext *>(ctx))
      return buildNumber(number);
    if (auto *strings = dynamic_cast<PythonParser::StringAtomContext *>(ctx))
      return buildStrings(strings);
    if (dynamic_cast<PythonParser::NoneAtomContext *>(ctx))
      return makeExpr(ast::ExprKind::NoneLit, at);
    if (auto *boolean = dynamic_cast<PythonParser::BoolAtomContext *>(ctx)) {
      ExprPtr expr = makeExpr(ast::ExprKind::BoolLit, at);
      expr->boolValue = boolean->TRUE() != nullptr;
      return expr;
    }
    if (dynamic_cast<PythonParser::EllipsisAtomContext *>(ctx))
      return unsupported(ast::kEllipsis, at);
    if (auto *paren = dynamic_cast<PythonParser::ParenAtomContext *>(ctx)) {
      if (auto *yield = paren->yield_expr())
        return buildYieldExpr(yield);
      if (auto *inner = paren->testlist_comp())
        return buildTestlistComp(inner, at, /*isList=*/false);
      return makeExpr(ast::ExprKind::Tuple, at); // ()
    }
    if (auto *list = dynamic_cast<PythonParser::ListAtomContext *>(ctx)) {
      if (auto *inner = list->testlist_comp())
        return buildTestlistComp(inner, at, /*isList=*/true);
      return makeExpr(ast::ExprKind::List, at);
    }
    auto *braces = static_cast<PythonParser::DictOrSetAtomContext *>(ctx);
    if (auto *inner = braces->dictorsetmaker())
      return buildDictOrSet(inner, at);
    return makeExpr(ast::ExprKind::Dict, at); // {}
  }

  /// The inside of (...) or [...]: a parenthesized expression, a tuple, a list, or a
  /// comprehension.
  ExprPtr buildTestlistComp(PythonParser::Testlist_compContext *ctx, SourceLoc at, bool isList) {
    if (auto *comprehension = ctx->comp_for()) {
      if (!isList)
        return buildGeneratorExpression(ctx->children[0], comprehension, at);
      ExprPtr list = makeExpr(ast::ExprKind::Comprehension, at);
      list->boolValue = true;
      list->operands.push_back(buildAny(ctx->children[0]));
      buildComprehension(comprehension, &list->operands);
      return list;
    }
    if (!isList) {
      ExprPtr expr = buildSequence(ctx);
      if (expr->kind == ast::ExprKind::Tuple)
        expr->loc = at; // a parenthesized tuple starts at its '('
      return expr;
    }
    ExprPtr list = makeExpr(ast::ExprKind::List, at);
    for (ParseTree *child : ctx->children)
      if (!dynamic_cast<TerminalNode *>(child))
        list->operands.push_back(buildAny(child));
    return list;
  }

  /// A generator expression may use `await` and `async for` anywhere: it becomes an
  /// asynchronous generator, whatever encloses it.
  ExprPtr buildGeneratorExpression(ParseTree *element, PythonParser::Comp_forContext *comprehension,
                                   SourceLoc at) {
    bool savedAsync = inAsyncFunction_;
    inAsyncFunction_ = true;
    ExprPtr generator = makeExpr(ast::ExprKind::Comprehension, at);
    generator->operands.push_back(buildAny(element));
    buildComprehension(comprehension, &generator->operands);
    inAsyncFunction_ = savedAsync;
    return generator;
  }

  /// The `for` and `if` clauses of a comprehension; with `clauses`, appends each `for`'s
  /// target, iterable and condition (its `if`s joined by `and`, or null).
  void buildComprehension(PythonParser::Comp_forContext *ctx,
                          std::vector<ExprPtr> *clauses = nullptr) {
    if (ctx->ASYNC() && !inAsyncFunction_)
      error(loc(ctx), "asynchronous comprehension outside of an asynchronous function");
    if (ctx->ASYNC() && clauses)
      clauses = nullptr; // an async comprehension stays unsupported below
    ExprPtr target = buildExprlist(ctx->exprlist());
    checkTarget(*target, TargetUse::For);
    ExprPtr iterable = buildOrTest(ctx->or_test());
    ExprPtr condition;
    auto *iter = ctx->comp_iter();
    for (; iter && !iter->comp_for(); iter = iter->comp_if()->comp_iter()) {
      ExprPtr test = buildTestNocond(iter->comp_if()->test_nocond());
      if (!condition) {
        condition = std::move(test);
        continue;
      }
      ExprPtr both = makeExpr(ast::ExprKind::BoolOp, condition->loc);
      both->boolOp = ast::BoolOperator::And;
      both->operands.push_back(std::move(condition));
      both->operands.push_back(std::move(test));
      condition = std::move(both);
    }
    if (clauses) {
      clauses->push_back(std::move(target));
      clauses->push_back(std::move(iterable));
      clauses->push_back(std::move(condition));
    }
    if (iter)
      buildComprehension(iter->comp_for(), clauses);
  }

  ExprPtr buildDictOrSet(PythonParser::DictorsetmakerContext *ctx, SourceLoc at) {
    std::vector<PythonParser::Dict_or_set_itemContext *> items = ctx->dict_or_set_item();
    auto isDictItem = [](PythonParser::Dict_or_set_itemContext *item) {
      return item->COLON() || item->POWER();
    };
    bool isDict = isDictItem(items[0]);
    std::vector<ExprPtr> entries; // keys and values, in order; a null key before `**mapping`
    for (PythonParser::Dict_or_set_itemContext *item : items) {
      if (isDictItem(item) != isDict)
        error(loc(item), isDict ? "':' expected after dictionary key" : "invalid syntax");
      for (PythonParser::TestContext *test : item->test())
        entries.push_back(buildTest(test));
      if (auto *unpacked = item->expr()) {
        entries.push_back(nullptr);
        entries.push_back(buildExpr(unpacked));
      }
      if (auto *star = item->star_expr())
        buildStarExpr(star);
    }
    if (auto *comprehension = ctx->comp_for()) {
      if (items.size() > 1 || items[0]->POWER() || items[0]->star_expr())
        error(loc(comprehension), "invalid syntax");
      if (!isDict) {
        buildComprehension(comprehension);
        return unsupported("set comprehension", at);
      }
      // {k: v for ...} (module-level Python: a heuristics dict built from a config): a
      // comprehension named "dict" whose element is the (key, value) pair.
      ExprPtr dict = makeExpr(ast::ExprKind::Comprehension, at);
      dict->name = "dict";
      ExprPtr pair = makeExpr(ast::ExprKind::Tuple, at);
      pair->operands = std::move(entries);
      dict->operands.push_back(std::move(pair));
      buildComprehension(comprehension, &dict->operands);
      return dict;
    }
    // A dict display (module-level Python: triton.Config's values), which may unpack others
    // (`{**base, 'X': 1}`).
    // A set display (module-level Python: `frozenset({"gfx942", "gfx950"})`): a List named
    // "set", which sema makes a set of.
    if (!isDict) {
      if (std::any_of(items.begin(), items.end(),
                      [](PythonParser::Dict_or_set_itemContext *i) { return i->star_expr(); }))
        return unsupported("set display", at);
      ExprPtr set = makeExpr(ast::ExprKind::List, at);
      set->name = "set";
      set->operands = std::move(entries);
      return set;
    }
    ExprPtr dict = makeExpr(ast::ExprKind::Dict, at);
    dict->operands = std::move(entries);
    return dict;
  }

  //===--------------------------------------------------------------------===//
  // Literals
  //===--------------------------------------------------------------------===//

  /// The value of an integer literal in any base, or nothing if it does not fit 64 bits.
  static std::optional<uint64_t> parseIntegerText(const std::string &text) {
    unsigned base = 10;
    size_t begin = 0;
    if (text.size() > 1 && text[0] == '0') {
      char prefix = static_cast<char>(std::tolower(static_cast<unsigned char>(text[1])));
      if (prefix == 'x' || prefix == 'o' || prefix == 'b') {
        base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : 2;
        begin = 2;
      }
    }
    uint64_t value = 0;
    for (size_t i = begin; i < text.size(); ++i) {
      char c = text[i];
      if (c == '_')
        continue;
      unsigned digit = std::isdigit(static_cast<unsigned char>(c))
                           ? c - '0'
                           : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
      if (value > (UINT64_MAX - digit) / base)
        return std::nullopt;
      value = value * base + digit;
    }
    return value;
  }

  ExprPtr buildNumber(PythonParser::NumberAtomContext *ctx) {
    return buildNumber(ctx->getText(), ctx->INTEGER() != nullptr, ctx->IMAG_NUMBER() != nullptr,
                       loc(ctx));
  }

  ExprPtr buildNumber(const std::string &text, bool isInteger, bool isImaginary, SourceLoc at) {
    if (isImaginary)
      return unsupported("complex literal", at);
    if (isInteger) {
      std::optional<uint64_t> value = parseIntegerText(text);
      // Host code may hold integers of any size: the file still parses, and only a kernel that
      // uses a literal beyond 64 bits gets an error. One in [2^63, 2^64) (0xFFFFFFFFFFFFFFFF
      // masks, 0x8000000000000000 sign bits) is a uint64 in Triton.
      if (!value)
        return unsupported("integer literal '" + text + "' (larger than 64 bits)", at);
      ExprPtr expr = makeExpr(ast::ExprKind::IntLit, at);
      expr->intValue = static_cast<int64_t>(*value);
      expr->intIsUint64 = *value > static_cast<uint64_t>(INT64_MAX);
      return expr;
    }
    std::string digits;
    for (char c : text)
      if (c != '_')
        digits += c;
    ExprPtr expr = makeExpr(ast::ExprKind::FloatLit, at);
    expr->floatValue = std::strtod(digits.c_str(), nullptr);
    return expr;
  }

  /// One string token taken apart: prefix flags and the text between the quotes.
  struct StringPiece {
    bool isRaw = false, isBytes = false, isFString = false;
    std::string body;
    size_t bodyStart = 0; // where the body starts in the token's text
  };

  static StringPiece splitString(const std::string &token) {
    StringPiece piece;
    size_t quote = token.find_first_of("'\"");
    for (size_t i = 0; i < quote; ++i) {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(token[i])));
      piece.isRaw |= c == 'r';
      piece.isBytes |= c == 'b';
      piece.isFString |= c == 'f';
    }
    size_t quoteLength =
        token.compare(quote, 3, std::string(3, token[quote])) == 0 && token.size() - quote >= 6 ? 3
                                                                                                : 1;
    piece.body = token.substr(quote + quoteLength, token.size() - quote - 2 * quoteLength);
    piece.bodyStart = quote + quoteLength;
    return piece;
  }

  ExprPtr buildStrings(PythonParser::StringAtomContext *ctx) {
    return buildStrings(ctx->STRING(), loc(ctx));
  }

  ExprPtr buildStrings(const std::vector<TerminalNode *> &tokens, SourceLoc at) {
    std::string value, rawText;
    bool anyBytes = false, anyText = false, anyFString = false;
    for (TerminalNode *token : tokens) {
      std::string text = token->getText();
      StringPiece piece = splitString(text);
      anyBytes |= piece.isBytes;
      anyText |= !piece.isBytes;
      anyFString |= piece.isFString;
      if (anyBytes && anyText)
        error(at, "cannot mix bytes and nonbytes literals");
      if (!rawText.empty())
        rawText += ' ';
      rawText += text;
      value += piece.isRaw ? normalizeNewlines(piece.body) : decodeEscapes(piece.body, token);
    }
    if (anyBytes)
      return unsupported("bytes literal", at);
    ExprPtr expr = makeExpr(ast::ExprKind::StringLit, at);
    expr->isFString = anyFString;
    expr->stringValue = anyFString ? rawText : value;
    if (!anyFString)
      return expr;
    // An f-string: its literal text and its fields, whose expressions sema evaluates. The
    // pieces of an implicit concatenation join the literal text around them.
    expr->fstringLiterals.push_back("");
    for (TerminalNode *token : tokens) {
      StringPiece piece = splitString(token->getText());
      if (!piece.isFString) {
        expr->fstringLiterals.back() +=
            piece.isRaw ? normalizeNewlines(piece.body) : decodeEscapes(piece.body, token);
        continue;
      }
      splitFString(*expr, piece, token);
    }
    return expr;
  }

  /// Where the character at `offset` of `token`'s text is in the file.
  SourceLoc locInToken(TerminalNode *token, size_t offset) const {
    SourceLoc at = loc(token);
    const std::string &text = token->getText();
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++at.line;
        at.col = 1;
      } else {
        ++at.col;
      }
    }
    return at;
  }

  /// Adds the literal text and the replacement fields of an f-string piece to `expr`.
  /// `nested`: the piece is a format spec, whose fields may not hold specs with fields.
  void splitFString(ast::Expr &expr, const StringPiece &piece, TerminalNode *token,
                    bool nested = false) {
    const std::string &body = piece.body;
    const size_t bodyStart = piece.bodyStart;
    std::string literal;
    auto flushLiteral = [&] {
      expr.fstringLiterals.back() +=
          piece.isRaw ? normalizeNewlines(literal) : decodeEscapes(literal, token);
      literal.clear();
    };
    for (size_t i = 0; i < body.size(); ++i) {
      char c = body[i];
      if ((c == '{' || c == '}') && i + 1 < body.size() && body[i + 1] == c) {
        literal += c; // {{ and }}
        ++i;
        continue;
      }
      if (c == '}')
        error(locInToken(token, bodyStart + i), "f-string: single '}' is not allowed");
      if (c != '{') {
        literal += c;
        continue;
      }
      flushLiteral();
      // The field runs to the '}' that closes it, past brackets and quoted strings.
      size_t start = i + 1, end = start, exprEnd = std::string::npos, specStart = 0;
      char conversion = 0;
      int depth = 0;
      char quote = 0;
      for (; end < body.size(); ++end) {
        char d = body[end];
        if (quote) {
          if (d == quote)
            quote = 0;
          continue;
        }
        if (d == '\'' || d == '"') {
          quote = d;
        } else if (d == '(' || d == '[' || d == '{') {
          ++depth;
        } else if ((d == ')' || d == ']' || d == '}') && depth > 0) {
          --depth;
        } else if (depth == 0 && d == '}') {
          break;
        } else if (depth == 0 && exprEnd == std::string::npos && d == '!' &&
                   end + 1 < body.size() && body[end + 1] != '=') {
          exprEnd = end;
          conversion = end + 1 < body.size() ? body[end + 1] : 0;
          end += 1;
          // The conversion is one character, then the spec or the end of the field.
          if (end + 1 < body.size() && body[end + 1] != ':' && body[end + 1] != '}')
            error(locInToken(token, bodyStart + end + 1), "f-string: expecting '}'");
        } else if (depth == 0 && d == ':' && !specStart) {
          if (exprEnd == std::string::npos)
            exprEnd = end;
          specStart = end + 1;
          // The spec runs to the field's closing brace, past the replacement fields nested in
          // it (`{x:{width}}`), themselves past brackets and quoted strings.
          int nesting = 0;
          char specQuote = 0;
          size_t close = specStart;
          for (; close < body.size(); ++close) {
            char e = body[close];
            if (specQuote) {
              if (e == specQuote)
                specQuote = 0;
            } else if (nesting > 0 && (e == '\'' || e == '"')) {
              specQuote = e;
            } else if (e == '{' || (nesting > 0 && (e == '(' || e == '['))) {
              ++nesting;
            } else if (nesting > 0 && (e == '}' || e == ')' || e == ']')) {
              --nesting;
            } else if (e == '}') {
              break;
            }
          }
          if (close >= body.size())
            break;
          end = close;
          break;
        }
      }
      if (end >= body.size())
        error(locInToken(token, bodyStart + i), "f-string: expecting '}'");
      if (exprEnd == std::string::npos)
        exprEnd = end;
      if (conversion && conversion != 's' && conversion != 'r' && conversion != 'a')
        error(locInToken(token, bodyStart + exprEnd),
              "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      std::string text = body.substr(start, exprEnd - start);
      // `{expr=}`: the expression's text, then its repr() unless a conversion or spec says
      // otherwise.
      size_t last = text.find_last_not_of(" \t");
      if (last != std::string::npos && text[last] == '=' &&
          (last == 0 || std::string("=!<>").find(text[last - 1]) == std::string::npos)) {
        expr.fstringLiterals.back() += text;
        text = text.substr(0, last);
        if (!conversion && !specStart)
          conversion = 'r';
      }
      if (text.find_first_not_of(" \t\n") == std::string::npos)
        error(locInToken(token, bodyStart + start), "f-string: empty expression not allowed");
      expr.operands.push_back(parseFieldExpression(text, locInToken(token, bodyStart + start)));
      expr.fstringConversions.push_back(conversion);
      std::string spec = specStart ? body.substr(specStart, end - specStart) : "";
      expr.fstringSpecs.push_back(spec);
      ExprPtr specFields;
      if (spec.find('{') != std::string::npos) {
        // A spec with replacement fields is an f-string of its own.
        if (nested)
          error(locInToken(token, bodyStart + specStart + spec.find('{')),
                "f-string: expressions nested too deeply");
        specFields = makeExpr(ast::ExprKind::StringLit, locInToken(token, bodyStart + specStart));
        specFields->isFString = true;
        specFields->stringValue = spec;
        specFields->fstringLiterals.push_back("");
        StringPiece specPiece = piece;
        specPiece.body = spec;
        specPiece.bodyStart = bodyStart + specStart;
        splitFString(*specFields, specPiece, token, /*nested=*/true);
      }
      expr.fstringSpecFields.push_back(std::move(specFields));
      expr.fstringLiterals.push_back("");
      i = end;
    }
    flushLiteral();
  }

  /// The expression of an f-string field, `text`, which starts at `at` in the file.
  ExprPtr parseFieldExpression(const std::string &text, SourceLoc at,
                               const std::string &what = "f-string") const {
    antlr4::ANTLRInputStream input("(" + text + ")\n");
    IndentingLexer lexer(&input, file_);
    antlr4::CommonTokenStream tokens(&lexer);
    PythonParser parser(&tokens);
    parser.removeErrorListeners();
    FirstSyntaxErrorListener listener;
    parser.addErrorListener(&listener);
    PythonParser::File_inputContext *tree = nullptr;
    try {
      tree = parser.file_input();
    } catch (SyntaxErrorFound &) {
      error(at, what + ": invalid syntax");
    }
    if (lexer.error())
      error(at, what + ": invalid syntax");
    ASTBuilder field(sources_, file_, at);
    std::unique_ptr<ast::Module> module = field.buildModule(tree);
    if (module->body.size() != 1 || module->body[0]->kind != ast::StmtKind::ExprStmt)
      error(at, what + ": invalid syntax");
    return std::move(module->body[0]->value);
  }

  static std::string normalizeNewlines(const std::string &text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\r') {
        out += '\n';
        if (i + 1 < text.size() && text[i + 1] == '\n')
          ++i;
        continue;
      }
      out += text[i];
    }
    return out;
  }

  /// Decodes the escapes of a (non-raw) string body as Python does. `\N{name}` is kept as
  /// written: decoding it needs the Unicode name database, and kernels only print strings.
  std::string decodeEscapes(const std::string &body, TerminalNode *token) const {
    std::string text = normalizeNewlines(body);
    std::string out;
    auto hexValue = [&](size_t from, size_t digits, const char *what) -> uint32_t {
      if (from + digits > text.size())
        error(loc(token), std::string("truncated ") + what + " escape");
      uint32_t value = 0;
      for (size_t k = 0; k < digits; ++k) {
        char c = text[from + k];
        if (!std::isxdigit(static_cast<unsigned char>(c)))
          error(loc(token), std::string("truncated ") + what + " escape");
        value = value * 16 + (std::isdigit(static_cast<unsigned char>(c))
                                  ? c - '0'
                                  : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
      }
      return value;
    };
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c != '\\' || i + 1 == text.size()) {
        out += c;
        continue;
      }
      char e = text[++i];
      switch (e) {
      case '\n':
        break; // an escaped line break joins the lines
      case '\\':
      case '\'':
      case '"':
        out += e;
        break;
      case 'a':
        out += '\a';
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
      case 'v':
        out += '\v';
        break;
      case 'x':
        appendUtf8(out, hexValue(i + 1, 2, "\\xXX"));
        i += 2;
        break;
      case 'u':
        appendUtf8(out, hexValue(i + 1, 4, "\\uXXXX"));
        i += 4;
        break;
      case 'U': {
        uint32_t codePoint = hexValue(i + 1, 8, "\\UXXXXXXXX");
        if (codePoint > 0x10FFFF)
          error(loc(token), "illegal Unicode character in \\UXXXXXXXX escape");
        appendUtf8(out, codePoint);
        i += 8;
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t value = 0;
          size_t digits = 0;
          while (digits < 3 && i < text.size() && text[i] >= '0' && text[i] <= '7') {
            value = value * 8 + (text[i] - '0');
            ++i;
            ++digits;
          }
          --i;
          appendUtf8(out, value);
          break;
        }
        // Unknown escapes (and \N{...}) stay as written, as Python keeps them.
        out += '\\';
        out += e;
        break;
      }
    }
    return out;
  }
};

} // namespace

std::unique_ptr<ast::Module> parseModule(const SourceManager &sources, uint32_t fileIndex) {
  const std::string &text = sources.file(fileIndex).text;
  size_t invalid = findInvalidUtf8(text);
  if (invalid != text.size())
    sources.error(locationOfByte(fileIndex, text, invalid), "invalid UTF-8 in source file");

  // A UTF-8 byte order mark is not part of the program.
  bool hasBom = text.compare(0, 3, "\xEF\xBB\xBF") == 0;
  antlr4::ANTLRInputStream input(hasBom ? text.substr(3) : text);
  IndentingLexer lexer(&input, fileIndex);
  antlr4::CommonTokenStream tokens(&lexer);
  PythonParser parser(&tokens);
  RuleDepthLimiter depthLimiter(parser);
  parser.addParseListener(&depthLimiter);

  PythonParser::File_inputContext *tree = nullptr;
  FirstSyntaxErrorListener listener;
  try {
    // Stage 1: SLL prediction, bailing out at the first problem.
    parser.removeErrorListeners();
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    try {
      tree = parser.file_input();
    } catch (antlr4::ParseCancellationException &) {
      // Stage 2: full LL prediction, which either parses what SLL could not or finds the
      // first syntax error and reports it.
      tokens.seek(0);
      parser.reset();
      depthLimiter.reset();
      parser.addErrorListener(&listener);
      parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
      parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
          antlr4::atn::PredictionMode::LL);
      tree = parser.file_input();
    }
  } catch (SyntaxErrorFound &found) {
    // The lexer stops at its first error with an EOF token; tripping over that EOF means the
    // lexical error came first.
    if (lexer.error() && found.token->getType() == Token::EOF)
      sources.error(lexer.error()->loc, lexer.error()->message);
    // As CPython does, a plain "invalid syntax" gives way to a malformed token anywhere later
    // in the file, and to a bracket left open on an earlier line: "'(' was never closed" at
    // the bracket says more than a complaint about the line after it.
    if (found.message == "invalid syntax") {
      tokens.fill();
      const std::optional<LexicalError> &later = lexer.error();
      if (later && (later->kind == LexicalError::Kind::Token ||
                    (later->kind == LexicalError::Kind::UnclosedBracket &&
                     later->loc.line < found.token->getLine())))
        sources.error(later->loc, later->message);
    }
    sources.error(SourceLoc{fileIndex, static_cast<uint32_t>(found.token->getLine()),
                            static_cast<uint32_t>(found.token->getCharPositionInLine() + 1)},
                  found.message);
  }
  if (lexer.error())
    sources.error(lexer.error()->loc, lexer.error()->message);

  ASTBuilder builder(sources, fileIndex);
  return builder.buildModule(tree);
}

} // namespace tilec
