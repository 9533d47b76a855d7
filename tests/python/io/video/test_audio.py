"""VideoReader on audio streams: samples x channels float frames, continuity, content, sample-exact seeks."""

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.io import VideoReader

from video_media import AUDIO_FILES

# Max abs error vs the generated sine (after the codec's start-up frames).
TOLERANCE = {"h264.mp4": 0.05, "vp9.webm": 0.05, "mpeg4.avi": 1e-4}  # AAC, Opus, PCM s16


def decode_all(reader):
    frames = list(reader)
    # Frames are samples x channels (torchvision's layout); the track is returned as C x N.
    return frames, np.concatenate([np.asarray(f["data"]) for f in frames], axis=0).T


@pytest.mark.parametrize("name", AUDIO_FILES)
def test_audio_frames(media, name):
    m = media[name]
    frames, samples = decode_all(VideoReader(m.path, "audio"))
    sr = m.sample_rate
    for f in frames:
        assert f["data"].dtype == tc.float32 and f["data"].dim() == 2
        assert f["data"].shape[1] == m.channels and f["data"].is_contiguous()
    # Each frame starts where the previous one ended (WebM stores pts in whole milliseconds).
    slack = 1e-3 if name.endswith(".webm") else 1e-9
    for a, b in zip(frames, frames[1:]):
        assert b["pts"] == pytest.approx(a["pts"] + a["data"].shape[0] / sr, abs=slack)
    # 2 s of audio; AAC pads its last frame.
    assert 2 * sr <= samples.shape[1] <= 2 * sr + 1024
    # Content: a 440 Hz sine, amplitude 0.5 on channel 0 and 0.25 on channel 1.
    t = frames[0]["pts"] + np.arange(samples.shape[1]) / sr
    ref = 0.5 * np.sin(2 * np.pi * 440 * t)
    body = slice(2048, int(1.9 * sr))
    assert np.abs(samples[0, body] - ref[body]).max() < TOLERANCE[name]
    assert np.abs(samples[1, body] - ref[body] / 2).max() < TOLERANCE[name]


@pytest.mark.parametrize("name", ["mpeg4.avi", "h264.mp4"])
def test_audio_seek_is_sample_exact(media, name):
    # PCM (AVI) and AAC in MP4 (time base 1/sample_rate) have sample-precise timestamps.
    m = media[name]
    sr = m.sample_rate
    reader = VideoReader(m.path, "audio")
    _, full = decode_all(reader)
    for t in [0.5, 1.2345, 0.0123, 1.99]:
        frames, after = decode_all(reader.seek(t))
        first = int(np.ceil(t * sr - 1e-6))
        assert frames[0]["pts"] == pytest.approx(first / sr, abs=1e-9)
        assert after.shape[1] == full.shape[1] - first
        tol = 0 if name == "mpeg4.avi" else 1e-2  # AAC: decoder start-up from the pre-roll
        np.testing.assert_allclose(after, full[:, first:], atol=tol, rtol=0)


def test_audio_seek_webm(media):
    m = media["vp9.webm"]
    reader = VideoReader(m.path, "audio")
    for t in [0.5, 1.2345]:
        frames, after = decode_all(reader.seek(t))
        assert frames[0]["pts"] == pytest.approx(t, abs=1e-9)
        assert after.shape[1] == pytest.approx((2.0 - t) * m.sample_rate, abs=50)
        rms = np.sqrt((after[0, :4800] ** 2).mean())
        assert rms == pytest.approx(0.5 / np.sqrt(2), rel=0.1)


@pytest.mark.parametrize("name", AUDIO_FILES)
def test_audio_seek_past_end(media, name):
    reader = VideoReader(media[name].path, "audio")
    assert list(reader.seek(2.5)) == []
    assert list(reader.seek(2.5, keyframes_only=True)) == []
    assert len(list(reader.seek(1.5))) > 0


def test_audio_keyframes_only_seek(media):
    # Every audio packet is a keyframe: the nearest one starts within a frame of t.
    m = media["mpeg4.avi"]
    reader = VideoReader(m.path, "audio")
    f = next(reader.seek(1.0, keyframes_only=True))
    assert abs(f["pts"] - 1.0) <= f["data"].shape[0] / m.sample_rate
