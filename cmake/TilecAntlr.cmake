# Finds the ANTLR 4 tool and C++ runtime and provides tilec_antlr_generate(), which turns the
# grammar into C++ at build time. Nothing generated is committed.
find_program(ANTLR4_TOOL NAMES antlr4 REQUIRED)
find_path(ANTLR4_INCLUDE_DIR antlr4-runtime.h PATH_SUFFIXES antlr4-runtime REQUIRED)
find_library(ANTLR4_RUNTIME_LIBRARY NAMES antlr4-runtime REQUIRED)

# tilec_antlr_generate(<out-var> LEXER <file.g4> PARSER <file.g4> NAMESPACE <ns>)
# Sets <out-var> to the generated .cpp files.
function(tilec_antlr_generate out)
  cmake_parse_arguments(ARG "" "LEXER;PARSER;NAMESPACE" "" ${ARGN})
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/antlr)
  get_filename_component(lexer ${ARG_LEXER} NAME_WE)
  get_filename_component(parser ${ARG_PARSER} NAME_WE)
  set(sources ${gen}/${lexer}.cpp ${gen}/${parser}.cpp ${gen}/${parser}BaseVisitor.cpp
              ${gen}/${parser}Visitor.cpp)
  set(headers ${gen}/${lexer}.h ${gen}/${parser}.h ${gen}/${parser}BaseVisitor.h
              ${gen}/${parser}Visitor.h)
  add_custom_command(
    OUTPUT ${sources} ${headers}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}
    # -Xexact-output-dir keeps the generated files flat in ${gen} whatever the grammar paths are.
    COMMAND ${ANTLR4_TOOL} -Dlanguage=Cpp -visitor -no-listener -package ${ARG_NAMESPACE}
            -Xexact-output-dir -o ${gen} ${ARG_LEXER}
    COMMAND ${ANTLR4_TOOL} -Dlanguage=Cpp -visitor -no-listener -package ${ARG_NAMESPACE}
            -Xexact-output-dir -lib ${gen} -o ${gen} ${ARG_PARSER}
    DEPENDS ${ARG_LEXER} ${ARG_PARSER}
    COMMENT "Generating the ANTLR lexer and parser"
    VERBATIM)
  set(${out} ${sources} PARENT_SCOPE)
  set(${out}_DIR ${gen} PARENT_SCOPE)
endfunction()
