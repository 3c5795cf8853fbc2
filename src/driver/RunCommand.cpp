#include "driver/RunCommand.h"

#include "interp/Interpreter.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

namespace tilec::driver {

void addRunFlags(CLI::App &app, RunFlags &flags) {
  app.add_option("--grid", flags.grid, "Programs to run: X, X,Y or X,Y,Z")->capture_default_str();
  app.add_option("args", flags.args,
                 "One value per run-time parameter, in order, optionally NAME=VALUE: a buffer "
                 "spec for pointers (zeros:N, ones:N, range:N, rand:N[:SEED], file:PATH), a "
                 "number for scalars");
  app.add_option("--dump", flags.dumps, "Write a buffer to a raw binary file after the run: "
                                        "NAME=PATH")
      ->allow_extra_args(false);
  app.add_flag("--print", flags.print, "Print the buffers after the run");
  app.add_option("--config", flags.config,
                 "For an @triton.autotune kernel: which config to run (0-based, in source order)");
  app.add_option("--print-limit", flags.printLimit, "Elements printed per buffer")
      ->capture_default_str();
}

namespace {

bool parseGrid(const std::string &text, unsigned grid[3], std::string &error) {
  std::stringstream ss(text);
  std::string part;
  unsigned n = 0;
  while (std::getline(ss, part, ',')) {
    if (n == 3) {
      error = "--grid takes at most three sizes";
      return false;
    }
    try {
      size_t used = 0;
      long v = std::stol(part, &used);
      if (used != part.size() || v <= 0 || v > (1L << 31) - 1)
        throw std::invalid_argument(part);
      grid[n++] = static_cast<unsigned>(v);
    } catch (...) {
      error = "--grid: '" + part + "' is not a positive integer";
      return false;
    }
  }
  if (n == 0) {
    error = "--grid needs at least one size";
    return false;
  }
  return true;
}

} // namespace

int runCommand(const CompileOptions &options, const RunFlags &flags, SourceManager &sources,
               std::ostream &out, std::ostream &err) {
  if (options.kernels.size() > 1) {
    err << "error: tilec run runs one kernel; got " << options.kernels.size() << "\n";
    return 1;
  }
  std::unique_ptr<tir::Module> module = compileToTIR(options, sources, err);
  if (module->functions.size() != 1 && options.kernels.empty()) {
    err << "error: the file has several kernels with signatures; pick one with -k and -s\n";
    return 1;
  }
  // An @triton.autotune kernel compiles to one function per config: --config picks one.
  size_t chosen = 0;
  if (module->functions.size() > 1 || flags.config >= 0) {
    if (flags.config < 0 || static_cast<size_t>(flags.config) >= module->functions.size()) {
      err << "error: '" << options.kernels[0].name << "' is autotuned: its "
          << module->functions.size() << " configs compiled to";
      for (const auto &f : module->functions)
        err << " " << f->name();
      err << "; pick one with --config 0.." << module->functions.size() - 1 << "\n";
      return 1;
    }
    chosen = static_cast<size_t>(flags.config);
  }
  const tir::Function &kernel = *module->functions[chosen];

  interp::LaunchOptions launch;
  launch.printStream = &out;
  std::string problem;
  if (!parseGrid(flags.grid, launch.grid, problem)) {
    err << "error: " << problem << "\n";
    return 1;
  }
  if (flags.args.size() != kernel.params.size()) {
    err << "error: '" << kernel.name() << "' has " << kernel.params.size()
        << " run-time parameters";
    for (size_t i = 0; i < kernel.params.size(); ++i)
      err << (i ? ", " : " (") << kernel.params[i].name
          << (i + 1 == kernel.params.size() ? ")" : "");
    err << " but " << flags.args.size() << " values were given\n";
    return 1;
  }

  // Buffers live in a map keyed by parameter name so they can be printed and dumped by name.
  std::map<std::string, std::unique_ptr<interp::HostBuffer>> buffers;
  std::vector<interp::KernelArg> args;
  try {
    for (size_t i = 0; i < kernel.params.size(); ++i) {
      const tir::ParamInfo &param = kernel.params[i];
      std::string text = flags.args[i];
      size_t eq = text.find('=');
      if (eq != std::string::npos && text.find(':') > eq) {
        std::string name = text.substr(0, eq);
        if (name != param.name) {
          err << "error: argument " << i + 1 << " is named '" << name << "' but parameter "
              << i + 1 << " is '" << param.name << "'\n";
          return 1;
        }
        text = text.substr(eq + 1);
      }
      if (param.type.isPointer()) {
        auto buffer = std::make_unique<interp::HostBuffer>(
            interp::parseBufferSpec(text, param.type.pointeeType()));
        args.push_back(interp::KernelArg::pointer(*buffer));
        buffers[param.name] = std::move(buffer);
        continue;
      }
      // An int1 (a descriptor's padding flag, say) is also spelled as Python prints a bool.
      if (param.type.isBool() &&
          (text == "True" || text == "False" || text == "true" || text == "false")) {
        args.push_back(interp::KernelArg::integer(text == "True" || text == "true"));
        continue;
      }
      try {
        size_t used = 0;
        if (param.type.isFloat()) {
          double v = std::stod(text, &used);
          if (used != text.size())
            throw std::invalid_argument(text);
          args.push_back(interp::KernelArg::floating(v));
        } else {
          long long v = std::stoll(text, &used, 0);
          if (used != text.size())
            throw std::invalid_argument(text);
          args.push_back(interp::KernelArg::integer(v));
        }
      } catch (const std::logic_error &) {
        err << "error: parameter '" << param.name << "' is " << param.type.tritonName()
            << "; cannot read '" << text << "' as one\n";
        return 1;
      }
    }
    interp::run(kernel, args, launch);
  } catch (const interp::InterpError &e) {
    if (e.loc().isValid()) {
      err << sources.format(e.loc(), "error", e.message());
    } else {
      err << "error: " << e.message() << "\n";
    }
    return 1;
  }

  for (const std::string &dump : flags.dumps) {
    size_t eq = dump.find('=');
    auto it = eq == std::string::npos ? buffers.end() : buffers.find(dump.substr(0, eq));
    if (it == buffers.end()) {
      err << "error: --dump expects NAME=PATH with NAME a pointer parameter, got '" << dump
          << "'\n";
      return 1;
    }
    try {
      it->second->writeToFile(dump.substr(eq + 1));
    } catch (const interp::InterpError &e) {
      err << "error: " << e.message() << "\n";
      return 1;
    }
  }
  if (flags.print) {
    for (const tir::ParamInfo &param : kernel.params) {
      auto it = buffers.find(param.name);
      if (it == buffers.end())
        continue;
      const interp::HostBuffer &b = *it->second;
      out << param.name << " (" << b.size() << " x " << b.elementType().tritonName() << "):";
      size_t n = std::min<size_t>(b.size(), flags.printLimit);
      for (size_t i = 0; i < n; ++i) {
        if (b.elementType().isFloat())
          out << " " << std::setprecision(7) << b.getDouble(i);
        else
          out << " " << b.getInt(i);
      }
      out << (n < b.size() ? " ...\n" : "\n");
    }
  }
  return 0;
}

} // namespace tilec::driver
