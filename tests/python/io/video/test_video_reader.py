"""tensorcore.vision.io.VideoReader on video streams: frames, pts, content, seeking."""

import itertools

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.io import VideoReader

from video_media import AUDIO_FILES, VIDEO_FILES, H, W, frame_colour


def frame_index(data):
    return int(round(float(np.asarray(data)[0].mean()) / 8))


def assert_frame(data, i, tol):
    assert tuple(data.shape) == (3, H, W) and data.dtype == tc.uint8
    expected = np.array(frame_colour(i)).reshape(3, 1, 1)
    err = np.abs(np.asarray(data).astype(int) - expected).max()
    assert err <= tol, f"frame {i}: max error {err}"


@pytest.mark.parametrize("name", VIDEO_FILES)
def test_sequential_frames(media, name):
    m = media[name]
    frames = list(VideoReader(m.path))
    assert len(frames) == len(m.pts)
    assert [f["pts"] for f in frames] == pytest.approx(m.pts, abs=1e-6)
    for i, f in enumerate(frames):
        assert set(f) == {"data", "pts"}
        assert_frame(f["data"], i, m.tolerance)


def test_known_pts(media):
    # By construction, independent of ffprobe.
    assert [f["pts"] for f in VideoReader(media["h264.mp4"].path)] == pytest.approx(
        [i / 15 for i in range(30)], abs=1e-9
    )
    vfr = [f["pts"] for f in VideoReader(media["vfr.mkv"].path)]
    assert vfr == pytest.approx(
        [0.05 * i for i in range(10)] + [0.5 + 0.2 * i for i in range(10)], abs=1e-9
    )
    assert len(list(VideoReader(media["one.mp4"].path))) == 1


@pytest.mark.parametrize("name", VIDEO_FILES)
def test_metadata(media, name):
    m = media[name]
    meta = VideoReader(m.path).get_metadata()
    assert len(meta["video"]["duration"]) == 1 and len(meta["video"]["fps"]) == 1
    if m.fps is not None:
        assert meta["video"]["fps"][0] == pytest.approx(m.fps)
    # The stream ends after its last frame, within a frame duration (VFR: the source's 10 ms).
    assert m.pts[-1] < meta["video"]["duration"][0] <= m.pts[-1] + 1 / 15 + 0.01
    if m.has_audio:
        assert meta["audio"]["framerate"] == [m.sample_rate]
        assert meta["audio"]["sample_rate"] == [m.sample_rate]
        assert meta["audio"]["duration"][0] == pytest.approx(2.0, abs=0.05)
    else:
        assert meta["audio"]["duration"] == []


def _seek_times(m):
    pts = m.pts
    mid = len(pts) // 2
    times = {
        0.0,
        -1.0,
        pts[mid],
        pts[-1],
        (pts[mid] + pts[mid + 1]) / 2 if len(pts) > 1 else 0.0,
        pts[1] if len(pts) > 1 else 0.0,
        pts[-1] - 1e-4,
    }
    times.update(m.keyframes)
    times.update(k + 1e-3 for k in m.keyframes)
    times.update(k - 1e-3 for k in m.keyframes if k > 0)
    return sorted(times)


@pytest.mark.parametrize("name", VIDEO_FILES)
def test_exact_seek(media, name):
    m = media[name]
    reader = VideoReader(m.path)
    for t in _seek_times(m):
        expected = [i for i, p in enumerate(m.pts) if p >= t - 1e-9]
        got = list(reader.seek(t))
        assert [f["pts"] for f in got] == pytest.approx([m.pts[i] for i in expected], abs=1e-6), t
        for f, i in zip(got, expected):
            assert_frame(f["data"], i, m.tolerance)


@pytest.mark.parametrize("name", ["h264.mp4", "vp9.webm", "mpeg4.avi"])
def test_exact_seek_random_order(media, name):
    m = media[name]
    reader = VideoReader(m.path)
    rng = np.random.default_rng(0)
    for t in rng.uniform(0, m.pts[-1], size=12):
        i = next(i for i, p in enumerate(m.pts) if p >= t)
        f = next(reader.seek(t))
        assert f["pts"] == pytest.approx(m.pts[i], abs=1e-6)
        assert frame_index(f["data"]) == i
        # The following frames continue in order.
        for j, g in enumerate(itertools.islice(reader, 3), start=i + 1):
            assert g["pts"] == pytest.approx(m.pts[j], abs=1e-6)


@pytest.mark.parametrize("name", VIDEO_FILES)
def test_seek_past_end_yields_nothing(media, name):
    m = media[name]
    reader = VideoReader(m.path)
    end = m.pts[-1]
    for t in (end + 1e-3, end + 0.5, end + 100.0, 1e12):
        assert list(reader.seek(t)) == []
        assert list(reader.seek(t, keyframes_only=True)) == [] or t <= end + 0.07
    assert list(reader.seek(1e9, keyframes_only=True)) == []
    # Still usable afterwards.
    assert len(list(reader.seek(0))) == len(m.pts)


@pytest.mark.parametrize("name", ["h264.mp4", "vp9.webm", "mpeg4.avi", "vfr.mkv"])
def test_keyframes_only_seek(media, name):
    m = media[name]
    keys = m.keyframes
    assert len(keys) >= 2
    reader = VideoReader(m.path)
    for t in [keys[1], keys[1] + 0.01, (keys[0] + keys[1]) / 2 + 0.01, keys[-1] - 0.01]:
        f = next(reader.seek(t, keyframes_only=True))
        nearest = min(keys, key=lambda k: abs(k - t))
        assert f["pts"] == pytest.approx(nearest, abs=1e-6), t
        assert frame_index(f["data"]) == m.pts.index(min(m.pts, key=lambda p: abs(p - nearest)))


def test_iterator_protocol(media):
    m = media["h264.mp4"]
    reader = VideoReader(m.path)
    assert iter(reader) is reader
    first = list(itertools.islice(reader, 5))
    assert [f["pts"] for f in first] == pytest.approx(m.pts[:5])
    upto = list(itertools.takewhile(lambda f: f["pts"] <= 1.0, reader.seek(0.5)))
    assert [f["pts"] for f in upto] == pytest.approx([p for p in m.pts if 0.5 - 1e-9 <= p <= 1.0])
    assert reader.seek(0) is reader
    with pytest.raises(StopIteration):
        reader.seek(100)
        next(reader)


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview", "tensor", "pathlib"])
def test_sources(media, kind):
    import pathlib

    m = media["vp9.webm"]
    raw = m.read_bytes()
    src = {
        "bytes": raw,
        "bytearray": bytearray(raw),
        "memoryview": memoryview(raw),
        "tensor": tc.tensor(list(raw), dtype=tc.uint8) if kind == "tensor" else None,
        "pathlib": pathlib.Path(m.path),
    }[kind]
    frames = list(VideoReader(src))
    ref = list(VideoReader(m.path))
    assert len(frames) == len(ref)
    for a, b in zip(frames, ref):
        assert a["pts"] == b["pts"]
        assert np.array_equal(np.asarray(a["data"]), np.asarray(b["data"]))
    # Seeking works in memory too.
    reader = VideoReader(src)
    assert next(reader.seek(m.pts[17]))["pts"] == pytest.approx(m.pts[17])


def test_num_threads_same_frames(media):
    m = media["h264.mp4"]
    a = [np.asarray(f["data"]) for f in VideoReader(m.path, num_threads=1)]
    b = [np.asarray(f["data"]) for f in VideoReader(m.path, num_threads=3)]
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    with pytest.raises(ValueError, match="num_threads"):
        VideoReader(m.path, num_threads=-1)


def test_stream_selection(media):
    m = media["h264.mp4"]
    assert len(list(VideoReader(m.path, "video:0"))) == len(m.pts)
    with pytest.raises(ValueError, match="no stream 'video:1'"):
        VideoReader(m.path, "video:1")
    with pytest.raises(ValueError, match="stream must be"):
        VideoReader(m.path, "subtitles")
    with pytest.raises(ValueError, match="stream must be"):
        VideoReader(m.path, "video:x")
    with pytest.raises(ValueError, match="no stream 'audio'"):
        VideoReader(media["mjpeg.mov"].path, "audio")


@pytest.mark.parametrize("name", AUDIO_FILES)
def test_set_current_stream_rewinds(media, name):
    m = media[name]
    reader = VideoReader(m.path)
    list(itertools.islice(reader, 7))
    assert reader.set_current_stream("audio")
    assert reader.current_stream == "audio"
    # The same samples a fresh audio reader gives (priming and pre-roll handled on rewind).
    fresh = [np.asarray(f["data"]) for f in VideoReader(m.path, "audio")]
    switched = [np.asarray(f["data"]) for f in reader]
    assert len(switched) == len(fresh)
    assert all(np.array_equal(a, b) for a, b in zip(switched, fresh))
    assert switched[0].dtype == np.float32 and switched[0].shape[1] == m.channels
    reader.set_current_stream("video")
    assert [f["pts"] for f in reader] == pytest.approx(m.pts, abs=1e-6)
    with pytest.raises(ValueError):
        reader.set_current_stream("video:3")
    # A failed switch leaves the reader on its stream.
    assert reader.current_stream == "video"


def test_frames_are_independent(media):
    # Each frame owns its memory: holding one while decoding on must not change it.
    m = media["h264.mp4"]
    frames = list(VideoReader(m.path))
    for i, f in enumerate(frames):
        assert frame_index(f["data"]) == i


def test_decoding_in_threads(media):
    import concurrent.futures

    m = media["h264.mp4"]

    def count(_):
        return [f["pts"] for f in VideoReader(m.path, num_threads=1)]

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(count, range(4)))
    assert all(r == pytest.approx(m.pts) for r in results)


_PYAV_LOG_CALLBACK_SCRIPT = """
import sys
import av  # installs a Python av_log callback that takes the GIL from decoder threads
from tensorcore.vision.io import VideoReader
for i in range(8):
    reader = VideoReader(sys.argv[1], num_threads=4)
    for t in (0.3, 1.7, 0.9, 1.2):
        next(reader.seek(t))
    del reader  # joins the frame threads: must not hold the GIL while doing so
print("done")
"""


def test_no_deadlock_with_python_log_callback(media):
    # Regression: with PyAV imported, destroying a frame-threaded reader under the GIL hung.
    import subprocess
    import sys

    try:
        import av  # noqa: F401
    except Exception:
        pytest.skip("PyAV not installed")
    out = subprocess.run(
        [sys.executable, "-c", _PYAV_LOG_CALLBACK_SCRIPT, media["h264.mp4"].path],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0 and "done" in out.stdout, out.stderr
