"""Chunked Conv-TasNet separation of long recordings with bounded memory (beyond torchaudio).

The recording is cut into chunks; each is separated together with `context` samples on both
sides, and only the chunk's own span of the output is kept. Windows start on the encoder's
stride grid, and the default context covers the mask network's receptive field, so every kept
sample sees the same convolution inputs as in one pass. What still differs is Conv-TasNet's
global layer norm (GroupNorm with one group), whose statistics span a window instead of the
whole recording. Stated tolerance, for a stationary recording at the default chunk size: at
least 40 dB signal-to-difference against one pass and a largest difference under 2% of the
peak (measured: 59 dB and 0.13% for the default-size model, 42 dB for a small test model;
docs/audio_models.md, "Long recordings"; tests/python/audio/models pins it).
Working memory depends on chunk_size + 2 * context, not on the recording's length.
"""

from typing import Iterable, Iterator, Optional

import tensorcore as tc

__all__ = ["separate_chunked", "separate_stream"]


def _round_up(n, multiple):
    return -(-int(n) // multiple) * multiple


def default_context(model) -> int:
    """Samples of context per side that cover the mask network's one-sided reach plus the
    encoder/decoder kernel, on the stride grid."""
    frames = model.mask_generator.receptive_field // 2 + 1
    return _round_up(frames * model.enc_stride + model.enc_kernel_size, model.enc_stride)


def _sizes(model, chunk_size, context):
    stride = model.enc_stride
    context = default_context(model) if context is None else int(context)
    if context < 0:
        raise ValueError(f"separate_stream: context must be >= 0, got {context}")
    context = _round_up(context, stride)
    chunk_size = 4 * context if chunk_size is None else int(chunk_size)
    if chunk_size < 1:
        raise ValueError(f"separate_stream: chunk_size must be >= 1, got {chunk_size}")
    return _round_up(max(chunk_size, stride), stride), context


def _check_block(block, batch, who):
    if not isinstance(block, tc.Tensor):
        raise TypeError(f"{who}: blocks must be Tensors, got {type(block).__name__}")
    if block.dim() != 3 or block.shape[1] != 1:
        raise ValueError(
            f"{who}: each block must be (batch, 1, frames), got shape {tuple(block.shape)}"
        )
    if batch is not None and block.shape[0] != batch:
        raise ValueError(
            f"{who}: block has batch size {block.shape[0]}, earlier blocks had {batch}"
        )


def separate_stream(
    model,
    blocks: Iterable["tc.Tensor"],
    *,
    chunk_size: Optional[int] = None,
    context: Optional[int] = None,
) -> Iterator["tc.Tensor"]:
    """Separates a recording that arrives as consecutive (batch, 1, n) blocks of any sizes.

    Yields (batch, num_sources, m) pieces in order; concatenated along time they are the
    separated recording. A piece is produced once `context` samples past it have arrived, so
    the latency is chunk_size + context samples. chunk_size (default 4 * context) and context
    (default: the receptive field, see default_context) are rounded up to the encoder stride.
    """
    chunk, ctx = _sizes(model, chunk_size, context)
    who = "separate_stream"
    pending = []  # blocks received and not yet merged into `buf`
    buf = None  # samples [buf_start, buf_start + buf.shape[2])
    buf_start = 0
    received = 0
    emit = 0  # first sample not yet yielded
    batch = None

    def window(start, stop):
        nonlocal buf, pending
        if pending:
            buf = tc.cat(([buf] if buf is not None else []) + pending, dim=2)
            pending = []
        return buf[:, :, start - buf_start : stop - buf_start]

    def separate(w0, w1, first, last):
        with tc.no_grad():
            out = model(window(w0, w1))
        return out[:, :, first - w0 : last - w0]

    for block in blocks:
        _check_block(block, batch, who)
        batch = block.shape[0]
        if block.shape[2] == 0:
            continue
        pending.append(block)
        received += block.shape[2]
        while received >= emit + chunk + ctx:
            w0 = max(0, emit - ctx)
            yield separate(w0, emit + chunk + ctx, emit, emit + chunk)
            emit += chunk
            keep_from = max(0, emit - ctx)
            window(keep_from, keep_from)  # merge pending blocks, then drop what no window needs
            buf = buf[:, :, keep_from - buf_start :].clone()
            buf_start = keep_from
    if received == 0:
        raise ValueError(f"{who}: the recording is empty")
    if emit < received:
        yield separate(max(0, emit - ctx), received, emit, received)


def separate_chunked(
    model, waveform, *, chunk_size: Optional[int] = None, context: Optional[int] = None
):
    """model(waveform) for a long (batch, 1, frames) recording in chunks (see separate_stream);
    returns (batch, num_sources, frames)."""
    _check_block(waveform, None, "separate_chunked")
    n = waveform.shape[2]
    if n == 0 or waveform.shape[0] == 0:
        raise ValueError(f"separate_chunked: waveform is empty, shape {tuple(waveform.shape)}")
    chunk, ctx = _sizes(model, chunk_size, context)
    out = tc.empty(waveform.shape[0], model.num_sources, n, dtype=waveform.dtype)
    pos = 0
    blocks = (waveform[:, :, s : s + chunk] for s in range(0, n, chunk))
    for piece in separate_stream(model, blocks, chunk_size=chunk, context=ctx):
        out[:, :, pos : pos + piece.shape[2]] = piece
        pos += piece.shape[2]
    return out
