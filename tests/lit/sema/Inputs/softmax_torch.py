# seeds/004 "Fused Softmax" as it stands: PyTorch host code around the kernel.
import triton
import triton.language as tl
import torch


@triton.jit
def softmax_kernel(
    input_ptr,
    output_ptr,
    input_row_stride,
    output_row_stride,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    """
    按行计算 softmax
    每个 program 处理一行
    """
    # 获取当前行
    row_idx = tl.program_id(0)

    # 计算行的起始位置
    row_start = row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    # 加载一行数据
    input_ptrs = input_ptr + row_start + col_offsets
    row = tl.load(input_ptrs, mask=mask, other=-float('inf'))

    # 计算 max (数值稳定性)
    row_max = tl.max(row, axis=0)

    # 计算 exp(x - max)
    numerator = tl.exp(row - row_max)

    # 计算 sum
    denominator = tl.sum(numerator, axis=0)

    # 归一化
    softmax_output = numerator / denominator

    # 存储结果
    output_ptrs = output_ptr + row_idx * output_row_stride + col_offsets
    tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    output = torch.empty_like(x)

    # 选择 block size (必须是 2 的幂)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)

    # 限制 block size
    BLOCK_SIZE = min(BLOCK_SIZE, 4096)

    # 每个 program 处理一行
    grid = (n_rows,)

    softmax_kernel[grid](
        x, output,
        x.stride(0), output.stride(0),
        n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
    )

    return output


