"""Frame rates of variable-frame-rate files (issue 24.5): get_metadata()'s ``fps`` is
torchvision's (the nominal rate), ``nominal_fps`` and the measured ``average_fps`` are both
exposed; read_video's ``video_fps`` is FFmpeg's average rate, as torchvision's read_video gives.
"""

import shutil
import subprocess

import pytest

from tensorcore.vision.io import VideoReader, read_video
from video_media import ffprobe


def _average_from_ffprobe(path):
    out = ffprobe(path, "packet=pts_time", "csv=p=0")
    pts = sorted(float(x) for x in out.split() if x and x != "N/A")
    return (len(pts) - 1) / (pts[-1] - pts[0])


@pytest.fixture(scope="module")
def vfr_mp4(media, tmp_path_factory):
    if shutil.which("ffmpeg") is None:
        pytest.skip("the ffmpeg CLI is needed")
    path = str(tmp_path_factory.mktemp("vfr") / "vfr.mp4")
    subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", media["vfr.mkv"].path,
         "-c", "copy", path],
        check=True,
    )  # fmt: skip
    return path


def test_vfr_rates(media, vfr_mp4):
    # vfr.mkv: ten frames 50 ms apart, then ten 200 ms apart: 19 intervals over 2.3 s.
    for path in (media["vfr.mkv"].path, vfr_mp4):
        meta = VideoReader(path).get_metadata()["video"]
        assert meta["average_fps"][0] == pytest.approx(19 / 2.3, rel=1e-6)
        assert meta["average_fps"][0] == pytest.approx(_average_from_ffprobe(path), rel=1e-6)
        assert meta["fps"] == meta["nominal_fps"]
        # The nominal rate is not the average here: the container's declared rate (MKV: the
        # encoder's 100 fps) or the finest rate the timestamps fit (MP4: 20 fps, 50 ms).
        assert meta["nominal_fps"][0] == pytest.approx(100.0 if path.endswith("mkv") else 20.0)


def test_constant_rate_files_agree(media):
    for name in ("h264.mp4", "vp9.webm", "mpeg4.avi"):
        meta = VideoReader(media[name].path).get_metadata()["video"]
        assert meta["fps"][0] == pytest.approx(15.0)
        assert meta["average_fps"][0] == pytest.approx(15.0, rel=1e-3)


def test_average_does_not_move_the_reader(media):
    reader = VideoReader(media["h264.mp4"].path)
    first = next(reader)["pts"]
    reader.get_metadata()
    assert next(reader)["pts"] > first
    one = VideoReader(media["one.mp4"].path).get_metadata()["video"]
    assert one["average_fps"] == [None]  # a single frame has no interval


def test_rates_match_torchvision(media, vfr_mp4, tv_video):
    # torchvision's VideoReader reports the nominal rate; its read_video (pyav backend: the
    # stream's average_rate) FFmpeg's average rate, which is our read_video's video_fps.
    for path in (media["vfr.mkv"].path, vfr_mp4, media["h264.mp4"].path):
        ref = tv_video.io.VideoReader(path, "video").get_metadata()["video"]["fps"]
        assert VideoReader(path).get_metadata()["video"]["fps"] == pytest.approx(ref)
    fps = next(s["fps"] for s in VideoReader(vfr_mp4).streams() if s["type"] == "video")
    assert read_video(vfr_mp4, 0, 0.2)[2]["video_fps"] == pytest.approx(fps)
    assert fps == pytest.approx(20 / 1.93, rel=1e-3)  # MP4: frame count over duration
