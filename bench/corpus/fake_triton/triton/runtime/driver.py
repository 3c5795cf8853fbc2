"""`triton.runtime.driver.active`, answering as an H200 would (the GPU machine's device)."""


class GPUTarget:
    def __init__(self, backend, arch, warp_size):
        self.backend, self.arch, self.warp_size = backend, arch, warp_size


class _Utils:
    def get_device_properties(self, device):
        return {"multiprocessor_count": 132, "max_shared_mem": 232448, "max_num_regs": 65536,
                "warpSize": 32, "sm_clock_rate": 1980000, "mem_clock_rate": 3201000, "mem_bus_width": 6144}


class _ActiveDriver:
    utils = _Utils()

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench


class _Driver:
    active = _ActiveDriver()


driver = _Driver()
