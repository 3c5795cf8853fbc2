// The embedded standard library: stdlib/*.tl, compiled into tilec by EmbedStdlib.cmake.
#include "frontend/Parser.h"
#include "sema/Sema.h"

namespace tilec::sema {
namespace {

struct EmbeddedFile {
  const char *name;
  const char *text;
};

const EmbeddedFile kStdlibFiles[] = {
#include "StdlibSources.inc"
};

} // namespace

std::vector<std::unique_ptr<ast::Module>> parseStdlib(SourceManager &sources) {
  std::vector<std::unique_ptr<ast::Module>> modules;
  for (const EmbeddedFile &file : kStdlibFiles) {
    uint32_t index = sources.addFile(std::string("<stdlib>/") + file.name, file.text);
    modules.push_back(parseModule(sources, index));
  }
  return modules;
}

} // namespace tilec::sema
