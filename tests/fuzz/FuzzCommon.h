// What the fuzz targets share: the input in a file (the pipeline reads its source from a path), and
// the rule that decides what counts as a bug. Bad input must end in a located CompileError; an
// internal compiler error (a verifier failure between passes) or any other exception is a bug, and
// is turned into an abort so that libFuzzer records the input.
#pragma once

#include "frontend/SourceManager.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace tilec::fuzz {

/// A path private to this process that holds `text`.
inline std::string writeInput(const std::string &text) {
  static const std::string path = "/tmp/tilec-fuzz-" + std::to_string(getpid()) + ".tl";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return path;
}

/// Runs `body`, accepting clean compile errors and aborting on anything else.
template <typename Body> void expectNoInternalError(Body &&body) {
  try {
    body();
  } catch (const CompileError &e) {
    // Only the message's start: a diagnostic quotes the source line, which may say anything.
    if (std::string(e.what()).rfind("internal compiler error", 0) != 0)
      return;
    std::fprintf(stderr, "%s\n", e.what());
    std::abort();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "uncaught exception: %s\n", e.what());
    std::abort();
  }
}

} // namespace tilec::fuzz
