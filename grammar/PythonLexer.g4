// The tokens of Python 3 (3.8-3.11), for the Triton kernel language.
//
// Indentation is not handled here: the lexer emits every line break as NEWLINE and the leading
// whitespace of a line as WS, and src/frontend/IndentingLexer turns them into the NEWLINE, INDENT
// and DEDENT tokens the parser sees (dropping line breaks inside brackets and on blank lines).
//
// Malformed input is lexed into UNTERMINATED_STRING, UNTERMINATED_LONG_STRING and ERROR_CHAR tokens
// rather than into lexer errors, so that IndentingLexer can report it with a precise message.
lexer grammar PythonLexer;

// MATCH and CASE are Python 3.10's soft keywords `match` and `case` where they start a match
// statement or one of its case blocks; IndentingLexer retypes those NAME tokens (elsewhere they
// stay names: `match = re.match(...)`). TYPE is Python 3.12's soft keyword `type` where it starts
// a type alias statement (`type Grid = int | tuple[int, int]`).
tokens {
  INDENT,
  DEDENT,
  MATCH,
  CASE,
  TYPE
}

// Keywords. They precede NAME so that, at equal length, the keyword wins.
FALSE    : 'False';
NONE     : 'None';
TRUE     : 'True';
AND      : 'and';
AS       : 'as';
ASSERT   : 'assert';
ASYNC    : 'async';
AWAIT    : 'await';
BREAK    : 'break';
CLASS    : 'class';
CONTINUE : 'continue';
DEF      : 'def';
DEL      : 'del';
ELIF     : 'elif';
ELSE     : 'else';
EXCEPT   : 'except';
FINALLY  : 'finally';
FOR      : 'for';
FROM     : 'from';
GLOBAL   : 'global';
IF       : 'if';
IMPORT   : 'import';
IN       : 'in';
IS       : 'is';
LAMBDA   : 'lambda';
NONLOCAL : 'nonlocal';
NOT      : 'not';
OR       : 'or';
PASS     : 'pass';
RAISE    : 'raise';
RETURN   : 'return';
TRY      : 'try';
WHILE    : 'while';
WITH     : 'with';
YIELD    : 'yield';

NEWLINE : '\r'? '\n' | '\r';

// A string literal with any prefix (r, u, b, f and their combinations, any case). f-strings are
// whole tokens. Before Python 3.12 an f-string cannot contain its own quote character, so the
// ordinary string body rules find its end; since 3.12 (PEP 701) a replacement field may hold any
// string, its quotes included (`f"{".".join(parts)}"`), so an f-string may also run past its
// quote character while a field is open: the longer match wins. The parser tells bytes and
// f-strings apart by prefix.
STRING : STRING_PREFIX? (SHORT_STRING | LONG_STRING) | FSTRING_PREFIX (F_SHORT_STRING | F_LONG_STRING);

// What is left when a string has no closing quote. A terminated string is always a longer match,
// so these only win when the closing quote is missing.
UNTERMINATED_STRING      : STRING_PREFIX? ('\'' SHORT_SQ_CHAR* | '"' SHORT_DQ_CHAR*);
UNTERMINATED_LONG_STRING : STRING_PREFIX? ('\'\'\'' LONG_SQ_BODY | '"""' LONG_DQ_BODY);

INTEGER      : DECIMAL_INTEGER | OCT_INTEGER | HEX_INTEGER | BIN_INTEGER;
FLOAT_NUMBER : POINT_FLOAT | EXPONENT_FLOAT;
IMAG_NUMBER  : (POINT_FLOAT | EXPONENT_FLOAT | DIGIT_PART) [jJ];

ELLIPSIS    : '...';
DOT         : '.';
STAR        : '*';
OPEN_PAREN  : '(';
CLOSE_PAREN : ')';
COMMA       : ',';
COLON       : ':';
SEMI_COLON  : ';';
POWER       : '**';
ASSIGN      : '=';
OPEN_BRACK  : '[';
CLOSE_BRACK : ']';
OR_OP       : '|';
XOR         : '^';
AND_OP      : '&';
LEFT_SHIFT  : '<<';
RIGHT_SHIFT : '>>';
ADD         : '+';
MINUS       : '-';
DIV         : '/';
MOD         : '%';
IDIV        : '//';
NOT_OP      : '~';
OPEN_BRACE  : '{';
CLOSE_BRACE : '}';
LESS_THAN   : '<';
GREATER_THAN: '>';
EQUALS      : '==';
GT_EQ       : '>=';
LT_EQ       : '<=';
NOT_EQ      : '!=';
AT          : '@';
ARROW       : '->';
WALRUS      : ':=';

ADD_ASSIGN    : '+=';
SUB_ASSIGN    : '-=';
MULT_ASSIGN   : '*=';
AT_ASSIGN     : '@=';
DIV_ASSIGN    : '/=';
MOD_ASSIGN    : '%=';
AND_ASSIGN    : '&=';
OR_ASSIGN     : '|=';
XOR_ASSIGN    : '^=';
LEFT_SHIFT_ASSIGN  : '<<=';
RIGHT_SHIFT_ASSIGN : '>>=';
POWER_ASSIGN  : '**=';
IDIV_ASSIGN   : '//=';

// Identifiers may be any Unicode letter, as in Python (PEP 3131, approximated by categories).
NAME : ID_START ID_CONTINUE*;

// Whitespace is kept (off the parser's channel) because IndentingLexer measures a line's
// indentation from it.
WS : [ \t\f]+ -> channel(HIDDEN);

COMMENT : '#' ~[\r\n]* -> skip;

// A backslash at the end of a line joins it with the next one.
LINE_JOIN : '\\' ('\r'? '\n' | '\r') -> skip;

// Anything else is a character Python does not allow here; IndentingLexer reports it.
ERROR_CHAR : .;

fragment STRING_PREFIX
  : [rRuUfFbB]
  | [bB] [rR]
  | [rR] [bB]
  | [fF] [rR]
  | [rR] [fF]
  ;

fragment SHORT_STRING
  : '\'' SHORT_SQ_CHAR* '\''
  | '"' SHORT_DQ_CHAR* '"'
  ;

fragment SHORT_SQ_CHAR : STRING_ESCAPE | ~[\\\r\n'];
fragment SHORT_DQ_CHAR : STRING_ESCAPE | ~[\\\r\n"];

fragment LONG_STRING
  : '\'\'\'' LONG_SQ_BODY '\'\'\''
  | '"""' LONG_DQ_BODY '"""'
  ;

// The body of a triple-quoted string: anything that is not its closing delimiter. One or two
// quotes may appear as long as something else follows them.
fragment LONG_SQ_BODY : (LONG_SQ_CHAR | '\'' LONG_SQ_CHAR | '\'\'' LONG_SQ_CHAR)*;
fragment LONG_SQ_CHAR : STRING_ESCAPE | ~[\\'];
fragment LONG_DQ_BODY : (LONG_DQ_CHAR | '"' LONG_DQ_CHAR | '""' LONG_DQ_CHAR)*;
fragment LONG_DQ_CHAR : STRING_ESCAPE | ~[\\"];

fragment FSTRING_PREFIX : [fF] | [fF] [rR] | [rR] [fF];

// An f-string whose fields are lexed as Python 3.12 does: a field runs to its closing brace, past
// brackets and whole strings (f-strings included); `{{` and `}}` are literal braces.
fragment F_SHORT_STRING
  : '\'' (SHORT_SQ_CHAR_NO_BRACE | '{{' | '}}' | F_FIELD)* '\''
  | '"' (SHORT_DQ_CHAR_NO_BRACE | '{{' | '}}' | F_FIELD)* '"'
  ;

fragment F_LONG_STRING
  : '\'\'\'' (F_LONG_SQ_CHAR | '\'' F_LONG_SQ_CHAR | '\'\'' F_LONG_SQ_CHAR)* '\'\'\''
  | '"""' (F_LONG_DQ_CHAR | '"' F_LONG_DQ_CHAR | '""' F_LONG_DQ_CHAR)* '"""'
  ;

fragment SHORT_SQ_CHAR_NO_BRACE : STRING_ESCAPE | ~[\\\r\n'{}];
fragment SHORT_DQ_CHAR_NO_BRACE : STRING_ESCAPE | ~[\\\r\n"{}];
fragment F_LONG_SQ_CHAR : STRING_ESCAPE | ~[\\'{}] | '{{' | '}}' | F_FIELD;
fragment F_LONG_DQ_CHAR : STRING_ESCAPE | ~[\\"{}] | '{{' | '}}' | F_FIELD;

fragment F_FIELD : '{' F_FIELD_ITEM* '}';
fragment F_FIELD_ITEM
  : ~[{}'"\\\r\n]
  | STRING_PREFIX? (SHORT_STRING | LONG_STRING)
  | FSTRING_PREFIX (F_SHORT_STRING | F_LONG_STRING)
  | '{' F_FIELD_ITEM* '}'
  ;

// A backslash escapes any character, a line break included (which joins lines inside a string).
fragment STRING_ESCAPE : '\\' ('\r\n' | .);

fragment DECIMAL_INTEGER : NON_ZERO_DIGIT ('_'? DIGIT)* | '0'+ ('_'? '0')*;
fragment OCT_INTEGER     : '0' [oO] ('_'? [0-7])+;
fragment HEX_INTEGER     : '0' [xX] ('_'? [0-9a-fA-F])+;
fragment BIN_INTEGER     : '0' [bB] ('_'? [01])+;

fragment POINT_FLOAT    : DIGIT_PART? FRACTION | DIGIT_PART '.';
fragment EXPONENT_FLOAT : (DIGIT_PART | POINT_FLOAT) EXPONENT;
fragment DIGIT_PART     : DIGIT ('_'? DIGIT)*;
fragment FRACTION       : '.' DIGIT_PART;
fragment EXPONENT       : [eE] [+-]? DIGIT_PART;

fragment NON_ZERO_DIGIT : [1-9];
fragment DIGIT          : [0-9];

fragment ID_START    : [_\p{L}\p{Nl}];
fragment ID_CONTINUE : [\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]; // Pc has '_', Nd has 0-9
