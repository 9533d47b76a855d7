"""Intact files of every container/codec pair ffmpeg writes here decode completely (issue 24.1).

Container headers that count frames (AVI's strh length, ASF, MXF) are advisory: ffmpeg's own AVI
muxer may declare one frame more than it writes. Only a genuinely cut file is "truncated", so
every intact file must give all its frames, as PyAV (FFmpeg's own decode loop) counts them.

The default run covers each container with its usual codecs; TC_MEDIA_FULL_SWEEP=1 crosses every
container with every encoder below (about 400 files, a minute or two). Pairs the muxer refuses
are skipped: the point is files ffmpeg can write.
"""

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tensorcore.vision.io import VideoReader

pytest.importorskip("av")

if shutil.which("ffmpeg") is None:
    pytest.skip("the ffmpeg CLI is needed to generate test media", allow_module_level=True)

CONTAINERS = ["mp4", "mov", "mkv", "webm", "avi", "flv", "ts", "nut", "asf", "mxf", "mpg",
              "ogg", "3gp", "wmv", "m2ts", "mts", "f4v", "ismv", "dv"]  # fmt: skip
VIDEO_CODECS = ["libx264", "mpeg4", "mjpeg", "libvpx", "libvpx-vp9", "mpeg2video", "mpeg1video",
                "libtheora", "flv", "msmpeg4", "wmv2", "ffv1", "huffyuv", "png", "rawvideo",
                "prores_ks", "libx265", "h263", "h263p", "dvvideo", "libxvid"]  # fmt: skip
AUDIO_CODECS = ["aac", "libmp3lame", "libopus", "libvorbis", "pcm_s16le", "flac", "ac3", "mp2",
                "pcm_f32le", "pcm_s16be", "alac", "wmav2"]  # fmt: skip

# Each container with the codecs it usually carries (the default run).
USUAL = {
    "mp4": [("libx264", "aac"), ("mpeg4", "libmp3lame")],
    "mov": [("mjpeg", "alac")],
    "mkv": [("libx264", "libvorbis"), ("ffv1", "pcm_s16le")],
    "webm": [("libvpx-vp9", "libopus")],
    "avi": [("mpeg4", "libmp3lame"), ("mjpeg", "pcm_s16le"), ("msmpeg4", "mp2"), ("libxvid", "ac3")],
    "flv": [("flv", "libmp3lame")],
    "ts": [("mpeg2video", "mp2")],
    "nut": [("ffv1", "pcm_s16le")],
    "asf": [("wmv2", "wmav2")],
    "mxf": [("mpeg2video", "pcm_s16le")],
    "mpg": [("mpeg1video", "mp2")],
    "ogg": [("libtheora", "libvorbis")],
    "3gp": [("h263", "aac")],
}  # fmt: skip

FULL = os.environ.get("TC_MEDIA_FULL_SWEEP") == "1"


# The codec each container pairs with the codec being swept (those it accepts).
PARTNER_AUDIO = {"webm": "libopus", "ogg": "libvorbis", "mpg": "mp2", "dv": "pcm_s16le",
                 "asf": "wmav2", "wmv": "wmav2"}  # fmt: skip
PARTNER_VIDEO = {"webm": "libvpx", "ogg": "libtheora", "dv": "dvvideo", "asf": "wmv2",
                 "wmv": "wmv2", "mpg": "mpeg2video", "flv": "flv"}  # fmt: skip


def _pairs():
    if not FULL:
        return [(c, v, a) for c, pairs in USUAL.items() for v, a in pairs]
    # Every video encoder with an audio codec the container takes, and every audio encoder with
    # a video one.
    out = [(c, v, PARTNER_AUDIO.get(c, "aac")) for c in CONTAINERS for v in VIDEO_CODECS]
    out += [(c, PARTNER_VIDEO.get(c, "mpeg4"), a) for c in CONTAINERS for a in AUDIO_CODECS]
    return sorted(set(out))


def _encode(root, container, vcodec, acodec):
    path = os.path.join(root, f"{vcodec}_{acodec}.{container}")
    size = "176x144" if vcodec in ("h263", "h263p") else "64x48"
    if vcodec == "dvvideo":
        size = "720x576"
    rate = "48000" if container == "dv" else "44100"
    args = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", f"testsrc2=s={size}:r=25:d=0.6",
            "-f", "lavfi", "-i", f"sine=f=440:r={rate}:d=0.6",
            "-c:v", vcodec, "-g", "6", "-c:a", acodec, "-ac", "2", "-strict", "-2"]  # fmt: skip
    if vcodec in ("libx264", "libx265", "mpeg4", "mjpeg", "libxvid"):
        args += ["-pix_fmt", "yuvj420p" if vcodec == "mjpeg" else "yuv420p"]
    if vcodec == "libx265":
        args += ["-x265-params", "log-level=none"]
    if vcodec.startswith("libvpx"):
        args += ["-deadline", "realtime"]
    if vcodec == "dvvideo":
        args += ["-pix_fmt", "yuv420p", "-r", "25"]
    if acodec in ("libopus", "ac3", "mp2", "wmav2"):
        args += ["-ar", "48000"]
    proc = subprocess.run([*args, path], capture_output=True, timeout=60)
    ok = proc.returncode == 0 and os.path.exists(path) and os.path.getsize(path) > 0
    return (container, vcodec, acodec, path if ok else None)


@pytest.fixture(scope="module")
def sweep_files(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("sweep"))
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda p: _encode(root, *p), _pairs()))


_PYAV_COUNTS = """
import json, sys, av
out = {}
for path in sys.argv[1:]:
    try:
        with av.open(path) as f:
            video = sum(1 for _ in f.decode(video=0)) if f.streams.video else None
        samples = None
        with av.open(path) as f:
            if f.streams.audio:
                samples = sum(fr.samples for fr in f.decode(audio=0))
        out[path] = [video, samples]
    except Exception:
        out[path] = None  # PyAV cannot read it either: not a file to judge by
print(json.dumps(out))
"""


def _pyav_counts(paths):
    """path -> (video frames, audio samples) by PyAV's decode (FFmpeg's own loop). In a child
    process: PyAV and torchvision's video_reader in one process can crash each other."""
    proc = subprocess.run(
        [sys.executable, "-c", _PYAV_COUNTS, *paths], check=True, capture_output=True, text=True
    )
    return {p: (tuple(v) if v else None) for p, v in json.loads(proc.stdout).items()}


def _ours(path):
    # MPEG-TS takes codecs it has no stream type for as data streams: then FFmpeg (and PyAV)
    # see no video stream, and neither do we.
    try:
        streams = VideoReader(path, "video").streams()
    except ValueError:
        streams = VideoReader(path, "audio").streams()
    types = {s["type"] for s in streams}
    frames = sum(1 for _ in VideoReader(path, "video", num_threads=1)) if "video" in types else None
    samples = None
    if "audio" in types:
        samples = sum(f["data"].shape[0] for f in VideoReader(path, "audio"))
    return frames, samples


def test_no_intact_file_is_rejected(sweep_files):
    written = [f for f in sweep_files if f[3] is not None]
    # The sweep must actually cover the containers, not skip everything.
    assert len({c for c, _, _, _ in written}) >= (len(CONTAINERS) - 2 if FULL else len(USUAL) - 1)
    failures = []
    reference = _pyav_counts([f[3] for f in written])
    for container, vcodec, acodec, path in written:
        want = reference[path]
        if want is None:
            continue
        try:
            got = _ours(path)
        except Exception as e:
            failures.append(f"{container}/{vcodec}/{acodec}: {e}")
            continue
        if got[0] != want[0] or (want[1] is not None and got[1] != want[1]):
            failures.append(f"{container}/{vcodec}/{acodec}: ours {got}, PyAV {want}")
    assert not failures, "\n".join(failures)


def test_ffmpeg_avi_with_advisory_frame_count_decodes(tmp_path):
    """The issue's file: ffmpeg's AVI muxer declares one frame more than the packets it holds."""
    src = tmp_path / "in.mp4"
    out = tmp_path / "out.avi"
    run = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
    subprocess.run([*run, "-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=2", "-f", "lavfi", "-i",
                    "sine=d=2", "-c:v", "libx264", "-c:a", "aac", str(src)], check=True)  # fmt: skip
    subprocess.run([*run, "-i", str(src), "-c:v", "mpeg4", "-c:a", "libmp3lame", str(out)],
                   check=True)  # fmt: skip
    declared = next(s for s in VideoReader(str(out)).streams() if s["type"] == "video")
    frames = list(VideoReader(str(out)))
    want_frames, want_samples = _pyav_counts([str(out)])[str(out)]
    assert len(frames) == want_frames
    # The header promises more than the file holds; that alone must not reject it.
    assert declared["num_frames"] >= len(frames)
    assert sum(f["data"].shape[0] for f in VideoReader(str(out), "audio")) == want_samples
    # A genuinely cut copy is still reported as truncated.
    data = out.read_bytes()
    with pytest.raises(RuntimeError, match="truncated"):
        list(VideoReader(data[: len(data) * 2 // 3]))
