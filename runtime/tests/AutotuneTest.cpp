//===- AutotuneTest.cpp - Variant choice, the choice cache, v2 metadata ---===//
//
// What autotuning decides without a GPU: the fastest variant from injected times, the cache in
// memory and on disk (a second Cache on the same directory, like a second run, finds the choice),
// and the version 2 metadata that lists variants. tests/cmake's GPU run times real variants.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace rt = tilec::rt;

TEST_CASE("pickFastest takes the smallest time, the earlier config on a tie") {
  std::vector<double> times = {3.0, 1.5, 2.0, 1.5};
  std::vector<size_t> timed;
  size_t best = rt::autotune::pickFastest(times.size(), [&](size_t i) {
    timed.push_back(i);
    return times[i];
  });
  CHECK(best == 1);
  CHECK(timed == std::vector<size_t>{0, 1, 2, 3}); // every variant is timed once
  CHECK(rt::autotune::pickFastest(1, [](size_t) { return 9.0; }) == 0);
  CHECK_THROWS_WITH(rt::autotune::pickFastest(0, [](size_t) { return 0.0; }),
                    Catch::Contains("no variant"));
}

TEST_CASE("the autotune cache keeps choices per kernel and key, in memory and on disk") {
  char pattern[] = "/tmp/tilec-autotune-XXXXXX";
  REQUIRE(mkdtemp(pattern));
  std::string dir = pattern;
  {
    rt::autotune::Cache cache(dir);
    CHECK_FALSE(cache.lookup("k1", "n=4096"));
    cache.store("k1", "n=4096", "add_kernel__2");
    cache.store("k1", "n=8192", "add_kernel__0");
    cache.store("k1", "n=4096", "add_kernel__3"); // replaces
    cache.store("k/2", "n=4096", "other__1");     // a name unsafe in a path
    CHECK(cache.lookup("k1", "n=4096") == std::optional<std::string>("add_kernel__3"));
  }
  // A new cache on the same directory: the next run of the program.
  rt::autotune::Cache again(dir);
  CHECK(again.lookup("k1", "n=4096") == std::optional<std::string>("add_kernel__3"));
  CHECK(again.lookup("k1", "n=8192") == std::optional<std::string>("add_kernel__0"));
  CHECK(again.lookup("k/2", "n=4096") == std::optional<std::string>("other__1"));
  CHECK_FALSE(again.lookup("k1", "n=4"));
  CHECK_FALSE(again.lookup("k1", "n=409")); // a prefix of a key is another key

  // Memory only: nothing survives.
  rt::autotune::Cache memory("");
  memory.store("k1", "n=1", "a");
  CHECK(memory.lookup("k1", "n=1") == std::optional<std::string>("a"));
  CHECK_FALSE(rt::autotune::Cache("").lookup("k1", "n=1"));
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("version 2 metadata lists an autotuned kernel's variants and key") {
  const char *json = R"({"schema": "tilec-metadata", "version": 2, "target": "sm_90a",
    "kernels": [{"name": "add_kernel", "entry": "add_kernel__0", "num_warps": 4,
      "threads_per_block": 128, "shared_memory_bytes": 0,
      "params": [{"name": "x", "type": "*fp32", "alignment": 16},
                 {"name": "n", "type": "i32", "divisibility": 0}],
      "constexprs": [{"name": "BLOCK_SIZE", "value": "512"}],
      "autotune_key": ["n"],
      "variants": [
        {"entry": "add_kernel__0", "num_warps": 4, "num_stages": 3, "threads_per_block": 128,
         "shared_memory_bytes": 0, "constexprs": [{"name": "BLOCK_SIZE", "value": "512"}]},
        {"entry": "add_kernel__1", "num_warps": 8, "num_stages": 2, "threads_per_block": 256,
         "shared_memory_bytes": 0, "constexprs": [{"name": "BLOCK_SIZE", "value": "4096"}]}]}]})";
  rt::Metadata meta = rt::Metadata::parse(json, "v2.json");
  CHECK(meta.Version == 2);
  const rt::KernelInfo &kernel = meta.kernel("add_kernel");
  CHECK(kernel.AutotuneKey == std::vector<std::string>{"n"});
  REQUIRE(kernel.Variants.size() == 2);
  CHECK(kernel.Variants[1].Entry == "add_kernel__1");
  CHECK(kernel.Variants[1].NumWarps == 8);
  CHECK(kernel.Variants[1].NumStages == 2);
  CHECK(kernel.Variants[1].Params.size() == 2);
  CHECK(kernel.Variants[1].intConstexpr("BLOCK_SIZE") == 4096);
  // The grid a launcher computes for each variant.
  rt::LaunchGrid grid([](const rt::KernelInfo &k) {
    return rt::Grid{static_cast<unsigned>((10000 + k.intConstexpr("BLOCK_SIZE") - 1) /
                                          k.intConstexpr("BLOCK_SIZE"))};
  });
  CHECK(grid(kernel.Variants[0]).X == 20);
  CHECK(grid(kernel.Variants[1]).X == 3);
  CHECK(rt::LaunchGrid(rt::Grid{7}) (kernel).X == 7);

  std::string badKey = json;
  badKey.replace(badKey.find("\"autotune_key\": [\"n\"]"), 21, "\"autotune_key\": [\"m\"]");
  CHECK_THROWS_WITH(rt::Metadata::parse(badKey, "v2.json"), Catch::Contains("not a parameter"));
  std::string v5 = json;
  v5.replace(v5.find("\"version\": 2"), 12, "\"version\": 5");
  CHECK_THROWS_WITH(rt::Metadata::parse(v5, "v5.json"), Catch::Contains("versions 1 to 4"));
}
