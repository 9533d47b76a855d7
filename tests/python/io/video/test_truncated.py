"""Files cut short raise DecodeError ("truncated") when reading reaches the cut, after the
complete frames before it; files that are simply short (complete, or live streams that declare
no size) read without error."""

import subprocess

import numpy as np
import pytest

from tensorcore.vision.io import VideoReader, read_video, read_video_timestamps


def _remux(src, dst, *args):
    subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", src, "-c", "copy", *args, dst],
        check=True,
    )


@pytest.fixture(scope="module")
def containers(media, tmp_path_factory):
    """name -> path: each container as ffmpeg writes it, and MP4/MOV with the index first."""
    root = tmp_path_factory.mktemp("truncated")
    out = {
        "h264.mp4": media["h264.mp4"].path,
        "vp9.webm": media["vp9.webm"].path,
        "mpeg4.avi": media["mpeg4.avi"].path,
        "mjpeg.mov": media["mjpeg.mov"].path,
        "vfr.mkv": media["vfr.mkv"].path,
    }
    for name in ("h264.mp4", "mjpeg.mov"):
        fast = str(root / ("fast_" + name))
        _remux(out[name], fast, "-movflags", "+faststart")
        out["fast_" + name] = fast
    return out


def _frames(src, stream="video"):
    return [
        (f["pts"], np.asarray(f["data"].contiguous()) if stream == "video" else None)
        for f in VideoReader(src, stream)
    ]


CUTS = [0.3, 0.5, 0.7, 0.9, -1]  # fractions of the file; -1: all but the last byte


@pytest.mark.parametrize(
    "name",
    [
        "h264.mp4",
        "fast_h264.mp4",
        "vp9.webm",
        "mpeg4.avi",
        "mjpeg.mov",
        "fast_mjpeg.mov",
        "vfr.mkv",
    ],
)
def test_truncated_files_raise_after_the_frames_before_the_cut(containers, name):
    path = containers[name]
    with open(path, "rb") as f:
        raw = f.read()
    full = _frames(path)
    raised = 0
    for cut in CUTS:
        n = len(raw) - 1 if cut == -1 else int(len(raw) * cut)
        data = raw[:n]
        try:
            reader = VideoReader(data)
        except RuntimeError as e:  # the index (MP4/MOV moov at the end) is gone
            assert "cannot open input" in str(e), (cut, e)
            raised += 1
            continue
        got = []
        with pytest.raises(RuntimeError, match="truncated|corrupt") as info:
            for frame in reader:
                got.append(frame)
        assert "VideoReader" in str(info.value)
        raised += 1
        assert len(got) <= len(full), cut
        for g, (pts, pixels) in zip(got, full):
            assert g["pts"] == pytest.approx(pts, abs=1e-9)
            np.testing.assert_array_equal(np.asarray(g["data"].contiguous()), pixels)
        # The frames before the cut stay reachable by seeking; reading on hits the cut again.
        if got:
            assert next(reader.seek(got[0]["pts"]))["pts"] == pytest.approx(got[0]["pts"])
            with pytest.raises(RuntimeError, match="truncated|corrupt"):
                list(reader)
    assert raised == len(CUTS)


@pytest.mark.parametrize("name", ["h264.mp4", "fast_h264.mp4", "vp9.webm", "mpeg4.avi"])
def test_truncated_audio_and_whole_file_readers_raise(containers, name, tmp_path):
    with open(containers[name], "rb") as f:
        raw = f.read()
    cut = tmp_path / ("cut_" + name)
    cut.write_bytes(raw[: len(raw) * 7 // 10])
    for src in (str(cut), cut.read_bytes()):  # the file reader and the in-memory one
        for call in (
            lambda: list(VideoReader(src, "audio")),
            lambda: read_video(src),
            lambda: read_video_timestamps(src),
            lambda: list(VideoReader(src)),
        ):
            with pytest.raises(RuntimeError, match="truncated|cannot open input|corrupt"):
                call()


def test_complete_files_read_without_error(containers):
    for name, path in containers.items():
        assert len(_frames(path)) > 0, name
        read_video(path)


def test_live_webm_cut_short_is_simply_short(media, tmp_path):
    # Written to a pipe, WebM declares no segment size (a live stream): a cut copy cannot be told
    # from a short stream, so it reads what it holds.
    live = subprocess.run(
        [
            "ffmpeg",
            "-hide_banner",
            "-loglevel",
            "error",
            "-i",
            media["vp9.webm"].path,
            "-c",
            "copy",
            "-f",
            "webm",
            "pipe:1",
        ],
        check=True,
        capture_output=True,
    ).stdout
    full = _frames(live)
    assert len(full) == len(media["vp9.webm"].pts)
    frames = list(VideoReader(live[: len(live) // 2]))
    assert 0 < len(frames) < len(full)
    for f, (pts, pixels) in zip(frames, full):
        assert f["pts"] == pytest.approx(pts, abs=1e-9)
        np.testing.assert_array_equal(np.asarray(f["data"].contiguous()), pixels)


def test_short_but_complete_file(media, tmp_path):
    # A complete file shorter than its source: no error.
    short = tmp_path / "short.webm"
    _remux(media["vp9.webm"].path, str(short), "-t", "0.5")
    frames = list(VideoReader(str(short)))
    assert 0 < len(frames) < len(media["vp9.webm"].pts)
