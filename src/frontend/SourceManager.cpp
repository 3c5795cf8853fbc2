#include "frontend/SourceManager.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace tilec {

SourceManager::SourceManager() : stream_(&std::cerr) {}

uint32_t SourceManager::addFile(std::string name, std::string text) {
  auto file = std::make_unique<SourceFile>();
  file->name = std::move(name);
  file->text = std::move(text);
  file->lineStarts.push_back(0);
  for (size_t i = 0; i < file->text.size(); ++i)
    if (file->text[i] == '\n')
      file->lineStarts.push_back(i + 1);
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size() - 1);
}

uint32_t SourceManager::loadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string message = "error: cannot open '" + path + "': no such file or not readable";
    if (stream_)
      *stream_ << message << "\n";
    throw CompileError(message, stream_ != nullptr);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return addFile(path, text.str());
}

std::string SourceManager::lineText(uint32_t fileIndex, uint32_t line) const {
  if (fileIndex >= files_.size())
    return "";
  const SourceFile &f = *files_[fileIndex];
  if (line == 0 || line > f.lineStarts.size())
    return "";
  size_t begin = f.lineStarts[line - 1];
  size_t end = f.text.find('\n', begin);
  if (end == std::string::npos)
    end = f.text.size();
  std::string text = f.text.substr(begin, end - begin);
  if (!text.empty() && text.back() == '\r')
    text.pop_back();
  return text;
}

std::string SourceManager::format(SourceLoc loc, const std::string &severity,
                                  const std::string &message) const {
  std::ostringstream os;
  if (loc.file < files_.size())
    os << files_[loc.file]->name << ":";
  if (loc.isValid())
    os << loc.line << ":" << loc.col << ":";
  if (loc.file < files_.size() || loc.isValid())
    os << " ";
  os << severity << ": " << message << "\n";
  if (!loc.isValid())
    return os.str();
  std::string line = lineText(loc.file, loc.line);
  os << line << "\n";
  // Tabs in the source line are kept in the caret line so that the caret lines up.
  for (uint32_t i = 1; i < loc.col && i - 1 < line.size(); ++i)
    os << (line[i - 1] == '\t' ? '\t' : ' ');
  os << "^\n";
  return os.str();
}

void SourceManager::error(SourceLoc loc, const std::string &message,
                          CompileError::Kind kind) const {
  std::string text = format(loc, "error", message);
  if (stream_)
    *stream_ << text << std::flush;
  throw CompileError(text, stream_ != nullptr, kind);
}

void SourceManager::warning(SourceLoc loc, const std::string &message) const {
  if (stream_)
    *stream_ << format(loc, "warning", message);
}

void SourceManager::note(SourceLoc loc, const std::string &message) const {
  if (stream_)
    *stream_ << format(loc, "note", message);
}

} // namespace tilec
