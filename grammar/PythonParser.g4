// The syntax of Python 3 (3.8-3.11), for the Triton kernel language.
//
// The rules follow CPython's LL(1) grammar of Python 3.8 (Grammar/Grammar), which ANTLR parses in
// SLL mode almost without lookahead. Where that grammar needs more than a token to choose (a
// keyword argument `name=value` against an expression, a dict entry against a set element, the
// order of parameters), the rules here accept a little more and src/frontend/Parser.cpp checks
// the rest, with Python's messages. Keep it that way: rules whose alternatives share a long
// prefix make prediction scan whole expressions.
parser grammar PythonParser;

options {
  tokenVocab = PythonLexer;
}

file_input : (NEWLINE | stmt)* EOF;

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

stmt : simple_stmts | compound_stmt;

simple_stmts : simple_stmt (';' simple_stmt)* ';'? NEWLINE;

simple_stmt
  : expr_stmt
  | del_stmt
  | pass_stmt
  | flow_stmt
  | import_stmt
  | global_stmt
  | nonlocal_stmt
  | assert_stmt
  | type_alias_stmt
  ;

// Python 3.12's type alias statement, `type Name[T, *Ts, **P] = value`: TYPE is the soft
// keyword as IndentingLexer tells it from a name.
type_alias_stmt : TYPE NAME type_params? '=' test;

type_params : '[' type_param (',' type_param)* ','? ']';

type_param : ('*' | '**')? NAME (':' test)? ('=' test)?;

// `a = b = value`, `a += value`, `a: ann = value` or an expression on its own.
expr_stmt
  : testlist_star_expr
    ( annassign
    | augassign (yield_expr | testlist)
    | ('=' assign_value)*
    )
  ;

assign_value : yield_expr | testlist_star_expr;

annassign : ':' test ('=' assign_value)?;

augassign
  : '+=' | '-=' | '*=' | '@=' | '/=' | '%=' | '&=' | '|=' | '^=' | '<<=' | '>>=' | '**=' | '//='
  ;

del_stmt : 'del' exprlist;

pass_stmt : 'pass';

flow_stmt : break_stmt | continue_stmt | return_stmt | raise_stmt | yield_stmt;

break_stmt : 'break';

continue_stmt : 'continue';

return_stmt : 'return' testlist_star_expr?;

yield_stmt : yield_expr;

raise_stmt : 'raise' (test ('from' test)?)?;

import_stmt : import_name | import_from;

import_name : 'import' dotted_as_names;

// `from . import x`, `from ..a.b import (c as d, e)`, `from a import *`. The dots before the
// module are counted in Parser.cpp; '...' is a single token, worth three.
import_from
  : 'from' ('.' | '...')* dotted_name? 'import' ('*' | '(' import_as_names ')' | import_as_names)
  ;

import_as_name : NAME ('as' NAME)?;

dotted_as_name : dotted_name ('as' NAME)?;

import_as_names : import_as_name (',' import_as_name)* ','?;

dotted_as_names : dotted_as_name (',' dotted_as_name)*;

dotted_name : NAME ('.' NAME)*;

global_stmt : 'global' NAME (',' NAME)*;

nonlocal_stmt : 'nonlocal' NAME (',' NAME)*;

assert_stmt : 'assert' test (',' test)?;

compound_stmt
  : if_stmt
  | while_stmt
  | for_stmt
  | try_stmt
  | with_stmt
  | funcdef
  | classdef
  | decorated
  | async_stmt
  | match_stmt
  ;

async_stmt : 'async' (funcdef | with_stmt | for_stmt);

if_stmt : 'if' namedexpr_test ':' block elif_clause* else_clause?;

elif_clause : 'elif' namedexpr_test ':' block;

else_clause : 'else' ':' block;

while_stmt : 'while' namedexpr_test ':' block else_clause?;

for_stmt : 'for' exprlist 'in' testlist_star_expr ':' block else_clause?;

try_stmt
  : 'try' ':' block
    ( except_clause+ else_clause? finally_clause?
    | finally_clause
    )
  ;

// `except* E` is Python 3.11's exception groups.
except_clause : 'except' '*'? (test ('as' NAME)?)? ':' block;

finally_clause : 'finally' ':' block;

// Python 3.9 also allows the items in parentheses, which looks like a parenthesized expression
// until an `as` shows up; both parse, and the first alternative wins the tie.
with_stmt
  : 'with' ( '(' with_item (',' with_item)* ','? ')' | with_item (',' with_item)* ) ':' block
  ;

with_item : test ('as' expr)?;

// Python 3.10's structural pattern matching. MATCH and CASE are the soft keywords as
// IndentingLexer tells them from names. Patterns have their own small grammar (CPython's
// `patterns`); Parser.cpp tells a group `(p)` from a one-element sequence and checks what the
// grammar accepts too loosely (a star outside a sequence, a class pattern's keyword order).
match_stmt : MATCH subject_expr ':' NEWLINE INDENT case_block+ DEDENT;

subject_expr : (namedexpr_test | star_expr) (',' (namedexpr_test | star_expr))* ','?;

case_block : CASE sequence_items ('if' namedexpr_test)? ':' block;

// A case's patterns, or the inside of `(...)` and `[...]`: one pattern, or a sequence.
sequence_items : sequence_item (',' sequence_item)* ','?;

sequence_item : '*' NAME | pattern;

pattern : or_pattern ('as' NAME)?;

or_pattern : closed_pattern ('|' closed_pattern)*;

closed_pattern
  : literal_pattern                              # literalPattern
  | dotted_name ('(' pattern_arguments? ')')?    # namePattern
  | '(' sequence_items? ')'                      # parenPattern
  | '[' sequence_items? ']'                      # listPattern
  | '{' (mapping_item (',' mapping_item)* ','?)? '}' # mappingPattern
  ;

literal_pattern
  : signed_number (('+' | '-') (INTEGER | FLOAT_NUMBER | IMAG_NUMBER))?
  | STRING+
  | 'None'
  | 'True'
  | 'False'
  ;

signed_number : '-'? (INTEGER | FLOAT_NUMBER | IMAG_NUMBER);

mapping_item : '**' NAME | (literal_pattern | dotted_name) ':' pattern;

pattern_arguments : pattern_argument (',' pattern_argument)* ','?;

pattern_argument : NAME '=' pattern | pattern;

block : simple_stmts | NEWLINE INDENT stmt+ DEDENT;

decorator : '@' namedexpr_test NEWLINE;

decorators : decorator+;

decorated : decorators (classdef | funcdef | async_funcdef);

async_funcdef : 'async' funcdef;

// `def f[T](x: T) -> T:` (Python 3.12): the type parameters only name types for annotations.
funcdef : 'def' NAME type_params? parameters ('->' test)? ':' block;

parameters : '(' typedargslist? ')';

// Parameters in any order; Parser.cpp checks the order (defaults, `*`, `/`, `**`) as Python does.
typedargslist : typed_param (',' typed_param)* ','?;

typed_param
  : tfpdef ('=' test)?
  | '*' star_tfpdef?
  | '**' tfpdef
  | '/'
  ;

tfpdef : NAME (':' test)?;

// `*args: *Ts` unpacks a TypeVarTuple (Python 3.11).
star_tfpdef : NAME (':' (test | star_expr))?;

// Lambda parameters: as above, without annotations.
varargslist : untyped_param (',' untyped_param)* ','?;

untyped_param
  : NAME ('=' test)?
  | '*' NAME?
  | '**' NAME
  | '/'
  ;

classdef : 'class' NAME type_params? ('(' arglist? ')')? ':' block;

//===----------------------------------------------------------------------===//
// Expressions, from the loosest binding to the tightest
//===----------------------------------------------------------------------===//

namedexpr_test : test (':=' test)?;

test
  : or_test ('if' or_test 'else' test)?
  | lambdef
  ;

// A comprehension's `if` condition: no conditional expression at its top level.
test_nocond : or_test | lambdef_nocond;

lambdef : 'lambda' varargslist? ':' test;

lambdef_nocond : 'lambda' varargslist? ':' test_nocond;

or_test : and_test ('or' and_test)*;

and_test : not_test ('and' not_test)*;

not_test
  : 'not' not_test
  | comparison
  ;

comparison : expr (comp_op expr)*;

comp_op
  : '<'
  | '>'
  | '=='
  | '>='
  | '<='
  | '!='
  | 'in'
  | 'not' 'in'
  | 'is'
  | 'is' 'not'
  ;

star_expr : '*' expr;

expr : xor_expr ('|' xor_expr)*;

xor_expr : and_expr ('^' and_expr)*;

and_expr : shift_expr (('&') shift_expr)*;

shift_expr : arith_expr (shift_op arith_expr)*;

shift_op : '<<' | '>>';

arith_expr : term (arith_op term)*;

arith_op : '+' | '-';

term : factor (term_op factor)*;

term_op : '*' | '@' | '/' | '%' | '//';

factor
  : unary_op factor
  | power
  ;

unary_op : '+' | '-' | '~';

power : atom_expr ('**' factor)?;

atom_expr : 'await'? atom trailer*;

atom
  : '(' (yield_expr | testlist_comp)? ')'            # parenAtom
  | '[' testlist_comp? ']'                           # listAtom
  | '{' dictorsetmaker? '}'                          # dictOrSetAtom
  | NAME                                             # nameAtom
  | (INTEGER | FLOAT_NUMBER | IMAG_NUMBER)           # numberAtom
  | STRING+                                          # stringAtom
  | '...'                                            # ellipsisAtom
  | 'None'                                           # noneAtom
  | ('True' | 'False')                               # boolAtom
  ;

// The inside of (...) and [...]: one element, a tuple or list, or a comprehension.
testlist_comp
  : (namedexpr_test | star_expr) (comp_for | (',' (namedexpr_test | star_expr))* ','?)
  ;

trailer
  : '(' arglist? ')'          # callTrailer
  | '[' subscriptlist ']'     # subscriptTrailer
  | '.' NAME                  # attributeTrailer
  ;

subscriptlist : subscript (',' subscript)* ','?;

// `x[i]`, `x[a:b:c]`, `x[*ts]`, `x[i := j]` (Python 3.10; Parser.cpp rejects `x[i := j:k]`).
subscript
  : namedexpr_test (':' test? sliceop?)?
  | ':' test? sliceop?
  | star_expr
  ;

sliceop : ':' test?;

exprlist : (expr | star_expr) (',' (expr | star_expr))* ','?;

testlist : test (',' test)* ','?;

testlist_star_expr : (test | star_expr) (',' (test | star_expr))* ','?;

// Dict and set displays and comprehensions. Entries are parsed one by one (`k: v`, `**d`, `x`,
// `*xs`) and Parser.cpp rejects a display that mixes dict and set entries.
dictorsetmaker : dict_or_set_item (comp_for | (',' dict_or_set_item)* ','?);

dict_or_set_item
  : test (':' test)?
  | '**' expr
  | star_expr
  ;

arglist : argument (',' argument)* ','?;

// `f(x)`, `f(x for x in y)`, `f(name=value)`, `f(n := v)`, `f(*a)`, `f(**k)`. A keyword argument
// parses its name as an expression (so that one token decides) and Parser.cpp checks that it is
// a bare name.
argument
  : test (comp_for | ':=' test | '=' test)?
  | '**' test
  | '*' test
  ;

comp_iter : comp_for | comp_if;

comp_for : 'async'? 'for' exprlist 'in' or_test comp_iter?;

comp_if : 'if' test_nocond comp_iter?;

yield_expr : 'yield' ('from' test | testlist_star_expr)?;
