"""Triton kernels for the seeded sweep (kernel_sweep.py, issue 48): the shapes of Triton's tutorials
(matrix multiplication, fused softmax, layer norm, fused attention) and small kernels of our own
(transposes, reductions along either dim, masked ragged loads), each with constexpr knobs the sweep
draws at random. Not Triton's code: the same algorithms, our words. A line marked `# @NAME` is one
the sweep's planted faults expect a finding at (it reads the marker's line number from this file).
"""
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_tile)  # @mm_load_a
        b = tl.load(b_tile)  # @mm_load_b
        acc = tl.dot(a, b, acc)  # @mm_dot
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_tile, c)  # @mm_store


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))  # @sm_load
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=cols < n_cols)  # @sm_store


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, (d * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, stride_s, n_ctx, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              HEAD: tl.constexpr):
    # One query block against every key block with an online softmax (the fused-attention
    # tutorial's forward pass, one head; rows `stride_s` apart, the head dim contiguous).
    start = tl.program_id(0) * BLOCK_M
    rm = start + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD)
    q = tl.load(q_ptr + rm[:, None] * stride_s + rd[None, :])
    m_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD), dtype=tl.float32)
    for start_n in range(0, n_ctx, BLOCK_N):
        rn = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + rn[None, :] * stride_s + rd[:, None])
        s = tl.dot(q, k) * scale  # @attn_qk_dot
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + rn[:, None] * stride_s + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)  # @attn_pv_dot
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * stride_s + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def transpose(in_ptr, out_ptr, stride_in, stride_out, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Read rows, write columns: the store wants the other dim fastest (a convert between them).
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride_in + rn[None, :])
    tl.store(out_ptr + rn[None, :] * stride_out + rm[:, None], x)


@triton.jit
def reduce_rows(in_ptr, out_ptr, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, AXIS: tl.constexpr):
    # A 2-D tile summed along AXIS, the result stored as a vector (a slice layout).
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :])
    s = tl.sum(x.to(tl.float32), axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + rn, s)
    else:
        tl.store(out_ptr + rm, s)


@triton.jit
def copy2d(in_ptr, out_ptr, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # A row-major tile copied: one load and one store of the same layout (the planted
    # strided-walk fault replaces that layout).
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :])  # @copy_load
    tl.store(out_ptr + rm[:, None] * stride + rn[None, :], x)


@triton.jit
def ragged(in_ptr, out_ptr, stride, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Rows of n_cols valid elements (a runtime size, specialised or not as divisible by 16): the
    # mask's constancy is what Triton may vectorize the masked load and store by.
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rn[None, :] < n_cols) & (rm[:, None] >= 0)
    x = tl.load(in_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0.0)  # @ragged_load
    tl.store(out_ptr + rm[:, None] * stride + rn[None, :], x * 2, mask=mask)
