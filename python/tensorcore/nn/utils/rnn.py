"""PackedSequence and the pack/pad helpers (torch.nn.utils.rnn)."""

from collections import namedtuple

from ... import _C
from ..._tensor import tensor as _tensor
from ..._C import Tensor


class PackedSequence(
    namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
):
    """data holds the time-major concatenation of the sequences' valid steps; batch_sizes[t] is how
    many sequences are still running at step t (sequences sorted by decreasing length)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return type(self)(
            self.data.to(*args, **kwargs),
            self.batch_sizes,
            self.sorted_indices,
            self.unsorted_indices,
        )

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _invert_permutation(perm):
    out = _C.empty_like(perm)
    out.scatter_(0, perm, _C.arange(perm.numel(), dtype=_C.int64))
    return out


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if isinstance(lengths, Tensor):
        lengths_list = [int(v) for v in lengths.tolist()]
    else:
        lengths_list = [int(v) for v in lengths]
    if batch_first:
        input = input.transpose(0, 1)
    batch = input.shape[1]
    if len(lengths_list) != batch:
        raise ValueError(f"pack_padded_sequence: expected {batch} lengths, got {len(lengths_list)}")
    if any(n <= 0 for n in lengths_list):
        raise ValueError("pack_padded_sequence: Length of all samples has to be greater than 0")
    if any(n > input.shape[0] for n in lengths_list):
        raise ValueError(
            f"pack_padded_sequence: a length exceeds the padded length {input.shape[0]}"
        )
    if enforce_sorted:
        if any(lengths_list[i] < lengths_list[i + 1] for i in range(batch - 1)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                "to sidestep this requirement if you do not need ONNX exportability."
            )
        order = list(range(batch))
        sorted_indices = None
    else:
        order = sorted(range(batch), key=lambda i: -lengths_list[i])
        sorted_indices = _tensor(order, dtype=_C.int64)
        input = input.index_select(1, sorted_indices)
    sorted_lengths = [lengths_list[i] for i in order]
    max_len = sorted_lengths[0]
    batch_sizes = [sum(1 for n in sorted_lengths if n > t) for t in range(max_len)]
    data = _C.cat([input[t, : batch_sizes[t]] for t in range(max_len)])
    return PackedSequence(data, _tensor(batch_sizes, dtype=_C.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    max_batch = batch_sizes[0]
    max_len = len(batch_sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError(
                f"pad_packed_sequence: total_length ({total_length}) is less than the longest sequence "
                f"length ({max_len})"
            )
    else:
        total_length = max_len
    steps, offset = [], 0
    trailing = tuple(data.shape[1:])
    for t in range(total_length):
        b = batch_sizes[t] if t < max_len else 0
        piece = data[offset : offset + b]
        offset += b
        if b < max_batch:
            pad = _C.full((max_batch - b,) + trailing, padding_value, dtype=data.dtype)
            piece = _C.cat([piece, pad]) if b else pad
        steps.append(piece)
    padded = _C.stack(steps)  # (T, B, *)
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(max_batch)]
    lengths_t = _tensor(lengths, dtype=_C.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths_t = lengths_t.index_select(0, sequence.unsorted_indices)
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths_t


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    if not sequences:
        raise ValueError("pad_sequence: received an empty list of sequences")
    max_len = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    padded = []
    for s in sequences:
        if s.shape[0] < max_len:
            fill = _C.full((max_len - s.shape[0],) + trailing, padding_value, dtype=s.dtype)
            s = _C.cat([s, fill])
        padded.append(s)
    return _C.stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [
        padded_sequences[i, : int(n)]
        for i, n in enumerate(lengths.tolist() if isinstance(lengths, Tensor) else lengths)
    ]
