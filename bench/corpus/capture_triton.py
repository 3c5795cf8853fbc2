"""Keeps Triton's own artifacts of every launch tilec did not match bit for bit, for reading beside
tilec's output (on the GPU machine, after a corpus run with TRITON_CACHE_DIR set):

    python3 bench/corpus/capture_triton.py TRITON_CACHE_DIR RUN_OUT KEPT_DIR

RUN_OUT is a driver's output folder (results.json files anywhere below it). For each kernel name with
a launch that ran and was not bit-equal, every compile of that name in Triton's cache is copied to
KEPT_DIR/<cache entry>/ (.ttir, .ttgir, .llir, .ptx and the metadata .json; no cubin). Which compile is
the launch's own is for twins.py to find.
"""
import glob
import json
import os
import shutil
import sys

KEPT = (".ttir", ".ttgir", ".llir", ".ptx", ".json")


def kernels_not_bit_equal(run_out):
    names = set()
    for path in glob.glob(os.path.join(run_out, "**", "results.json"), recursive=True):
        for r in json.load(open(path)):
            if r.get("ran") and not (r.get("bad", 1) == 0 and r.get("same_bits")):
                names.add(r["kernel"].split(".")[-1])
    return names


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cache, run_out, kept = sys.argv[1:]
    names = kernels_not_bit_equal(run_out)
    copied = 0
    for entry in glob.glob(os.path.join(cache, "*")):
        for meta_path in glob.glob(os.path.join(entry, "*.json")):
            if "__grp__" in meta_path:  # the cache's group index, not a compile's metadata
                continue
            try:
                name = json.load(open(meta_path)).get("name")
            except (OSError, ValueError):
                continue
            if name not in names:
                continue
            target = os.path.join(kept, os.path.basename(entry))
            os.makedirs(target, exist_ok=True)
            for f in glob.glob(os.path.join(entry, "*")):
                if f.endswith(KEPT) and "__grp__" not in f:
                    shutil.copy(f, target)
            copied += 1
    print(f"capture_triton: {len(names)} kernels not bit-equal, {copied} of Triton's compiles kept in {kept}")


if __name__ == "__main__":
    main()
