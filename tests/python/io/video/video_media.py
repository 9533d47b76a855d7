"""Media for the video tests, generated once per session with the ffmpeg CLI (fixtures registered
by conftest.py; tests import names from here, since several `conftest` modules exist).

Every video frame i is a solid colour RGB = (8 i, 255 - 8 i, 128), so a decoded frame says which
frame it is (round(R / 8)) within codec tolerance. Audio is a 440 Hz sine, channel 1 at half the
amplitude of channel 0. Reference pts and keyframes come from ffprobe.
"""

import json
import shutil
import subprocess
from dataclasses import dataclass, field

import pytest

W, H = 64, 48


def frame_colour(i):
    return (8 * i, 255 - 8 * i, 128)


def _colour_source(rate, duration):
    return (
        f"color=c=black:s={W}x{H}:r={rate}:d={duration},format=gbrp,geq=r='8*N':g='255-8*N':b='128'"
    )


def _sine(rate, duration):
    return f"aevalsrc=0.5*sin(2*PI*440*t)|0.25*sin(2*PI*440*t):s={rate}:d={duration}"


def _colour_and_tone(sample_rate):
    """ffmpeg inputs: two seconds of the 15 fps colour ramp and of a stereo tone."""
    return ["-f", "lavfi", "-i", _colour_source(15, 2), "-f", "lavfi", "-i", _sine(sample_rate, 2)]


@dataclass
class Media:
    path: str
    pts: list  # reference pts (seconds) of every video frame, from ffprobe
    keyframes: list  # pts of the keyframes
    fps: float
    sample_rate: float = None
    channels: int = 0
    tolerance: int = 6  # max abs pixel error vs the frame colour
    extra: dict = field(default_factory=dict)

    @property
    def has_audio(self):
        return self.sample_rate is not None

    def read_bytes(self):
        with open(self.path, "rb") as f:
            return f.read()


def need_ffmpeg():
    """Skips the test where the ffmpeg and ffprobe command-line tools that make its media are absent."""
    if shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None:
        pytest.skip("the ffmpeg CLI is needed to generate test media")


def run_ffmpeg(args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)


def ffprobe(path, entries, output_format="json"):
    """ffprobe's report on the first video stream: -show_entries entries, printed as
    output_format (JSON parsed; other formats as text)."""
    args = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entries]
    out = subprocess.run(
        [*args, "-of", output_format, path], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out) if output_format == "json" else out


def _probe_frames(path):
    # Exact ticks and time base, so reference pts are computed as ticks * (num / den).
    probe = ffprobe(path, "frame=best_effort_timestamp,key_frame:stream=time_base")
    num, den = (int(x) for x in probe["streams"][0]["time_base"].split("/"))
    frames = probe["frames"]
    pts = [int(f["best_effort_timestamp"]) * (num / den) for f in frames]
    keys = [p for p, f in zip(pts, frames) if int(f["key_frame"])]
    return pts, keys


# name -> (ffmpeg arguments, fps, audio sample rate, channels, pixel tolerance)
_SPECS = {
    "h264.mp4": (
        lambda: [
            *_colour_and_tone(44100),
            "-c:v",
            "libx264",
            "-g",
            "10",
            "-sc_threshold",
            "0",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "aac",
        ],
        15,
        44100,
        2,
        6,
    ),
    "vp9.webm": (
        lambda: [
            *_colour_and_tone(48000),
            "-c:v",
            "libvpx-vp9",
            "-g",
            "10",
            "-keyint_min",
            "10",
            "-deadline",
            "realtime",
            "-b:v",
            "200k",
            "-pix_fmt",
            "yuv420p",
            "-c:a",
            "libopus",
        ],
        15,
        48000,
        2,
        6,
    ),
    "mpeg4.avi": (
        lambda: [
            *_colour_and_tone(22050),
            "-c:v",
            "mpeg4",
            "-q:v",
            "2",
            "-g",
            "10",
            "-sc_threshold",
            "1000000000",
            "-c:a",
            "pcm_s16le",
        ],
        15,
        22050,
        2,
        6,
    ),
    "mjpeg.mov": (
        lambda: ["-f", "lavfi", "-i", _colour_source(15, 2), "-c:v", "mjpeg", "-q:v", "2"],
        15,
        None,
        0,
        6,
    ),
    # Variable frame rate: ten frames 50 ms apart, then ten 200 ms apart (ticks of 1 ms).
    "vfr.mkv": (
        lambda: [
            "-f",
            "lavfi",
            "-i",
            _colour_source(100, 0.2),
            "-vf",
            "settb=1/1000,setpts='if(lt(N,10),N*50,500+(N-10)*200)'",
            "-fps_mode",
            "passthrough",
            "-c:v",
            "libx264",
            "-g",
            "5",
            "-sc_threshold",
            "0",
            "-pix_fmt",
            "yuv420p",
        ],
        None,
        None,
        0,
        6,
    ),
    "one.mp4": (
        lambda: [
            "-f",
            "lavfi",
            "-i",
            _colour_source(15, 2),
            "-frames:v",
            "1",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
        ],
        15,
        None,
        0,
        6,
    ),
}


@pytest.fixture(scope="session")
def media(tmp_path_factory):
    need_ffmpeg()
    root = tmp_path_factory.mktemp("videoio")
    out = {}
    for name, (args, fps, sr, channels, tol) in _SPECS.items():
        path = str(root / name)
        run_ffmpeg([*args(), path])
        pts, keys = _probe_frames(path)
        out[name] = Media(path, pts, keys, fps, sr, channels, tol)
    return out


VIDEO_FILES = list(_SPECS)
AUDIO_FILES = [n for n, spec in _SPECS.items() if spec[2] is not None]


@pytest.fixture(scope="session")
def tv_video():
    """torchvision with its FFmpeg video_reader backend, or skip."""
    import os

    os.environ.setdefault("GLOG_minloglevel", "2")
    torchvision = pytest.importorskip("torchvision")
    try:
        from torchvision.io import _video_opt

        if not _video_opt._HAS_VIDEO_OPT:
            raise ImportError
        torchvision.set_video_backend("video_reader")
    except Exception:
        pytest.skip("torchvision was built without the video_reader backend")
    return torchvision
