"""Exact seeks on textured, moving video with B-frames: every path a seek can take (decode on
within the GOP, restart from a keyframe, backwards, onto B-frames, variable frame rate) returns
exactly the pixels a sequential decode returns, then continues in order."""

import numpy as np
import pytest

from tensorcore.vision.io import VideoReader
from video_media import ffprobe, need_ffmpeg, run_ffmpeg


def _x264(source, gop, *options):
    """ffmpeg arguments: testsrc2 with `source`'s size, rate and duration, through x264 with the
    default B-pyramid (3 B-frames, the middle one a reference) and a keyframe every `gop` frames."""
    return ["-f", "lavfi", "-i", "testsrc2=" + source, *options, "-c:v", "libx264",
            "-g", str(gop), "-sc_threshold", "0", "-pix_fmt", "yuv420p"]  # fmt: skip


# name -> ffmpeg arguments. testsrc2 has texture and motion everywhere, so a frame decoded from
# a wrong reference differs from the sequential one.
_CLIPS = {
    "bframes.mp4": _x264("size=160x90:rate=25:duration=3", 25),
    # Variable frame rate with B-frames: pts 0, 40, ..., 360 ms, then 100 ms apart (1 ms ticks).
    "vfr.mkv": _x264(
        "size=160x90:rate=100:duration=0.4",
        12,
        "-vf",
        "settb=1/1000,setpts='if(lt(N,10),N*40,400+(N-10)*100)'",
        "-fps_mode",
        "passthrough",
    ),
    # The same B-pyramid in MPEG-TS: H.264 with start codes (Annex B) instead of length prefixes.
    "bframes.ts": _x264("size=160x90:rate=25:duration=3", 25),
    # Interlaced H.264 (x264's MBAFF): non-reference pictures go to the decoder to skip.
    "interlaced.mp4": _x264(
        "size=160x96:rate=25:duration=2", 25, "-flags", "+ildct+ilme", "-x264opts", "interlaced=1"
    ),
    # VP9 with hidden alt-ref frames (packets that show nothing by themselves).
    "altref.webm": [
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=160x90:rate=25:duration=2",
        "-c:v",
        "libvpx-vp9",
        "-g",
        "20",
        "-auto-alt-ref",
        "1",
        "-lag-in-frames",
        "16",
        "-deadline",
        "good",
        "-cpu-used",
        "8",
        "-b:v",
        "300k",
    ],
}


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    need_ffmpeg()
    root = tmp_path_factory.mktemp("seek_paths")
    out = {}
    for name, args in _CLIPS.items():
        path = str(root / name)
        run_ffmpeg([*args, path])
        probe = ffprobe(path, "frame=pict_type,key_frame")
        frames = list(VideoReader(path))
        assert len(frames) == len(probe["frames"])
        out[name] = {
            "path": path,
            "pts": [f["pts"] for f in frames],
            "pixels": [np.asarray(f["data"].contiguous()) for f in frames],
            "types": [f["pict_type"] for f in probe["frames"]],
            "keys": [i for i, f in enumerate(probe["frames"]) if int(f["key_frame"])],
        }
    return out


def check_seek(reader, clip, t, follow=2):
    """seek(t) gives the first frame with pts >= t, pixel for pixel, then the next ones."""
    pts = clip["pts"]
    first = next((i for i, p in enumerate(pts) if p >= t - 1e-9), len(pts))
    reader.seek(t)
    for i in range(first, min(first + 1 + follow, len(pts))):
        f = next(reader)
        assert f["pts"] == pytest.approx(pts[i], abs=1e-9), (t, i)
        np.testing.assert_array_equal(
            np.asarray(f["data"].contiguous()), clip["pixels"][i], err_msg=f"seek({t}) frame {i}"
        )
    return first


def test_clips_have_the_frame_kinds_under_test(clips):
    assert "B" in clips["bframes.mp4"]["types"] and "B" in clips["vfr.mkv"]["types"]
    assert len(clips["bframes.mp4"]["keys"]) >= 3
    pts = clips["vfr.mkv"]["pts"]
    steps = np.round(np.diff(pts), 6)
    assert set(steps) == {0.04, 0.1}


@pytest.mark.parametrize("name", list(_CLIPS))
def test_forward_within_a_gop_decodes_on(clips, name):
    clip = clips[name]
    pts, keys = clip["pts"], clip["keys"]
    reader = VideoReader(clip["path"])
    # From just after the first keyframe to frames ahead of it in the same GOP: no demuxer seek.
    gop_end = keys[1] if len(keys) > 1 else len(pts)
    check_seek(reader, clip, pts[keys[0] + 1], follow=0)
    seeks = reader._c._demuxer_seek_count()
    last = keys[0] + 1
    for i in (keys[0] + 3, keys[0] + 6, (keys[0] + gop_end) // 2, gop_end - 1):
        if i <= last:
            continue
        check_seek(reader, clip, pts[i], follow=1)
        last = i + 1
        if i + 3 < gop_end:  # between two frames: the later one
            check_seek(reader, clip, (pts[i + 2] + pts[i + 3]) / 2, follow=0)
            last = i + 3
    assert reader._c._demuxer_seek_count() == seeks


@pytest.mark.parametrize("name", list(_CLIPS))
def test_forward_past_a_keyframe_restarts_there(clips, name):
    clip = clips[name]
    pts, keys = clip["pts"], clip["keys"]
    if len(keys) < 3:
        pytest.skip("needs three GOPs")
    reader = VideoReader(clip["path"])
    check_seek(reader, clip, pts[1], follow=0)
    seeks = reader._c._demuxer_seek_count()
    check_seek(reader, clip, pts[keys[2] + 2])
    if name.endswith(".ts"):
        # MPEG-TS seeks by decode timestamp without an index and can land past the keyframe;
        # the reader then backs off and seeks again.
        assert reader._c._demuxer_seek_count() >= seeks + 1
    else:
        assert reader._c._demuxer_seek_count() == seeks + 1


@pytest.mark.parametrize("name", list(_CLIPS))
def test_backward_seeks(clips, name):
    clip = clips[name]
    pts = clip["pts"]
    reader = VideoReader(clip["path"])
    for i in range(len(pts) - 1, -1, -3):
        check_seek(reader, clip, pts[i])
    # Back to the frame just returned, and to one frame before it.
    check_seek(reader, clip, pts[5], follow=0)
    check_seek(reader, clip, pts[5], follow=0)
    check_seek(reader, clip, pts[4], follow=0)


@pytest.mark.parametrize("num_threads", [1, 2])
def test_seek_onto_every_b_frame(clips, num_threads):
    for name in ("bframes.mp4", "bframes.ts", "vfr.mkv"):
        clip = clips[name]
        reader = VideoReader(clip["path"], num_threads=num_threads)
        b_frames = [i for i, k in enumerate(clip["types"]) if k == "B"]
        assert b_frames
        for i in b_frames:
            check_seek(reader, clip, clip["pts"][i], follow=1)
        # Non-reference pictures before the targets were left out, not decoded (H.264 only).
        assert reader._c._disposed_packet_count() > 0


@pytest.mark.parametrize("num_threads", [1, 2, 0])
@pytest.mark.parametrize("name", list(_CLIPS))
def test_random_seek_sequence_is_exact(clips, name, num_threads):
    clip = clips[name]
    pts = clip["pts"]
    reader = VideoReader(clip["path"], num_threads=num_threads)
    rng = np.random.default_rng(7)
    times = list(rng.uniform(-0.1, pts[-1] + 0.1, size=40))
    # Runs of forward seeks within a GOP mixed with jumps either way.
    times += sorted(rng.uniform(0, pts[-1], size=15))
    for t in times:
        first = check_seek(reader, clip, float(t), follow=1)
        if first == len(pts):
            assert list(reader) == []


def test_forward_seek_then_reading_to_the_end(clips):
    clip = clips["bframes.mp4"]
    reader = VideoReader(clip["path"])
    check_seek(reader, clip, clip["pts"][2], follow=0)
    reader.seek(clip["pts"][9])
    rest = list(reader)
    assert [f["pts"] for f in rest] == pytest.approx(clip["pts"][9:], abs=1e-9)
    for f, expected in zip(rest, clip["pixels"][9:]):
        np.testing.assert_array_equal(np.asarray(f["data"].contiguous()), expected)
    # At the end the reader still seeks.
    check_seek(reader, clip, clip["pts"][3])


def test_only_progressive_h264_packets_are_left_out(clips):
    """Left out only where safe: progressive H.264; interlaced H.264 and VP9 use the decoder's
    own skip (field pictures may pair a reference and a non-reference field)."""
    for name, expect_disposed in (
        ("bframes.mp4", True),
        ("interlaced.mp4", False),
        ("altref.webm", False),
    ):
        clip = clips[name]
        reader = VideoReader(clip["path"])
        for i in range(len(clip["pts"]) - 1, 0, -7):
            check_seek(reader, clip, clip["pts"][i], follow=0)
        assert (reader._c._disposed_packet_count() > 0) == expect_disposed, name


@pytest.mark.parametrize("name", ["bframes.mp4", "bframes.ts"])
def test_rewinds_return_every_frame(clips, name):
    """Back to the start (seek before it, set_current_stream) gives every frame again. MPEG-TS
    holds the first keyframe's packet before the first pts: a seek to the start itself would
    land after it and lose the first GOP."""
    clip = clips[name]
    reader = VideoReader(clip["path"])
    for _ in range(10):
        next(reader)
    for rewind in (
        lambda: reader.seek(clip["pts"][0]),
        lambda: reader.seek(-5.0),
        lambda: reader.set_current_stream("video"),
    ):
        rewind()
        frames = list(reader)
        assert [f["pts"] for f in frames] == pytest.approx(clip["pts"], abs=1e-9)
        for f, expected in zip(frames[:30], clip["pixels"][:30]):
            np.testing.assert_array_equal(np.asarray(f["data"].contiguous()), expected)
