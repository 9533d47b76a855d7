"""Video decoding with torchvision.io's names: VideoReader, read_video, read_video_timestamps.

Backed by tc::io::VideoReader (FFmpeg); frames are decoded with the GIL released.
"""

import math
from fractions import Fraction

from ..._C import _videoio

__all__ = ["VideoReader", "read_video", "read_video_timestamps"]


class VideoReader:
    """Frame-by-frame reader for one stream of a video file or in-memory bytes.

    ``VideoReader(path_or_bytes, stream="video", num_threads=0)`` is an iterator yielding
    ``{"data": tensor, "pts": seconds}``: video frames are 3 x H x W uint8 RGB, audio frames
    N x C float32 (samples x channels, torchvision's layout, so ``torch.cat`` along dim 0 gives
    the whole track). ``stream`` is "video", "audio", "video:N" or "audio:N"; ``num_threads`` is
    the decoder's thread count (0: FFmpeg picks one per core). The source may be a path, bytes,
    bytearray, memoryview, or a 1-D uint8 tensor of encoded bytes.

    Keyword-only options (not in torchvision): ``audio_channels_first=True`` gives C x N audio
    frames (this library's layout before issue 24); ``audio_native_dtype=True`` keeps the stream's
    sample dtype (int16 for 16-bit PCM, ...) instead of float32 in [-1, 1].
    """

    def __init__(
        self,
        path,
        stream="video",
        num_threads=0,
        *,
        audio_channels_first=False,
        audio_native_dtype=False,
    ):
        self._c = _videoio.VideoReader(
            path, stream, int(num_threads), bool(audio_channels_first), bool(audio_native_dtype)
        )

    def __iter__(self):
        return self

    def __next__(self):
        frame = self._c.next()
        if frame is None:
            raise StopIteration
        return {"data": frame[0], "pts": frame[1]}

    def seek(self, time_s, keyframes_only=False):
        """Makes the next frame the first one whose pts >= time_s (audio: samples from time_s).

        With ``keyframes_only=True`` jumps to the keyframe nearest time_s instead (faster, not
        exact). Past the end of the stream the iterator is exhausted. Returns self.
        """
        self._c.seek(float(time_s), bool(keyframes_only))
        return self

    def set_current_stream(self, stream):
        """Switches to another stream ("audio", "video:1", ...), rewound to its start."""
        self._c.set_current_stream(stream)
        return True

    @property
    def current_stream(self):
        return self._c.current_stream

    def get_metadata(self):
        """``{"video": {"duration": [...], "fps": [...], "nominal_fps": [...],
        "average_fps": [...]}, "audio": {"duration": [...], "framerate": [...],
        "sample_rate": [...]}}``, one entry per stream of each type.

        ``fps`` is what torchvision's VideoReader reports: the nominal rate (FFmpeg's
        ``av_guess_frame_rate``: the container's declared rate, or the finest rate its
        timestamps fit), also given as ``nominal_fps``. ``average_fps`` is the measured average,
        (frames - 1) / (last pts - first pts), from one demux pass over the file (no decoding;
        cached). For constant-rate files they agree; for variable-frame-rate files only
        ``average_fps`` says how many frames a second there are.
        """
        meta = {
            "video": {"duration": [], "fps": [], "nominal_fps": [], "average_fps": []},
            "audio": {"duration": [], "framerate": [], "sample_rate": []},
        }
        for s in self._c.streams():
            if s["type"] == "video":
                meta["video"]["duration"].append(s["duration"])
                meta["video"]["fps"].append(s["nominal_fps"])
                meta["video"]["nominal_fps"].append(s["nominal_fps"])
                avg = self._c.average_frame_rate(s["stream_index"])
                meta["video"]["average_fps"].append(None if math.isnan(avg) else avg)
            elif s["type"] == "audio":
                meta["audio"]["duration"].append(s["duration"])
                meta["audio"]["framerate"].append(s["sample_rate"])
                meta["audio"]["sample_rate"].append(s["sample_rate"])
        return meta

    def streams(self):
        """Every stream of the container as a dict (type, codec, time_base, duration, ...)."""
        return self._c.streams()


def _check_pts_unit(pts_unit):
    if pts_unit not in ("sec", "pts"):
        raise ValueError(f"pts_unit must be 'sec' or 'pts', but got {pts_unit!r}")


def read_video(
    filename,
    start_pts=0,
    end_pts=None,
    pts_unit="sec",
    output_format="THWC",
    *,
    preceding_frame=True,
    audio_dtype=None,
):
    """Reads the video frames of [start_pts, end_pts] and the audio of that span.

    Returns ``(video, audio, info)``: video T x H x W x C uint8 (``output_format="TCHW"`` for
    T x C x H x W), audio C x N (the samples whose time lies in [start_pts, end_pts], to the end
    of the audio when end_pts is None), and ``info`` with ``video_fps`` and ``audio_fps`` for the
    streams present. ``pts_unit="pts"`` reads start/end as ticks of the video stream's time base.

    Frames follow torchvision's rule: those whose pts lies in [start_pts, end_pts], plus the last
    frame before start_pts when none lies exactly on it (and start_pts > 0); a start past the
    last frame returns that last frame. ``preceding_frame=False`` gives the strict
    [start_pts, end_pts] rule (torchvision's video_reader backend).

    Audio keeps the stream's sample dtype as torchvision returns it (int16 for 16-bit PCM,
    float32 for AAC/MP3/Opus/Vorbis, ...); ``audio_dtype=tensorcore.float32`` converts every
    format to float32 in [-1, 1].
    """
    _check_pts_unit(pts_unit)
    output_format = output_format.upper()
    if output_format not in ("THWC", "TCHW"):
        raise ValueError(f"output_format should be either 'THWC' or 'TCHW', got {output_format}.")
    native = _check_audio_dtype(audio_dtype)
    end = math.inf if end_pts is None else end_pts
    if end < start_pts:
        raise ValueError(
            f"end_pts should be larger than start_pts, got start_pts={start_pts} and end_pts={end_pts}"
        )
    clip = _videoio.read_video(
        filename,
        float(start_pts),
        float(end),
        preceding_frame=bool(preceding_frame),
        audio_native_dtype=native,
        bounds_in_ticks=pts_unit == "pts",
    )
    video = clip["video"]
    if output_format == "TCHW":
        video = video.permute(0, 3, 1, 2)
    info = {}
    if "video_fps" in clip:
        info["video_fps"] = clip["video_fps"]
    if "audio_fps" in clip:
        info["audio_fps"] = clip["audio_fps"]
    return video, clip["audio"], info


def _check_audio_dtype(audio_dtype):
    """True for the stream's own dtype (None), False for float32."""
    if audio_dtype is None:
        return True
    from ... import float32

    # tensorcore.float32, torch.float32 or the name.
    if audio_dtype == float32 or str(audio_dtype).split(".")[-1] in ("float32", "float"):
        return False
    raise ValueError(f"audio_dtype must be None (the stream's own) or float32, got {audio_dtype!r}")


def read_video_timestamps(filename, pts_unit="sec"):
    """Lists the pts of every video frame: ``(pts, video_fps)``.

    With ``pts_unit="sec"`` the pts are exact ``Fraction`` seconds (as torchvision returns
    them); with ``"pts"`` integer ticks of the video stream's time base.
    """
    _check_pts_unit(pts_unit)
    ticks, (num, den), fps = _videoio.read_video_timestamps(filename)
    if pts_unit == "sec":
        tb = Fraction(num, den)
        return [t * tb for t in ticks], fps
    return ticks, fps
