"""Side by side with torchvision's FFmpeg readers (same libraries underneath): same frames,
same pts, same seek semantics. Skipped when torchvision or its video_reader backend is absent."""

import numpy as np
import pytest

from tensorcore.vision.io import VideoReader, read_video

from video_media import AUDIO_FILES, VIDEO_FILES


def tv_frames(tv, path, stream="video"):
    reader = tv.io.VideoReader(path, stream)
    return [(f["data"].numpy(), f["pts"]) for f in reader]


@pytest.mark.parametrize("name", VIDEO_FILES)
def test_frames_match_torchvision_video_reader(media, tv_video, name):
    m = media[name]
    ref = tv_frames(tv_video, m.path)
    ours = [(np.asarray(f["data"]), f["pts"]) for f in VideoReader(m.path)]
    assert len(ours) == len(ref)
    for (a, pa), (b, pb) in zip(ours, ref):
        assert pa == pytest.approx(pb, abs=1e-6)  # torchvision rounds pts to microseconds
        diff = np.abs(a.astype(int) - b.astype(int)).max()
        assert diff <= (2 if name == "mjpeg.mov" else 0), diff


_PYAV_AUDIO = """
import sys, av, numpy as np
chunks = []
with av.open(sys.argv[1]) as container:
    for frame in container.decode(audio=0):
        x = np.array(frame.to_ndarray())
        if not frame.format.is_planar:
            x = x.reshape(-1, len(frame.layout.channels)).T
        if x.dtype == np.int16:
            x = x.astype(np.float32) / 32768
        chunks.append(x)
np.save(sys.argv[2], np.concatenate(chunks, axis=1))
"""


@pytest.mark.parametrize("name", AUDIO_FILES)
def test_audio_matches_pyav(media, tmp_path, name):
    # torchvision 0.14's VideoReader mangles audio (planar data read as interleaved, garbage for
    # s16), so the audio reference is PyAV (what torchvision's pyav backend uses). It runs in a
    # child process: PyAV and torchvision's video_reader in one process can crash each other.
    import subprocess
    import sys

    try:
        import av  # noqa: F401
    except Exception:
        pytest.skip("PyAV not installed")
    m = media[name]
    out = tmp_path / "ref.npy"
    subprocess.run([sys.executable, "-c", _PYAV_AUDIO, m.path, str(out)], check=True)
    ref = np.load(out)
    ours = np.concatenate([np.asarray(f["data"]) for f in VideoReader(m.path, "audio")], axis=0).T
    assert ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, atol=1e-6, rtol=0)


@pytest.mark.parametrize("name", ["h264.mp4", "vp9.webm", "mpeg4.avi", "vfr.mkv"])
def test_exact_seek_matches_torchvision(media, tv_video, name):
    m = media[name]
    ref = tv_video.io.VideoReader(m.path, "video")
    ours = VideoReader(m.path)
    for t in [0.0, 0.31, m.pts[len(m.pts) // 2], 1.0, m.pts[-1]]:
        a = next(ours.seek(t))
        b = next(ref.seek(t))
        assert a["pts"] == pytest.approx(b["pts"], abs=1e-6), t
        assert np.array_equal(np.asarray(a["data"]), b["data"].numpy())


@pytest.mark.parametrize("name", ["h264.mp4", "mpeg4.avi"])  # torchvision: no WebM duration
def test_metadata_matches_torchvision(media, tv_video, name):
    m = media[name]
    ref = tv_video.io.VideoReader(m.path, "video").get_metadata()
    ours = VideoReader(m.path).get_metadata()
    assert ours["video"]["fps"] == pytest.approx(ref["video"]["fps"])
    assert ours["video"]["duration"] == pytest.approx(ref["video"]["duration"], abs=1e-3)
    assert ours["audio"]["framerate"] == pytest.approx(ref["audio"]["framerate"])


@pytest.mark.parametrize("span", [(0.0, None), (0.5, 1.0), (0.4, 1.3)])
def test_strict_read_video_matches_video_reader_backend(media, tv_video, span):
    # preceding_frame=False is the video_reader backend's rule: exactly [start, end].
    m = media["h264.mp4"]
    ref_v, ref_a, ref_info = tv_video.io.read_video(m.path, span[0], span[1], pts_unit="sec")
    video, audio, info = read_video(m.path, span[0], span[1], preceding_frame=False)
    assert tuple(video.shape) == tuple(ref_v.shape)
    assert np.array_equal(np.asarray(video), ref_v.numpy())
    assert info["video_fps"] == pytest.approx(ref_info["video_fps"])
    assert info["audio_fps"] == pytest.approx(ref_info["audio_fps"])
    # torchvision returns whole audio frames (as N x C) near the span, sometimes short of it;
    # ours is cut to exactly the span's samples (tested in test_read_video.py).
    assert audio.shape[0] == ref_a.shape[1]
    assert abs(ref_a.shape[0] - audio.shape[1]) <= 2 * 1024


# torchvision's default (pyav) backend, run in a child process (PyAV and the video_reader
# backend in one process can crash each other). Saves video, audio and info per case.
_TV_PYAV_READ_VIDEO = """
import json, sys, numpy as np, torchvision
torchvision.set_video_backend("pyav")
cases = json.loads(sys.argv[1])
for k, (path, start, end, unit, fmt) in enumerate(cases):
    v, a, info = torchvision.io.read_video(path, start, end, pts_unit=unit, output_format=fmt)
    np.savez(sys.argv[2] + f"/{k}.npz", video=v.numpy(), audio=a.numpy(),
             audio_dtype=str(a.dtype), fps=info.get("video_fps", -1.0))
"""

_PYAV_CASES = [
    ("h264.mp4", 0, None, "sec", "THWC"),
    ("h264.mp4", 0.5, 1.0, "sec", "THWC"),
    ("h264.mp4", 0.4, 1.3, "sec", "TCHW"),
    ("h264.mp4", 1.2, 100.0, "sec", "THWC"),
    ("mpeg4.avi", 0, None, "sec", "THWC"),  # 16-bit PCM audio: int16
    ("mpeg4.avi", 0.62, 0.63, "sec", "THWC"),
    ("mpeg4.avi", 7, 12, "pts", "TCHW"),  # ticks of 1/15 s
    ("vfr.mkv", 0.51, 1.0, "sec", "THWC"),  # in a 200 ms gap: the frame at 0.5 s precedes
    ("vfr.mkv", 600, 1100, "pts", "THWC"),
    ("one.mp4", 0.5, None, "sec", "THWC"),  # a one-frame video asked for a later start
    ("vp9.webm", 0.3, 1.1, "sec", "THWC"),
]


def test_read_video_matches_torchvision_pyav_backend(media, tmp_path):
    import json
    import subprocess
    import sys

    pytest.importorskip("torchvision")
    try:
        import av  # noqa: F401
    except Exception:
        pytest.skip("PyAV not installed")
    cases = [(media[n].path, s, e, u, f) for n, s, e, u, f in _PYAV_CASES]
    subprocess.run(
        [sys.executable, "-c", _TV_PYAV_READ_VIDEO, json.dumps(cases), str(tmp_path)], check=True
    )
    for k, (path, start, end, unit, fmt) in enumerate(cases):
        ref = np.load(tmp_path / f"{k}.npz")
        video, audio, info = read_video(path, start, end, pts_unit=unit, output_format=fmt)
        case = _PYAV_CASES[k]
        assert tuple(video.shape) == ref["video"].shape, case
        if video.shape[0]:
            # Same frames; PyAV's RGB conversion differs from the swscale path by rounding.
            diff = np.abs(np.asarray(video).astype(int) - ref["video"].astype(int))
            assert diff.mean() < 1.0 and diff.max() <= 8, case
        if "video_fps" in info:
            assert info["video_fps"] == pytest.approx(float(ref["fps"])), case
        # The stream's sample dtype, as torchvision returns it.
        assert str(np.asarray(audio).dtype) == ref["audio_dtype"].item().replace("torch.", ""), case
        if path.endswith(".avi") and start == 0 and end is None:
            # The whole PCM track: the same samples (lossy tracks start with priming frames of
            # negative pts, which torchvision's alignment shifts). torchvision's PyAV arrays of
            # packed formats are 1 x (N * C) interleaved; ours are C x N.
            want = ref["audio"]
            if want.shape[0] == 1 and audio.shape[0] > 1:
                want = want.reshape(-1, audio.shape[0]).T
            assert np.asarray(audio).shape == want.shape, case
            np.testing.assert_allclose(np.asarray(audio), want, atol=1e-6, rtol=0)
