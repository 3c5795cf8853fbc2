#!/usr/bin/env python3
"""Launch overhead, the Python side: Triton's launcher (kernel[grid](...)) for the tiny kernel
that bench/launch_overhead.cpp launches through tilec's runtime and through a plain
cuLaunchKernel (samples/vector_add.tl's add_kernel on 1024 fp32 elements, BLOCK_SIZE 1024: one
block), timed the same way: host microseconds per call in bursts of 256 launches (synchronised
between bursts, untimed), and end-to-end microseconds per launch + synchronize. With --ptx-dir,
CuPy's launch of tilec's PTX (what bench.py uses) is timed too.

    python3 bench/launch_overhead.py [--ptx-dir out/ptx] [--csv OUT.csv]
"""

import argparse
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BURST, ROUNDS, END_TO_END = 256, 41, 2000


def host_us(launch, sync):
    rounds = []
    for _ in range(ROUNDS):
        sync()
        start = time.perf_counter()
        for _ in range(BURST):
            launch()
        rounds.append((time.perf_counter() - start) / BURST * 1e6)
    sync()
    return statistics.median(rounds)


def end_to_end_us(launch, sync):
    times = []
    for _ in range(END_TO_END):
        start = time.perf_counter()
        launch()
        sync()
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ptx-dir", help="tilec's PTX (bench_vector_add.ptx/.json): time CuPy's launch too")
    parser.add_argument("--csv", help="write the results as CSV")
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("no CUDA device: skipped")
        return 77
    # The .tl file as a module, as bench.py imports it (Triton reads the source back).
    work = tempfile.mkdtemp(prefix="tilec-launch-")
    shutil.copyfile(os.path.join(REPO_ROOT, "samples", "vector_add.tl"), os.path.join(work, "tl_vector_add.py"))
    spec = importlib.util.spec_from_file_location("tl_vector_add", os.path.join(work, "tl_vector_add.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["tl_vector_add"] = module
    spec.loader.exec_module(module)

    n = 1024
    x, y, out = (torch.zeros(n, device="cuda") for _ in range(3))
    stream = torch.cuda.Stream()
    ways = []
    kernel = module.add_kernel
    ways.append(("triton kernel[grid](...)", lambda: kernel[(1,)](x, y, out, n, BLOCK_SIZE=1024)))

    if args.ptx_dir:
        import cupy
        import numpy
        function = cupy.RawModule(path=os.path.join(args.ptx_dir, "bench_vector_add.ptx")).get_function("add_kernel")
        packed = (numpy.uint64(x.data_ptr()), numpy.uint64(y.data_ptr()), numpy.uint64(out.data_ptr()),
                  numpy.int32(n))
        ways.append(("cupy RawModule (tilec PTX)", lambda: function((1, 1, 1), (128, 1, 1), packed)))

    results = []
    with torch.cuda.stream(stream):
        cupy_stream = None
        if args.ptx_dir:
            cupy_stream = cupy.cuda.ExternalStream(stream.cuda_stream)
            cupy_stream.use()
        for name, launch in ways:  # warm-up: compilation, module loads
            for _ in range(100):
                launch()
        stream.synchronize()
        for name, launch in ways:
            h = min(host_us(launch, stream.synchronize) for _ in range(3))
            e = min(end_to_end_us(launch, stream.synchronize) for _ in range(3))
            results.append((name, h, e))
    print(f"{'launch path':42} {'host us/launch':>14} {'end-to-end us':>14}")
    for name, h, e in results:
        print(f"{name:42} {h:14.3f} {e:14.3f}")
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("path,host_us_per_launch,end_to_end_us\n")
            for name, h, e in results:
                f.write(f"{name},{h:.4f},{e:.4f}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
