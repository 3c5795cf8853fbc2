import torch


class Attention(torch.nn.Module)
    pass
