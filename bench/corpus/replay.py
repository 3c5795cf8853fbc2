"""Replays a launch the corpus harness saved (TILEC_CORPUS_DUMP, harness.dump_launch) in a fresh
process: Triton's JIT and tilec's saved PTX run on the saved pre-launch tensors, and each result
is compared with what the harness saw. It tells a difference in code generation (both replays
reproduce what the harness saw) from one in the harness's process (Triton's replay differs from
Triton's result there: another compile environment, another state).

    python3 bench/corpus/replay.py DUMP.pt --project PROJECT_DIR
"""
import argparse
import importlib.util
import sys

import numpy as np
import torch


def load_kernel(source, name, project):
    sys.path.insert(0, project)
    spec = importlib.util.spec_from_file_location("replayed_module", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    jit = getattr(module, name)
    while not hasattr(jit, "src"):  # heuristics and autotuners wrap the JITFunction
        jit = jit.fn
    return jit


def bits_equal(a, b):
    a, b = a.contiguous(), b.contiguous()
    return torch.equal(a.view(torch.uint8), b.view(torch.uint8))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dump")
    p.add_argument("--project", required=True, help="the project's folder (its package on sys.path)")
    args = p.parse_args()
    d = torch.load(args.dump, weights_only=False)
    print(f"{d['kernel']} {d['sig']} warps {d['warps']} stages {d['stages']} grid {d['grid']}")
    print(f"environment in the harness: {d['env']}")
    fresh = lambda: {n: v.cuda() for n, v in d["pre"].items()}

    tensors = fresh()
    jit = load_kernel(d["source"], d["kernel"], args.project)
    call = dict(d["scalars"]) | tensors
    jit[tuple(d["grid"])](**call, num_warps=d["warps"], num_stages=d["stages"])
    torch.cuda.synchronize()
    triton_again = {n: v.cpu() for n, v in tensors.items()}

    import cupy as cp
    with open("/tmp/replay.ptx", "w") as f:
        f.write(d["ptx"])
    fn = cp.RawModule(path="/tmp/replay.ptx").get_function(d["meta"]["entry"])
    dyn = max(0, d["meta"].get("shared_memory_bytes", 0) - fn.shared_size_bytes)
    if dyn > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = dyn
    tensors = fresh()
    argv = []
    for param in d["meta"]["params"]:
        value = tensors[param["name"]] if param["name"] in tensors else d["scalars"][param["name"]]
        kind = param["type"]
        argv.append(np.uint64(value.data_ptr()) if kind.startswith("*") else
                    np.float32(value) if kind == "fp32" else np.int64(value) if kind == "i64" else np.int32(value))
    fn(tuple(d["grid"]), (32 * d["warps"], 1, 1), tuple(argv), shared_mem=dyn)
    torch.cuda.synchronize()
    tilec_again = {n: v.cpu() for n, v in tensors.items()}
    for n in d["triton"]:
        print(f"  {n}: triton replay == harness triton {bits_equal(triton_again[n], d['triton'][n])}, "
              f"tilec replay == harness tilec {bits_equal(tilec_again[n], d['tilec'][n])}, "
              f"replays equal {bits_equal(triton_again[n], tilec_again[n])}")


if __name__ == "__main__":
    main()
