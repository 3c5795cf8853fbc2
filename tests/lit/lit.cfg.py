# lit configuration for tilec's FileCheck tests. Each test is a .tl kernel file (or a .test script)
# whose RUN lines invoke %tilec and pipe into FileCheck.
import os
import sys

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".tl", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_build_dir, "tests", "lit")
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]

# The PTX text checks are written for LLVM 19's printer ("REQUIRES: llvm-19-ptx"); LLVM 22, which
# tilec also builds with (-DTILEC_LLVM_MAJOR=22), writes typeless registers (.b32) instead.
if config.llvm_major == "19":
    config.available_features.add("llvm-19-ptx")
# llvm-19 or llvm-22: the LLVM tilec is built with, for checks of one version's middle end.
config.available_features.add("llvm-" + config.llvm_major)
config.substitutions.append(("%tilec", config.tilec_path))
config.substitutions.append(("%samples", os.path.join(config.tilec_source_dir, "samples")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# Under AddressSanitizer and UndefinedBehaviorSanitizer (scripts/sanitize.sh) tilec runs several
# times slower: the time bounds of the limit tests (`timeout N`, wall clock, and `ulimit -t N`,
# CPU seconds) grow tenfold there, so that they still catch a compile that runs away without
# failing a sanitized build that is merely slow.
if config.sanitizers:
    config.substitutions.append((r"\btimeout (\d+) ", r"timeout \g<1>0 "))
    config.substitutions.append((r"\bulimit -t (\d+)", r"ulimit -t \g<1>0"))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])

if config.ptxas_path:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas_path))
    # fatbinary sits next to ptxas in the toolkit (--emit fatbin needs both).
    fatbinary = os.path.join(os.path.dirname(config.ptxas_path), "fatbinary")
    if os.access(fatbinary, os.X_OK):
        config.available_features.add("fatbinary")
        config.substitutions.append(("%cuda_bin", os.path.dirname(config.ptxas_path)))
