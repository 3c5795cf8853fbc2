#include "driver/Binary.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;

namespace tilec::driver {
namespace {

using Json = nlohmann::json;

bool isExecutable(const std::string &path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

/// A private temporary folder, removed with everything in it when this goes away.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/tilec-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
      throw CompileError("error: cannot create a temporary folder in '" +
                         std::string(base && *base ? base : "/tmp") + "': " + std::strerror(errno));
    path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << bytes) || !out.flush())
    throw CompileError("error: cannot write the temporary file '" + path + "'");
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `argv` with its output (stdout and stderr) in `logPath`; returns its exit status, or -1
/// when it could not be started or died of a signal.
int runTool(const std::vector<std::string> &argv, const std::string &logPath) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int spawned = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string requireTool(const std::string &name, const char *purpose) {
  std::string path = findCudaTool(name);
  if (path.empty())
    throw CompileError(
        "error: " + std::string(purpose) + " needs the CUDA toolkit's '" + name + "', not found " +
        (std::getenv("CUDA_HOME") && *std::getenv("CUDA_HOME")
             ? "in $CUDA_HOME/bin (" + std::string(std::getenv("CUDA_HOME")) + "/bin)"
             : std::string("on PATH nor in /usr/local/cuda/bin")) +
        "; install the CUDA toolkit or set CUDA_HOME");
  return path;
}

/// Runs a tool; returns what it printed. Throws CompileError with that output when it fails.
std::string runOrFail(const std::vector<std::string> &argv, const TempDir &temp,
                      const std::string &what) {
  std::string log = temp.file("tool.log");
  int status = runTool(argv, log);
  std::string output = readFile(log);
  if (status == 0)
    return output;
  while (!output.empty() && output.back() == '\n')
    output.pop_back();
  throw CompileError("error: " + what + " failed (" + argv[0] +
                     (status < 0 ? ": could not run" : ", exit status " + std::to_string(status)) +
                     ")" + (output.empty() ? "" : ":\n" + output));
}

/// Registers that do not fit: from ptxas -v's report, a warning for each kernel that spills to
/// local memory. ptxas never fails for lack of registers (the PTX's .maxntid bounds them), it
/// spills; this says so at compile time, before the kernel is slower than it looks.
///   ptxas info    : Compiling entry function 'k' for 'sm_90a'
///       88 bytes stack frame, 84 bytes spill stores, 84 bytes spill loads
///   ptxas info    : Used 255 registers, used 1 barriers, 88 bytes cumulative stack size
void warnAboutSpills(const std::string &ptxasReport, const std::string &arch, std::ostream &log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex spills(R"((\d+) bytes spill stores)");
  static const std::regex registers(R"(Used (\d+) registers)");
  std::string kernel;
  unsigned long spilled = 0;
  auto report = [&](const std::string &used) {
    if (kernel.empty() || spilled == 0)
      return;
    log << "warning: kernel '" << kernel << "' does not fit in registers on " << arch
        << ": ptxas uses " << used << " registers per thread and spills " << spilled
        << " bytes per thread to local memory (slow); a smaller tile per thread (more warps, "
           "smaller blocks, fewer pipeline stages) avoids it\n";
  };
  std::istringstream lines(ptxasReport);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, entry)) {
      kernel = match[1];
      spilled = 0;
    } else if (std::regex_search(line, match, spills)) {
      spilled = std::stoul(match[1]);
    } else if (std::regex_search(line, match, registers)) {
      report(match[1]);
      kernel.clear();
    }
  }
}

/// ptxas: `ptxFile` assembled for `arch` into `cubinFile`, with a warning for each kernel that
/// spills.
void runPtxas(const std::string &ptxas, const std::string &arch, const std::string &ptxFile,
              const std::string &cubinFile, const TempDir &temp, std::ostream &log) {
  std::string report = runOrFail({ptxas, "-v", "-arch=" + arch, "-o", cubinFile, ptxFile}, temp,
                                 "ptxas for " + arch);
  warnAboutSpills(report, arch, log);
}

/// "sm_90a" -> "90a", the spelling fatbinary's sm= takes.
std::string smNumber(const std::string &arch) {
  return arch.substr(3);
}

unsigned smValue(const std::string &arch) {
  return static_cast<unsigned>(std::strtoul(arch.c_str() + 3, nullptr, 10));
}

/// The kernels' metadata for several targets: the first target's, with every target listed and
/// each kernel's shared memory the largest any target's code needs (a launcher passes one figure
/// whichever image the driver picks).
std::string mergeMetadata(const std::vector<std::string> &jsons,
                          const std::vector<std::string> &archs) {
  Json merged = Json::parse(jsons[0]);
  merged["targets"] = archs;
  for (size_t i = 1; i < jsons.size(); ++i) {
    Json other = Json::parse(jsons[i]);
    Json &kernels = merged.at("kernels");
    const Json &otherKernels = other.at("kernels");
    if (kernels.size() != otherKernels.size())
      throw CompileError("internal compiler error: the kernels differ between targets");
    for (size_t k = 0; k < kernels.size(); ++k) {
      // One description serves every image: the kernels must take the same parameters, which
      // TMA's tensor maps (sm_90a only) may not.
      auto sameMaps = [&](const Json &a, const Json &b, const std::string &what) {
        Json none = Json::array();
        if (a.value("tensor_maps", none) == b.value("tensor_maps", none))
          return;
        throw CompileError(
            "error: kernel '" + what + "' takes TMA tensor maps for " +
            (a.contains("tensor_maps") && !a["tensor_maps"].empty() ? archs[0] : archs[i]) +
            " but not for " +
            (a.contains("tensor_maps") && !a["tensor_maps"].empty() ? archs[i] : archs[0]) +
            ", so one fatbin cannot describe both: its tensor descriptor loads are "
            "TMA copies only on sm_90a; build the targets into separate files");
      };
      sameMaps(kernels[k], otherKernels[k], kernels[k].value("name", std::string("?")));
      if (kernels[k].contains("variants"))
        for (size_t v = 0; v < kernels[k]["variants"].size(); ++v)
          sameMaps(kernels[k]["variants"][v], otherKernels[k].at("variants").at(v),
                   kernels[k]["variants"][v].value("entry", std::string("?")));
      auto widen = [](Json &into, const Json &from) {
        unsigned a = into.at("shared_memory_bytes").get<unsigned>();
        unsigned b = from.at("shared_memory_bytes").get<unsigned>();
        into["shared_memory_bytes"] = std::max(a, b);
      };
      widen(kernels[k], otherKernels[k]);
      if (kernels[k].contains("variants"))
        for (size_t v = 0; v < kernels[k]["variants"].size(); ++v)
          widen(kernels[k]["variants"][v], otherKernels[k].at("variants").at(v));
    }
  }
  return merged.dump(2) + "\n";
}

} // namespace

std::string findCudaTool(const std::string &name) {
  // $CUDA_HOME, when set, names the toolkit to use: no other is looked for.
  if (const char *home = std::getenv("CUDA_HOME"); home && *home) {
    std::string path = std::string(home) + "/bin/" + name;
    return isExecutable(path) ? path : "";
  }
  if (const char *path = std::getenv("PATH")) {
    std::string dirs = path;
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t colon = dirs.find(':', start);
      std::string dir = dirs.substr(start, colon == std::string::npos ? colon : colon - start);
      if (!dir.empty() && isExecutable(dir + "/" + name))
        return dir + "/" + name;
      if (colon == std::string::npos)
        break;
      start = colon + 1;
    }
  }
  if (std::string path = "/usr/local/cuda/bin/" + name; isExecutable(path))
    return path;
  return "";
}

std::string assembleCubin(const std::string &ptx, const std::string &arch, std::ostream &log) {
  std::string ptxas = requireTool("ptxas", "--emit cubin/fatbin");
  TempDir temp;
  writeFile(temp.file("kernel.ptx"), ptx);
  runPtxas(ptxas, arch, temp.file("kernel.ptx"), temp.file("kernel.cubin"), temp, log);
  return readFile(temp.file("kernel.cubin"));
}

CompileResult compileBinary(const CompileOptions &options, const std::vector<std::string> &archs,
                            bool cubin, SourceManager &sources, std::ostream &log) {
  // Fail before compiling anything when a tool is missing.
  std::string ptxas = requireTool("ptxas", cubin ? "--emit cubin" : "--emit fatbin");
  std::string fatbinary = cubin ? "" : requireTool("fatbinary", "--emit fatbin");
  std::vector<std::string> ptxs, metadata;
  CompileResult result;
  for (const std::string &arch : archs) {
    CompileOptions perArch = options;
    perArch.arch = arch;
    perArch.emit = EmitKind::Ptx;
    CompileResult one = compile(perArch, sources, log);
    ptxs.push_back(std::move(one.output));
    metadata.push_back(std::move(one.metadata));
    if (result.sourceFiles.empty())
      result.sourceFiles = std::move(one.sourceFiles);
  }
  if (cubin) {
    result.output = assembleCubin(ptxs[0], archs[0], log);
    result.metadata = metadata[0];
    return result;
  }

  TempDir temp;
  std::vector<std::string> command = {fatbinary, "-64", "--create=" + temp.file("out.fatbin")};
  // The newest arch-independent target's PTX: the driver JITs it on GPUs newer than every
  // image. PTX of an `a` target (sm_90a) runs on that architecture only, so it is never kept.
  int ptxIndex = -1;
  for (size_t i = 0; i < archs.size(); ++i)
    if (archs[i].back() != 'a' && (ptxIndex < 0 || smValue(archs[i]) > smValue(archs[ptxIndex])))
      ptxIndex = static_cast<int>(i);
  for (size_t i = 0; i < archs.size(); ++i) {
    std::string name = "kernel_" + smNumber(archs[i]);
    writeFile(temp.file(name + ".ptx"), ptxs[i]);
    runPtxas(ptxas, archs[i], temp.file(name + ".ptx"), temp.file(name + ".cubin"), temp, log);
    command.push_back("--image3=kind=elf,sm=" + smNumber(archs[i]) +
                      ",file=" + temp.file(name + ".cubin"));
    if (static_cast<int>(i) == ptxIndex)
      command.push_back("--image3=kind=ptx,sm=" + smNumber(archs[i]) +
                        ",file=" + temp.file(name + ".ptx"));
  }
  runOrFail(command, temp, "fatbinary");
  result.output = readFile(temp.file("out.fatbin"));
  result.metadata = archs.size() == 1 ? metadata[0] : mergeMetadata(metadata, archs);
  return result;
}

} // namespace tilec::driver
