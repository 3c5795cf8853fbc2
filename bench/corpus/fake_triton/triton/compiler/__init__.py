class CompiledKernel:
    """What a launch returns in Triton; here it carries no binary."""

    def __init__(self, fn=None):
        self.fn = fn
        self.n_regs = 0
        self.n_spills = 0
        self.metadata = {}
