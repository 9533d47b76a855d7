"""audio.load's libFLAC path (io/audio/flac_decode.cpp): bit-identical to the SoX path that
torchaudio uses, for every layout, offset and source, and a clear DecodeError for cut or
corrupt streams."""

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.audio as ta


def _signal(channels, n=9000, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 16000
    x = np.stack([0.4 * np.sin(2 * np.pi * (250 + 170 * c) * t) for c in range(channels)])
    x += 0.05 * rng.standard_normal(x.shape)
    x[:, :50] = 0.999  # full-scale samples exercise the top bit
    return tc.from_numpy(x.astype(np.float32))


def _flac(tmp_path, channels=2, bits=16, compression=5, n=9000):
    path = tmp_path / f"c{channels}_b{bits}_l{compression}.flac"
    ta.save(path, _signal(channels, n), 16000, bits_per_sample=bits, compression=compression)
    return path


def _unknown_length(data):
    """The same stream with STREAMINFO's total-samples field zeroed ("unknown")."""
    assert data[:4] == b"fLaC" and data[4] & 0x7F == 0  # STREAMINFO comes first
    b = bytearray(data)
    b[21] &= 0xF0  # the 36-bit count: the low nibble of byte 21 and bytes 22..25
    b[22:26] = b"\0\0\0\0"
    return bytes(b)


@pytest.mark.parametrize("bits", [8, 16, 24])
@pytest.mark.parametrize("channels,compression", [(1, 0), (2, 5), (3, 8)])
def test_bit_identical_to_torchaudio(ta_ref, tmp_path, bits, channels, compression):
    path = _flac(tmp_path, channels, bits, compression)
    ref, ref_sr = ta_ref.load(str(path))
    ours, sr = ta.load(path)
    assert sr == ref_sr == 16000 and ours.dtype == tc.float32
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    # every source and layout gives the same samples
    np.testing.assert_array_equal(ta.load(path.read_bytes())[0].numpy(), ref.numpy())
    np.testing.assert_array_equal(ta.load(path, channels_first=False)[0].numpy(), ref.numpy().T)
    np.testing.assert_array_equal(ta.load(path, normalize=False)[0].numpy(), ref.numpy())
    assert ta.info(path).num_frames == ours.shape[1]


def test_samples_are_exact(tmp_path):
    x = (np.arange(-32768, 32768, 7, dtype=np.int64)[None, :]).astype(np.int16)
    path = tmp_path / "ramp.flac"
    ta.save(path, tc.from_numpy(x), 8000, bits_per_sample=16)
    ours, _ = ta.load(path)
    np.testing.assert_array_equal(ours.numpy(), x.astype(np.float32) / 32768)


@pytest.mark.parametrize("unknown_length", [False, True])
def test_offsets_and_counts(ta_ref, tmp_path, unknown_length):
    path = _flac(tmp_path, channels=2, compression=0)  # 1152-sample blocks
    data = path.read_bytes()
    if unknown_length:
        data = _unknown_length(data)
        path.write_bytes(data)
    full = ta.load(path)[0].numpy()
    assert full.shape == (2, 9000)
    for offset, count in [(0, 0), (0, 10), (1151, 3), (1152, 1152), (5000, -1), (8999, 5),
                          (9000, -1), (12000, 10), (3, 9000)]:  # fmt: skip
        ours = ta.load(path, frame_offset=offset, num_frames=count)[0].numpy()
        end = 9000 if count < 0 else min(offset + count, 9000)
        np.testing.assert_array_equal(ours, full[:, offset:end])
        np.testing.assert_array_equal(
            ta.load(data, frame_offset=offset, num_frames=count, channels_first=False)[0].numpy(),
            full[:, offset:end].T,
        )
        if not unknown_length and count != 0:  # torchaudio refuses num_frames=0
            ref = ta_ref.load(str(path), frame_offset=offset, num_frames=count)[0].numpy()
            np.testing.assert_array_equal(ours, ref)


def test_truncated_file_names_it(tmp_path):
    data = _flac(tmp_path, channels=2, n=20000).read_bytes()
    cut = tmp_path / "cut.flac"
    for end in (len(data) - 1, len(data) * 2 // 3, len(data) // 4, 200, 60, 42, 30, 5):
        cut.write_bytes(data[:end])
        with pytest.raises(tc.DecodeError, match=f"'{cut}' (is truncated|has no valid FLAC)"):
            ta.load(cut)
        with pytest.raises(tc.DecodeError, match="the given bytes"):
            ta.load(data[:end])
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(tc.DecodeError, match=r"is truncated: the header declares 20000 frames"):
        ta.load(cut)
    # without a declared length, the frame cut in half gives the stream away
    with pytest.raises(tc.DecodeError, match="corrupt or cut short.*LOST_SYNC"):
        ta.load(_unknown_length(data)[: len(data) // 2])


def test_corrupt_stream_raises(tmp_path):
    data = bytearray(_flac(tmp_path, channels=1, n=20000).read_bytes())
    for pos in (len(data) // 2, len(data) - 3):
        bad = bytearray(data)
        bad[pos] ^= 0x5A
        with pytest.raises(
            tc.DecodeError,
            match=r"the given bytes (is not a valid FLAC stream \(corrupt or cut short\)|is trunc)",
        ):
            ta.load(bytes(bad))
    with pytest.raises(tc.DecodeError):
        ta.load(b"fLaC" + b"\0" * 100)
    rng = np.random.default_rng(1)
    for n in (0, 1, 10, 300):
        with pytest.raises(tc.DecodeError):
            ta.load(b"fLaC" + rng.integers(0, 256, n, dtype=np.uint8).tobytes())
