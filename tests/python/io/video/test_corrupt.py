"""Bad input raises a clear error (DecodeError, a RuntimeError); never a crash or a hang."""

import subprocess
import zlib

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.io import VideoReader, read_video, read_video_timestamps

from video_media import VIDEO_FILES


def read_everything(src):
    reader = VideoReader(src)
    n = sum(1 for _ in reader)
    list(reader.seek(0.5))
    list(reader.seek(0.9, keyframes_only=True))
    return n


@pytest.mark.parametrize(
    "src,match",
    [
        (b"", "empty"),
        (b"this is not a video\n" * 200, "cannot open input"),
        (
            np.random.default_rng(0).integers(0, 256, 20000, dtype=np.uint8).tobytes(),
            "cannot open input",
        ),
        ("/nonexistent/clip.mp4", "No such file"),
    ],
)
def test_not_a_video(src, match):
    with pytest.raises(RuntimeError, match=match):
        VideoReader(src)
    with pytest.raises(RuntimeError, match=match):
        read_video(src)
    with pytest.raises(RuntimeError, match=match):
        read_video_timestamps(src)


def test_decode_error_type():
    with pytest.raises(tc._C.DecodeError):
        VideoReader(b"\x00" * 100)


def test_truncated_mp4(media, tmp_path):
    raw = media["h264.mp4"].read_bytes()
    # moov at the end: the index is gone.
    with pytest.raises(RuntimeError, match="cannot open input"):
        VideoReader(raw[: len(raw) // 2])
    # moov first (faststart): the index promises packets the file no longer has.
    fast = tmp_path / "fast.mp4"
    subprocess.run(
        [
            "ffmpeg",
            "-loglevel",
            "error",
            "-y",
            "-i",
            media["h264.mp4"].path,
            "-c",
            "copy",
            "-movflags",
            "+faststart",
            str(fast),
        ],
        check=True,
    )
    cut = fast.read_bytes()
    cut = cut[: len(cut) * 6 // 10]
    with pytest.raises(RuntimeError, match="truncated"):
        list(VideoReader(cut))
    with pytest.raises(RuntimeError, match="truncated"):
        list(VideoReader(cut, "audio"))
    with pytest.raises(RuntimeError, match="truncated"):
        read_video(cut)


def test_truncated_avi(media):
    raw = media["mpeg4.avi"].read_bytes()
    with pytest.raises(RuntimeError, match="truncated"):
        list(VideoReader(raw[: len(raw) // 2]))


@pytest.mark.parametrize("name", VIDEO_FILES)
def test_mutated_files_never_crash(media, name):
    raw = media[name].read_bytes()
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    outcomes = {"ok": 0, "error": 0}
    for trial in range(12):
        data = bytearray(raw)
        kind = trial % 3
        if kind == 0:  # flip bytes
            for i in rng.integers(0, len(data), 1 + trial * 4):
                data[i] ^= int(rng.integers(1, 256))
        elif kind == 1:  # zero a block
            start = int(rng.integers(0, len(data)))
            data[start : start + int(rng.integers(16, 4096))] = bytes(4096)[
                : len(data[start : start + 4096])
            ]
        else:  # cut
            data = data[: int(rng.integers(16, len(data)))]
        try:
            read_everything(bytes(data))
            outcomes["ok"] += 1
        except RuntimeError as e:
            assert str(e)
            outcomes["error"] += 1
        except ValueError as e:  # the header no longer lists a video stream
            assert "no stream 'video'" in str(e)
            outcomes["error"] += 1
    assert sum(outcomes.values()) == 12


def test_invalid_arguments(media):
    m = media["h264.mp4"]
    with pytest.raises(TypeError, match="1-D uint8"):
        VideoReader(tc.zeros(10))
    with pytest.raises(TypeError, match="expected a path, bytes or a uint8 tensor"):
        VideoReader(12)
    with pytest.raises(ValueError, match="nan"):
        VideoReader(m.path).seek(float("nan"))
