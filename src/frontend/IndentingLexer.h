// The Python lexer with indentation: turns the generated lexer's line breaks and leading
// whitespace into the NEWLINE, INDENT and DEDENT tokens that the parser's `block` rule expects.
//
// Private to src/frontend (it exposes ANTLR types); the rest of tilec sees only Parser.h.
#pragma once

#include "PythonLexer.h"
#include "frontend/SourceManager.h"

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

/// A lexical error: where, what kind, and Python's message for it.
struct LexicalError {
  enum class Kind {
    Indentation,     // unexpected unindent, missing indented block
    UnclosedBracket, // a bracket still open at the end of the input
    Token,           // a malformed token or a mismatched closing bracket
  };
  SourceLoc loc;
  Kind kind;
  std::string message;
};

/// Emits tokens the way Python's tokenizer does:
///  - NEWLINE ends a logical line; none inside (), [] or {}, after a backslash continuation, or
///    for blank and comment-only lines;
///  - INDENT when a line is indented deeper than the enclosing block, one DEDENT per block it
///    closes (tabs advance to the next multiple of 8, a form feed resets the column);
///  - at end of input, a NEWLINE if the last line lacks one, then the pending DEDENTs;
///  - MATCH for a `match` that starts a match statement (a logical line that begins with the
///    name `match` and ends with ':', which no other statement does), CASE for a `case` that
///    starts a line directly in a match statement's block; elsewhere both are names;
///  - TYPE for a `type` that starts a type alias statement (a logical line that begins with the
///    name `type` followed by another name: `type X = ...`, `type X[T] = ...`; `type = 1` and
///    `type(x)` keep the name).
/// INDENT, DEDENT and NEWLINE tokens take the position of the token that caused them (for a
/// NEWLINE, of the line break), so that diagnostics can point at them.
///
/// The first lexical error (bad indentation, an unterminated string, an unmatched bracket, a
/// stray character) ends the token stream: the lexer records it and returns EOF from then on.
/// The parser then decides which comes first in the source, the lexical error or a syntax error
/// before it, and reports that one.
class IndentingLexer : public grammar::PythonLexer {
public:
  /// `fileIndex` locates errors in `sources`; `input` is that file's text.
  IndentingLexer(antlr4::CharStream *input, uint32_t fileIndex);

  std::unique_ptr<antlr4::Token> nextToken() override;

  /// The first lexical error, if one was met.
  const std::optional<LexicalError> &error() const { return error_; }

  /// CPython's limits, which also keep the recursive descent of the parser and of everything
  /// that walks the AST well within the stack.
  static constexpr size_t kMaxBracketDepth = 200;
  static constexpr size_t kMaxIndentLevels = 100; // the module level included

private:
  struct OpenBracket {
    size_t tokenType;
    std::string text;
    SourceLoc loc;
  };

  /// Turns one token of the generated lexer into the tokens it stands for, queued in pending_.
  void processRawToken(std::unique_ptr<antlr4::Token> token);
  /// Queues the NEWLINE that ends the current logical line.
  void endLogicalLine(size_t charIndex);
  /// Handles a token that starts a logical line: compares its indentation with the open blocks.
  void handleIndentation(const antlr4::Token &firstToken);
  /// Tracks (, [ and { so that line breaks inside them are ignored; reports mismatches.
  void trackBrackets(const antlr4::Token &token);
  /// Queues the end of input: NEWLINE, DEDENTs, EOF.
  void handleEndOfInput(std::unique_ptr<antlr4::Token> eofToken);
  /// A token made up here (NEWLINE, INDENT, DEDENT) at the position of `at`.
  std::unique_ptr<antlr4::Token> makeToken(size_t type, const std::string &text,
                                           const antlr4::Token &at);
  SourceLoc locOf(const antlr4::Token &token) const;
  /// Retypes the soft keyword `match` or `case` that starts a logical line, or holds the line
  /// back until its end tells whether `match` starts a match statement.
  void handleSoftKeyword(antlr4::Token &firstToken);
  void fail(SourceLoc loc, LexicalError::Kind kind, std::string message);

  uint32_t fileIndex_;
  std::deque<std::unique_ptr<antlr4::Token>> pending_;
  std::vector<unsigned> indentStack_{0};
  std::vector<OpenBracket> brackets_;
  /// No token of the current logical line has been seen yet.
  bool atLineStart_ = true;
  /// The indentation of the current line so far, in columns.
  unsigned lineIndent_ = 0;
  /// The last logical line ended with ':', so the next line must open a block.
  bool expectIndent_ = false;
  /// Where the block announced by expectIndent_ was announced (the NEWLINE after the ':').
  SourceLoc blockStartLoc_;
  /// Type of the last token queued for the parser, and the 0-based line and column after the
  /// last real (not NEWLINE, INDENT or DEDENT) one.
  size_t lastTokenType_ = 0;
  std::pair<size_t, size_t> lastTokenEnd_{1, 0};
  std::optional<LexicalError> error_;
  bool finished_ = false;
  /// The `match` that starts the current logical line, queued but held back from the parser
  /// until the line ends; null when nothing is held.
  antlr4::Token *heldMatch_ = nullptr;
  /// The `type` that starts the current logical line, queued but held back from the parser until
  /// the line's next token tells whether it starts a type alias statement; null when none is.
  antlr4::Token *heldType_ = nullptr;
  /// Tokens of the current logical line so far.
  size_t lineTokens_ = 0;
  /// The last logical line was a match statement's: the next INDENT opens its case blocks.
  bool matchBlockNext_ = false;
  /// indentStack_.size() inside each open match statement's block, innermost last.
  std::vector<size_t> matchBlocks_;
};

} // namespace tilec
