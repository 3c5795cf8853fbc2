# Writes the stdlib .tl files into a C++ include file, so that tilec needs no files at run time.
#   cmake -DOUTPUT=<file.inc> -DSOURCES=<a.tl;b.tl> -P EmbedStdlib.cmake
# Each file becomes one {name, text} entry of an initializer list; the text is a raw string
# literal, whose delimiter cannot occur in Python source.
set(content "// Generated from stdlib/*.tl by src/sema/EmbedStdlib.cmake; do not edit.\n")
foreach(source ${SOURCES})
  get_filename_component(name "${source}" NAME)
  file(READ "${source}" text)
  string(FIND "${text}" ")tilec_stdlib\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${source} contains the raw string delimiter )tilec_stdlib\"")
  endif()
  string(APPEND content "{\"${name}\", R\"tilec_stdlib(${text})tilec_stdlib\"},\n")
endforeach()
# Only touch the output when it changes, so that unrelated reconfigures rebuild nothing.
set(write TRUE)
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL content)
    set(write FALSE)
  endif()
endif()
if(write)
  file(WRITE "${OUTPUT}" "${content}")
endif()
