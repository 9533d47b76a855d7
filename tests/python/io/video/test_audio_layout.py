"""Audio frames from VideoReader in torchvision's layout, samples x channels (issue 24.2).

`cat([f["data"] for f in reader], 0)` gives the whole track, for AAC, MP3, Opus, Vorbis and PCM
tracks whose frames have any size (Vorbis mixes block sizes, PCM packets are cut anywhere).
References: torchvision's VideoReader for the per-frame layout, PyAV for the samples.
"""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.vision.io import VideoReader

if shutil.which("ffmpeg") is None:
    pytest.skip("the ffmpeg CLI is needed to generate test media", allow_module_level=True)

# name -> ffmpeg audio arguments; 0.5 s of a stereo sine at 48 kHz (Opus needs 48 kHz).
TRACKS = {
    "aac.m4a": ["-c:a", "aac"],
    "mp3.mkv": ["-c:a", "libmp3lame"],
    "opus.webm": ["-c:a", "libopus"],
    "vorbis.ogg": ["-c:a", "libvorbis"],
    "s16.wav": ["-c:a", "pcm_s16le"],
    # Odd PCM packet sizes: 1001 samples a frame.
    "s16_odd.mkv": ["-af", "asetnsamples=n=1001:p=0", "-c:a", "pcm_s16le"],
    "f32.mkv": ["-c:a", "pcm_f32le"],
    "u8_mono.wav": ["-c:a", "pcm_u8", "-ac", "1"],
}


@pytest.fixture(scope="module")
def tracks(tmp_path_factory):
    root = tmp_path_factory.mktemp("audio_layout")
    out = {}
    for name, args in TRACKS.items():
        path = str(root / name)
        subprocess.run(
            ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
             "aevalsrc=0.5*sin(2*PI*440*t)|0.25*sin(2*PI*440*t):s=48000:d=0.5", *args, path],
            check=True,
        )  # fmt: skip
        out[name] = path
    return out


_PYAV_TRACK = """
import json, sys, av, numpy as np
out = {}
for path in sys.argv[2:]:
    chunks = []
    with av.open(path) as f:
        for frame in f.decode(audio=0):
            x = np.array(frame.to_ndarray())
            c = len(frame.layout.channels)
            # Planar arrays are C x N, packed ones 1 x (N * C): both to N x C.
            x = x.T if frame.format.is_planar else x.reshape(-1, c)
            chunks.append((x, frame.format.name))
    np.save(sys.argv[1] + "/" + path.rsplit("/", 1)[1] + ".npy", np.concatenate([c[0] for c in chunks]))
    out[path] = chunks[0][1]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def pyav_tracks(tracks, tmp_path_factory):
    """name -> (N x C samples in the stream's dtype, sample format name), decoded by PyAV in a
    child process (PyAV and torchvision's video_reader in one process can crash each other)."""
    try:
        import av  # noqa: F401
    except Exception:
        pytest.skip("PyAV not installed")
    root = tmp_path_factory.mktemp("pyav")
    proc = subprocess.run(
        [sys.executable, "-c", _PYAV_TRACK, str(root), *tracks.values()],
        check=True,
        capture_output=True,
        text=True,
    )
    formats = json.loads(proc.stdout)
    return {n: (np.load(root / f"{n}.npy"), formats[p]) for n, p in tracks.items()}


def _to_float(x):
    if x.dtype == np.int16:
        return x.astype(np.float32) / 32768
    if x.dtype == np.uint8:
        return (x.astype(np.float32) - 128) / 128
    return x.astype(np.float32)


@pytest.mark.parametrize("name", list(TRACKS))
def test_frames_are_samples_by_channels(tracks, pyav_tracks, name):
    reader = VideoReader(tracks[name], "audio")
    frames = [f["data"] for f in reader]
    channels = 1 if name.startswith("u8_mono") else 2
    for f in frames:
        assert f.dtype == tc.float32 and f.dim() == 2 and f.shape[1] == channels
        assert f.is_contiguous()
    whole = tc.cat(frames, 0)
    ref, _ = pyav_tracks[name]
    assert tuple(whole.shape) == ref.shape
    np.testing.assert_allclose(np.asarray(whole), _to_float(ref), atol=1e-6, rtol=0)
    if name.startswith("s16_odd"):
        assert [f.shape[0] for f in frames[:-1]] == [1001] * (len(frames) - 1)


@pytest.mark.parametrize("name", list(TRACKS))
def test_native_dtype_and_channels_first_options(tracks, pyav_tracks, name):
    ref, fmt = pyav_tracks[name]
    native = tc.cat(
        [f["data"] for f in VideoReader(tracks[name], "audio", audio_native_dtype=True)]
    )
    assert str(np.asarray(native).dtype) == str(ref.dtype), fmt
    np.testing.assert_array_equal(np.asarray(native), ref)
    # The layout before issue 24, kept behind an option: C x N frames.
    first = [f["data"] for f in VideoReader(tracks[name], "audio", audio_channels_first=True)]
    np.testing.assert_allclose(
        np.concatenate([np.asarray(f) for f in first], 1), _to_float(ref).T, atol=1e-6, rtol=0
    )


@pytest.mark.parametrize("name", list(TRACKS))
def test_frame_layout_matches_torchvision(tracks, name):
    import os

    os.environ.setdefault("GLOG_minloglevel", "2")
    torchvision = pytest.importorskip("torchvision")
    from torchvision.io import _video_opt

    if not _video_opt._HAS_VIDEO_OPT:
        pytest.skip("torchvision was built without the video_reader backend")
    torchvision.set_video_backend("video_reader")
    try:
        ref = [f["data"] for f in torchvision.io.VideoReader(tracks[name], "audio")]
    except RuntimeError as e:
        pytest.skip(f"torchvision cannot read it: {e}")
    ours = [f["data"] for f in VideoReader(tracks[name], "audio")]
    ref_shapes = [tuple(r.shape) for r in ref]
    our_shapes = [tuple(o.shape) for o in ours]
    if name.startswith("opus"):
        # FFmpeg drops Opus's pre-skip (312 samples at 48 kHz) from the first frame, as PyAV
        # does; torchvision 0.14 keeps it and ends a frame early (its total is 312 short of
        # the 0.5 s track, ours is exact).
        assert ref_shapes[0][0] - our_shapes[0][0] == 312
        assert sum(s[0] for s in our_shapes) == 24000
        ref_shapes, our_shapes = ref_shapes[1:-1], our_shapes[1 : len(ref) - 1]
    assert our_shapes == ref_shapes
    assert all(r.dtype == tc.float32 for r in ours)
    # torch.cat along dim 0 works on both the same way.
    torch = pytest.importorskip("torch")
    assert tuple(torch.cat(ref, 0).shape)[1] == tuple(tc.cat(ours, 0).shape)[1]
