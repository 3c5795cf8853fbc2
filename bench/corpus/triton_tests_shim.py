"""pytest plugin for run_triton_tests.sh: names that Triton's language tests (upstream at 6cc4505) import from
triton._internal_testing but the installed Triton 3.6.0 release lacks. All are AMD-target
queries, False on an NVIDIA GPU."""
import triton._internal_testing as t

for name in ("is_hip_rdna3", "is_hip_rdna4", "is_hip_cdna4", "is_hip_cdna3", "is_hip_cdna2", "is_hip_cdna",
             "is_hip_gfx11", "is_hip_gfx12", "is_xpu"):
    if not hasattr(t, name):
        setattr(t, name, lambda *a, **k: False)
