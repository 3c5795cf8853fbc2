#include "frontend/IndentingLexer.h"

namespace tilec {

using antlr4::Token;

namespace {

/// Number of characters (code points) in UTF-8 text.
size_t countCodePoints(const std::string &text) {
  size_t count = 0;
  for (unsigned char byte : text)
    if ((byte & 0xC0) != 0x80)
      ++count;
  return count;
}

/// The 0-based line and column just after `token`, which may span lines (a triple-quoted string).
std::pair<size_t, size_t> endPosition(const Token &token) {
  std::string text = token.getText();
  size_t lastBreak = text.rfind('\n');
  if (lastBreak == std::string::npos)
    return {token.getLine(), token.getCharPositionInLine() + countCodePoints(text)};
  size_t breaks = 0;
  for (char c : text)
    breaks += c == '\n';
  return {token.getLine() + breaks, countCodePoints(text.substr(lastBreak + 1))};
}

bool isOpenBracket(size_t type) {
  return type == grammar::PythonLexer::OPEN_PAREN || type == grammar::PythonLexer::OPEN_BRACK ||
         type == grammar::PythonLexer::OPEN_BRACE;
}

bool isCloseBracket(size_t type) {
  return type == grammar::PythonLexer::CLOSE_PAREN || type == grammar::PythonLexer::CLOSE_BRACK ||
         type == grammar::PythonLexer::CLOSE_BRACE;
}

size_t closingFor(size_t openType) {
  switch (openType) {
  case grammar::PythonLexer::OPEN_PAREN:
    return grammar::PythonLexer::CLOSE_PAREN;
  case grammar::PythonLexer::OPEN_BRACK:
    return grammar::PythonLexer::CLOSE_BRACK;
  default:
    return grammar::PythonLexer::CLOSE_BRACE;
  }
}

} // namespace

IndentingLexer::IndentingLexer(antlr4::CharStream *input, uint32_t fileIndex)
    : PythonLexer(input), fileIndex_(fileIndex) {
  // Errors become tokens (ERROR_CHAR...) that this class reports; nothing goes to the console.
  removeErrorListeners();
}

SourceLoc IndentingLexer::locOf(const Token &token) const {
  return SourceLoc{fileIndex_, static_cast<uint32_t>(token.getLine()),
                   static_cast<uint32_t>(token.getCharPositionInLine() + 1)};
}

std::unique_ptr<Token> IndentingLexer::makeToken(size_t type, const std::string &text,
                                                 const Token &at) {
  size_t start = at.getStartIndex();
  return _factory->create({this, _input}, type, text, DEFAULT_TOKEN_CHANNEL, start, start - 1,
                          at.getLine(), at.getCharPositionInLine());
}

void IndentingLexer::fail(SourceLoc loc, LexicalError::Kind kind, std::string message) {
  error_ = LexicalError{loc, kind, std::move(message)};
  pending_.clear();
  heldMatch_ = nullptr;
  heldType_ = nullptr;
  // The stream ends here, with an EOF at the error so that a parser that trips over it reports
  // the lexical error rather than a syntax error.
  size_t index = _input->index();
  pending_.push_back(_factory->create({this, _input}, Token::EOF, "<EOF>", DEFAULT_TOKEN_CHANNEL,
                                      index, index - 1, loc.line, loc.col - 1));
  finished_ = true;
}

std::unique_ptr<Token> IndentingLexer::nextToken() {
  while (pending_.empty() || heldMatch_ || heldType_) {
    if (finished_) {
      // Asked again after the end: keep answering EOF.
      size_t index = _input->index();
      return _factory->create({this, _input}, Token::EOF, "<EOF>", DEFAULT_TOKEN_CHANNEL, index,
                              index - 1, getLine(), getCharPositionInLine());
    }
    processRawToken(PythonLexer::nextToken());
  }
  std::unique_ptr<Token> token = std::move(pending_.front());
  pending_.pop_front();
  return token;
}

void IndentingLexer::processRawToken(std::unique_ptr<Token> token) {
  switch (token->getType()) {
  case WS:
    if (!atLineStart_)
      return;
    for (char c : token->getText()) {
      if (c == '\t')
        lineIndent_ = (lineIndent_ / 8 + 1) * 8;
      else if (c == '\f')
        lineIndent_ = 0; // as in CPython: a form feed resets the indentation
      else
        ++lineIndent_;
    }
    return;
  case NEWLINE:
    if (!brackets_.empty())
      return; // implicit line joining inside brackets
    if (atLineStart_) {
      lineIndent_ = 0; // a blank or comment-only line
      return;
    }
    endLogicalLine(token->getStartIndex());
    return;
  case Token::EOF:
    handleEndOfInput(std::move(token));
    return;
  case UNTERMINATED_STRING:
    fail(locOf(*token), LexicalError::Kind::Token, "unterminated string literal");
    return;
  case UNTERMINATED_LONG_STRING:
    fail(locOf(*token), LexicalError::Kind::Token, "unterminated triple-quoted string literal");
    return;
  case ERROR_CHAR:
    fail(locOf(*token), LexicalError::Kind::Token,
         token->getText() == "\\" ? "unexpected character after line continuation character"
                                  : "invalid character '" + token->getText() + "'");
    return;
  default:
    if (atLineStart_) {
      handleIndentation(*token);
      atLineStart_ = false;
      lineTokens_ = 0;
      if (!error_)
        handleSoftKeyword(*token);
    }
    if (heldType_ && lineTokens_ == 1) {
      // Python 3.12's `type NAME ...` alias statement: no other statement starts with two names.
      if (token->getType() == NAME)
        static_cast<antlr4::WritableToken *>(heldType_)->setType(TYPE);
      heldType_ = nullptr;
    }
    if (!error_)
      trackBrackets(*token);
    if (error_)
      return;
    ++lineTokens_;
    lastTokenType_ = token->getType();
    lastTokenEnd_ = endPosition(*token);
    pending_.push_back(std::move(token));
    return;
  }
}

void IndentingLexer::handleSoftKeyword(Token &firstToken) {
  if (firstToken.getType() != NAME)
    return;
  const std::string text = firstToken.getText();
  if (text == "case" && !matchBlocks_.empty() && matchBlocks_.back() == indentStack_.size()) {
    // A match statement's block holds only case blocks.
    static_cast<antlr4::WritableToken &>(firstToken).setType(CASE);
    return;
  }
  if (text == "match")
    heldMatch_ = &firstToken;
  if (text == "type")
    heldType_ = &firstToken;
}

void IndentingLexer::endLogicalLine(size_t charIndex) {
  if (heldMatch_) {
    // `match SUBJECT:` is the only statement that starts with a name and ends with ':' (a
    // compound statement's header; an expression or an annotation never ends with one).
    if (lastTokenType_ == COLON && lineTokens_ >= 3) {
      static_cast<antlr4::WritableToken *>(heldMatch_)->setType(MATCH);
      matchBlockNext_ = true;
    }
    heldMatch_ = nullptr;
  }
  heldType_ = nullptr;
  // The NEWLINE goes just after the line's last token, where Python places it: "expected ':'"
  // then points right after `def f(x)`, not after a trailing comment.
  pending_.push_back(_factory->create({this, _input}, NEWLINE, "\n", DEFAULT_TOKEN_CHANNEL,
                                      charIndex, charIndex - 1, lastTokenEnd_.first,
                                      lastTokenEnd_.second));
  expectIndent_ = lastTokenType_ == COLON;
  blockStartLoc_ = locOf(*pending_.back());
  lastTokenType_ = NEWLINE;
  atLineStart_ = true;
  lineIndent_ = 0;
}

void IndentingLexer::handleIndentation(const Token &firstToken) {
  if (lineIndent_ > indentStack_.back()) {
    // Deeper than the enclosing block. Emitted even where no block may start: the parser then
    // reports "unexpected indent" at it.
    if (indentStack_.size() >= kMaxIndentLevels) {
      fail(locOf(firstToken), LexicalError::Kind::Indentation, "too many levels of indentation");
      return;
    }
    indentStack_.push_back(lineIndent_);
    pending_.push_back(makeToken(INDENT, "<INDENT>", firstToken));
    expectIndent_ = false;
    if (matchBlockNext_)
      matchBlocks_.push_back(indentStack_.size());
    matchBlockNext_ = false;
    return;
  }
  if (expectIndent_) {
    fail(locOf(firstToken), LexicalError::Kind::Indentation, "expected an indented block");
    return;
  }
  while (lineIndent_ < indentStack_.back()) {
    indentStack_.pop_back();
    pending_.push_back(makeToken(DEDENT, "<DEDENT>", firstToken));
  }
  while (!matchBlocks_.empty() && matchBlocks_.back() > indentStack_.size())
    matchBlocks_.pop_back();
  if (lineIndent_ != indentStack_.back())
    fail(locOf(firstToken), LexicalError::Kind::Indentation,
         "unindent does not match any outer indentation level");
}

void IndentingLexer::trackBrackets(const Token &token) {
  size_t type = token.getType();
  if (isOpenBracket(type)) {
    if (brackets_.size() == kMaxBracketDepth) {
      fail(locOf(token), LexicalError::Kind::Token, "too many nested parentheses");
      return;
    }
    brackets_.push_back(OpenBracket{type, token.getText(), locOf(token)});
    return;
  }
  if (!isCloseBracket(type))
    return;
  if (brackets_.empty()) {
    fail(locOf(token), LexicalError::Kind::Token, "unmatched '" + token.getText() + "'");
    return;
  }
  const OpenBracket &open = brackets_.back();
  if (closingFor(open.tokenType) != type) {
    std::string message = "closing parenthesis '" + token.getText() +
                          "' does not match opening parenthesis '" + open.text + "'";
    if (open.loc.line != token.getLine())
      message += " on line " + std::to_string(open.loc.line);
    fail(locOf(token), LexicalError::Kind::Token, message);
    return;
  }
  brackets_.pop_back();
}

void IndentingLexer::handleEndOfInput(std::unique_ptr<Token> eofToken) {
  if (!brackets_.empty()) {
    fail(brackets_.back().loc, LexicalError::Kind::UnclosedBracket,
         "'" + brackets_.back().text + "' was never closed");
    return;
  }
  if (!atLineStart_)
    endLogicalLine(eofToken->getStartIndex());
  if (expectIndent_) {
    // The last line ended with ':' and no block followed it.
    fail(blockStartLoc_, LexicalError::Kind::Indentation, "expected an indented block");
    return;
  }
  // The closing DEDENTs and the EOF go right after the last token, like the final NEWLINE, so
  // that an error at the end of the input points at the end of the code, not past it.
  size_t index = eofToken->getStartIndex();
  auto atEnd = [&](size_t type, const char *text) {
    pending_.push_back(_factory->create({this, _input}, type, text, DEFAULT_TOKEN_CHANNEL, index,
                                        index - 1, lastTokenEnd_.first, lastTokenEnd_.second));
  };
  while (indentStack_.size() > 1) {
    indentStack_.pop_back();
    atEnd(DEDENT, "<DEDENT>");
  }
  atEnd(Token::EOF, "<EOF>");
  finished_ = true;
}

} // namespace tilec
