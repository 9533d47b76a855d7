"""read_video / read_video_timestamps: clip selection (torchvision's rule: [start, end] plus the
frame before start when none lies on it; or strict [start, end]), audio span, units, formats."""

import math
from fractions import Fraction

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.io import VideoReader, read_video, read_video_timestamps

from video_media import H, W, frame_colour


def stack_reader(path, stream="video", **kw):
    return [f for f in VideoReader(path, stream, **kw)]


def audio_track(path, **kw):
    """The whole audio track as C x N (reader frames are N x C)."""
    return np.concatenate([np.asarray(f["data"]) for f in stack_reader(path, "audio", **kw)], 0).T


def torchvision_frames(path, start, end):
    """Indices torchvision's read_video returns (pyav backend): pts in ticks within
    [floor(start / time_base), ceil(end / time_base)], plus the last frame before that start
    when start > 0 and no frame lies on it."""
    ticks, _ = read_video_timestamps(path, pts_unit="pts")
    num, den = next(s["time_base"] for s in VideoReader(path).streams() if s["type"] == "video")
    start_t = math.floor(start * Fraction(den, num))
    end_t = math.ceil(end * Fraction(den, num))
    want = [i for i, t in enumerate(ticks) if start_t <= t <= end_t]
    before = [i for i, t in enumerate(ticks) if t < start_t]
    if start_t > 0 and start_t not in ticks and before:
        want.insert(0, before[-1])
    return want


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
        # The stream's own sample dtype: int16 for the AVI's 16-bit PCM, float32 for AAC/Opus.
        ref = audio_track(m.path, audio_native_dtype=True)
        assert audio.dtype == (tc.int16 if name == "mpeg4.avi" else tc.float32)
        np.testing.assert_array_equal(np.asarray(audio), ref)
    else:
        assert "audio_fps" not in info
        assert tuple(audio.shape) == (1, 0)


@pytest.mark.parametrize("name", ["h264.mp4", "mpeg4.avi", "vfr.mkv"])
@pytest.mark.parametrize("span", [(0.5, 1.0), (0.0, 0.3), (0.45, 0.9), (1.2, 100.0), (0.62, 0.63)])
@pytest.mark.parametrize("preceding", [True, False])
def test_clip_selection(media, name, span, preceding):
    m = media[name]
    start, end = span
    video, audio, _ = read_video(
        m.path, start, end, preceding_frame=preceding, audio_dtype=tc.float32
    )
    if preceding:
        want = torchvision_frames(m.path, start, end)
    else:
        want = [i for i, p in enumerate(m.pts) if start - 1e-9 <= p <= end + 1e-9]
    assert video.shape[0] == len(want)
    for row, i in zip(np.asarray(video), want):
        assert np.abs(row.astype(int) - np.array(frame_colour(i))).max() <= m.tolerance
    if m.has_audio:
        assert audio.dtype == tc.float32
        sr = m.sample_rate
        first = math.ceil(start * sr - 1e-6)
        full = audio_track(m.path)
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


def test_start_past_the_end(media):
    # torchvision returns the last frame before start; the strict rule returns nothing.
    for name in ["h264.mp4", "one.mp4", "vfr.mkv"]:
        m = media[name]
        video, _, _ = read_video(m.path, 10.0, 20.0)
        assert video.shape[0] == 1, name
        last = len(m.pts) - 1
        assert np.abs(np.asarray(video)[0].astype(int) - frame_colour(last)).max() <= m.tolerance
    # The one-frame video asked for a later start returns its frame (clip samplers rely on it).
    video, _, _ = read_video(media["one.mp4"].path, 0.5, None)
    assert video.shape[0] == 1


def test_empty_and_invalid_ranges(media):
    m = media["h264.mp4"]
    video, audio, info = read_video(m.path, 10.0, 20.0, preceding_frame=False)
    assert tuple(video.shape) == (0, 1, 1, 3) and tuple(audio.shape) == (1, 0)
    assert info["video_fps"] == 15
    with pytest.raises(ValueError, match="end_pts should be larger"):
        read_video(m.path, 1.0, 0.5)
    with pytest.raises(ValueError, match="pts_unit"):
        read_video(m.path, pts_unit="frames")
    with pytest.raises(ValueError, match="audio_dtype"):
        read_video(m.path, audio_dtype=tc.int16)
    # The old float32 audio for every codec, by dtype or by name.
    for dt in (tc.float32, "float32"):
        _, audio, _ = read_video(media["mpeg4.avi"].path, 0, 0.5, audio_dtype=dt)
        assert audio.dtype == tc.float32 and np.abs(np.asarray(audio)).max() <= 1.0


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
