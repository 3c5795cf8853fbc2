//===- Autotune.cpp - Choosing among a kernel's variants ------------------===//
//
// As Triton's autotuner: the first launch for a new value of the key times every variant on the
// caller's arguments (warm-up launches, then the mean of several launches between two CUDA
// events recorded on the launch's stream) and keeps the fastest; later launches with that key
// reuse the choice. Choices persist across runs in TILEC_CACHE_DIR when it is set.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include "Driver.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tilec::rt::autotune {

namespace {

constexpr int WarmupLaunches = 3;
constexpr int TimedLaunches = 10;

std::mutex TimerMutex;
Timer TheTimer; // empty: time on the GPU

double timeOnGpu(const KernelInfo &variant, CUstream stream, const std::function<void()> &launch) {
  const driver::Api &cu = driver::api();
  if (!cu.cuEventCreate || !cu.cuEventRecord || !cu.cuEventSynchronize ||
      !cu.cuEventElapsedTime || !cu.cuEventDestroy)
    throw Error("autotuning " + variant.Name + ": this CUDA driver lacks the event functions it "
                "times with (cuEventElapsedTime_v2 needs CUDA 12.8); pin a variant instead");
  CUevent start = nullptr, stop = nullptr;
  driver::check(cu.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  CUresult created = cu.cuEventCreate(&stop, CU_EVENT_DEFAULT);
  if (created != CUDA_SUCCESS) {
    cu.cuEventDestroy(start);
    driver::fail(created, "cuEventCreate");
  }
  float milliseconds = 0;
  try {
    for (int i = 0; i < WarmupLaunches; ++i)
      launch();
    // The events go to the launches' own stream, so that they bracket exactly those launches:
    // on the null stream they would also wait for (and time) other streams' work, and a
    // non-blocking stream's launches would not be ordered between them at all.
    driver::check(cu.cuEventRecord(start, stream), "cuEventRecord");
    for (int i = 0; i < TimedLaunches; ++i)
      launch();
    driver::check(cu.cuEventRecord(stop, stream), "cuEventRecord");
    driver::check(cu.cuEventSynchronize(stop), "cuEventSynchronize",
                  "while timing " + variant.Entry);
    driver::check(cu.cuEventElapsedTime(&milliseconds, start, stop), "cuEventElapsedTime");
  } catch (...) {
    cu.cuEventDestroy(start);
    cu.cuEventDestroy(stop);
    throw;
  }
  cu.cuEventDestroy(start);
  cu.cuEventDestroy(stop);
  return milliseconds / TimedLaunches;
}

/// The cache file of a kernel identity: its characters that are safe in a file name.
std::string cacheFile(const std::string &directory, const std::string &kernelId) {
  std::string name;
  for (char c : kernelId)
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return directory + "/" + name + ".autotune";
}

} // namespace

size_t pickFastest(size_t count, const std::function<double(size_t)> &timeVariant) {
  if (count == 0)
    throw Error("autotune: no variant to choose from");
  size_t best = 0;
  double bestTime = 0;
  for (size_t i = 0; i < count; ++i) {
    double t = timeVariant(i);
    if (i == 0 || t < bestTime) { // ties keep the earlier config, as Triton does
      best = i;
      bestTime = t;
    }
  }
  return best;
}

Cache::Cache(std::string directory) : Directory(std::move(directory)) {}

Cache &Cache::global() {
  static Cache *cache = [] {
    const char *dir = std::getenv("TILEC_CACHE_DIR");
    return new Cache(dir ? dir : "");
  }();
  return *cache;
}

std::optional<std::string> Cache::lookup(const std::string &kernelId, const std::string &key) {
  std::lock_guard<std::mutex> lock(Mutex);
  auto found = Memory.find({kernelId, key});
  if (found != Memory.end())
    return found->second;
  if (Directory.empty())
    return std::nullopt;
  std::ifstream in(cacheFile(Directory, kernelId));
  std::string line;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (tab != std::string::npos && line.compare(0, tab, key) == 0 && tab == key.size()) {
      std::string entry = line.substr(tab + 1);
      Memory[{kernelId, key}] = entry;
      return entry;
    }
  }
  return std::nullopt;
}

void Cache::store(const std::string &kernelId, const std::string &key, const std::string &entry) {
  std::lock_guard<std::mutex> lock(Mutex);
  Memory[{kernelId, key}] = entry;
  if (Directory.empty())
    return;
  // Rewrite the kernel's file with this key replaced, through a rename, so that a concurrent
  // reader sees the old or the new file, never half of one. A failure only loses the disk copy.
  std::string path = cacheFile(Directory, kernelId);
  std::ostringstream kept;
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
      if (line.compare(0, key.size() + 1, key + "\t") != 0)
        kept << line << "\n";
  }
  kept << key << "\t" << entry << "\n";
  std::string temp = path + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
  {
    std::ofstream out(temp, std::ios::trunc);
    if (!(out << kept.str()))
      return;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    std::remove(temp.c_str());
}

void setTimer(Timer timer) {
  std::lock_guard<std::mutex> lock(TimerMutex);
  TheTimer = std::move(timer);
}

double detail::time(const KernelInfo &variant, CUstream stream,
                    const std::function<void()> &launch) {
  Timer timer;
  {
    std::lock_guard<std::mutex> lock(TimerMutex);
    timer = TheTimer;
  }
  return timer ? timer(variant, launch) : timeOnGpu(variant, stream, launch);
}

} // namespace tilec::rt::autotune
