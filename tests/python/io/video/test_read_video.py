"""read_video / read_video_timestamps: clip selection [start, end], audio span, units, formats."""

import math
from fractions import Fraction

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.io import VideoReader, read_video, read_video_timestamps

from video_media import H, W, frame_colour


def stack_reader(path, stream="video"):
    return [f for f in VideoReader(path, stream)]


@pytest.mark.parametrize("name", ["h264.mp4", "vp9.webm", "mpeg4.avi", "mjpeg.mov", "vfr.mkv"])
def test_full_clip_matches_reader(media, name):
    m = media[name]
    video, audio, info = read_video(m.path)
    assert video.dtype == tc.uint8 and tuple(video.shape) == (len(m.pts), H, W, 3)
    frames = stack_reader(m.path)
    v = np.asarray(video)
    for i, f in enumerate(frames):
        assert np.array_equal(v[i], np.asarray(f["data"]).transpose(1, 2, 0))
    if m.fps is not None:
        assert info["video_fps"] == pytest.approx(m.fps)
    if m.has_audio:
        assert info["audio_fps"] == m.sample_rate
        ref = np.concatenate([np.asarray(f["data"]) for f in stack_reader(m.path, "audio")], 1)
        np.testing.assert_array_equal(np.asarray(audio), ref)
    else:
        assert "audio_fps" not in info
        assert tuple(audio.shape) == (1, 0)


@pytest.mark.parametrize("name", ["h264.mp4", "mpeg4.avi", "vfr.mkv"])
@pytest.mark.parametrize("span", [(0.5, 1.0), (0.0, 0.3), (0.45, 0.9), (1.2, 100.0)])
def test_clip_selection(media, name, span):
    m = media[name]
    start, end = span
    video, audio, _ = read_video(m.path, start, end)
    want = [i for i, p in enumerate(m.pts) if start - 1e-9 <= p <= end + 1e-9]
    assert video.shape[0] == len(want)
    for row, i in zip(np.asarray(video), want):
        assert np.abs(row.astype(int) - np.array(frame_colour(i))).max() <= m.tolerance
    if m.has_audio:
        sr = m.sample_rate
        first = math.ceil(start * sr - 1e-6)
        last = min(math.floor(end * sr + 1e-6), audio.shape[1] + first - 1)
        full = np.concatenate([np.asarray(f["data"]) for f in stack_reader(m.path, "audio")], 1)
        last = min(math.floor(end * sr + 1e-6), full.shape[1] - 1)
        assert audio.shape[1] == last - first + 1
        tol = 0 if name == "mpeg4.avi" else 1e-2
        np.testing.assert_allclose(np.asarray(audio), full[:, first : last + 1], atol=tol, rtol=0)


def test_clip_boundaries_inclusive(media):
    m = media["h264.mp4"]
    video, _, _ = read_video(m.path, m.pts[3], m.pts[9])
    assert video.shape[0] == 7
    video, _, _ = read_video(m.path, m.pts[3], m.pts[3])
    assert video.shape[0] == 1


def test_pts_unit_pts(media):
    m = media["h264.mp4"]
    ticks, fps = read_video_timestamps(m.path, pts_unit="pts")
    assert all(isinstance(t, int) for t in ticks)
    a, aa, _ = read_video(m.path, ticks[5], ticks[20], pts_unit="pts")
    b, bb, _ = read_video(m.path, m.pts[5], m.pts[20])
    assert a.shape[0] == 16 and np.array_equal(np.asarray(a), np.asarray(b))
    assert np.array_equal(np.asarray(aa), np.asarray(bb))


def test_output_format(media):
    m = media["mjpeg.mov"]
    thwc, _, _ = read_video(m.path, 0, 0.5)
    tchw, _, _ = read_video(m.path, 0, 0.5, output_format="TCHW")
    assert tuple(tchw.shape) == (thwc.shape[0], 3, H, W)
    assert np.array_equal(np.asarray(tchw), np.asarray(thwc).transpose(0, 3, 1, 2))
    with pytest.raises(ValueError, match="output_format"):
        read_video(m.path, output_format="HWC")


def test_empty_and_invalid_ranges(media):
    m = media["h264.mp4"]
    video, audio, info = read_video(m.path, 10.0, 20.0)
    assert tuple(video.shape) == (0, 1, 1, 3) and tuple(audio.shape) == (1, 0)
    assert info["video_fps"] == 15
    with pytest.raises(ValueError, match="end_pts should be larger"):
        read_video(m.path, 1.0, 0.5)
    with pytest.raises(ValueError, match="pts_unit"):
        read_video(m.path, pts_unit="frames")


def test_bytes_source(media):
    m = media["vp9.webm"]
    a, aa, info = read_video(m.read_bytes(), 0.3, 1.1)
    b, bb, info2 = read_video(m.path, 0.3, 1.1)
    assert np.array_equal(np.asarray(a), np.asarray(b)) and np.array_equal(
        np.asarray(aa), np.asarray(bb)
    )
    assert info == info2


@pytest.mark.parametrize("name", ["h264.mp4", "vp9.webm", "vfr.mkv", "one.mp4"])
def test_read_video_timestamps(media, name):
    m = media[name]
    pts, fps = read_video_timestamps(m.path)
    assert all(isinstance(p, Fraction) for p in pts)
    assert [float(p) for p in pts] == pytest.approx(m.pts, abs=1e-9)
    if m.fps is not None:
        assert fps == pytest.approx(m.fps)
    ticks, _ = read_video_timestamps(m.path, pts_unit="pts")
    assert len(ticks) == len(pts)


def test_vfr_exact_fractions(media):
    pts, _ = read_video_timestamps(media["vfr.mkv"].path)
    assert pts == [Fraction(50 * i, 1000) for i in range(10)] + [
        Fraction(500 + 200 * i, 1000) for i in range(10)
    ]
