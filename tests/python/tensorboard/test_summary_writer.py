"""SummaryWriter: every kind of value is written, then read back with TensorBoard's own
EventAccumulator (and the plugin protos), and checked against what was logged."""

import glob
import io
import os
import wave

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import (  # noqa: E402
    DEFAULT_SIZE_GUIDANCE,
    EventAccumulator,
)
from tensorboard.plugins.hparams import plugin_data_pb2 as hparams_data  # noqa: E402
from tensorboard.plugins.pr_curve import plugin_data_pb2 as pr_data  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

import tensorcore as tc  # noqa: E402
from tensorcore.utils.tensorboard import SummaryWriter  # noqa: E402
from tensorcore.utils.tensorboard.summary import compute_pr_curve  # noqa: E402

GUIDANCE = dict(DEFAULT_SIZE_GUIDANCE, images=0, audio=0, histograms=0, scalars=0, tensors=0)


def load(logdir):
    acc = EventAccumulator(str(logdir), size_guidance=GUIDANCE)
    acc.Reload()
    return acc


def decode_png(data):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)))


def test_scalars_steps_and_walltime(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), step, walltime=1000.0 + step)
        w.add_scalar("acc", tc.tensor(0.75), global_step=tc.tensor(3))
        w.add_scalar("new", 2.5, 1, new_style=True)
        w.add_scalar("double", 1.0 / 3.0, 1, new_style=True, double_precision=True)
    acc = load(tmp_path)
    loss = acc.Scalars("loss")
    assert [e.step for e in loss] == [0, 1, 2, 3, 4]
    np.testing.assert_allclose([e.value for e in loss], [1, 0.5, 1 / 3, 0.25, 0.2], rtol=1e-6)
    assert [e.wall_time for e in loss] == [1000.0, 1001.0, 1002.0, 1003.0, 1004.0]
    assert acc.Scalars("acc")[0].step == 3 and acc.Scalars("acc")[0].value == 0.75
    new = acc.Tensors("new")[0]
    assert tensor_util.make_ndarray(new.tensor_proto).item() == 2.5
    assert acc.SummaryMetadata("new").plugin_data.plugin_name == "scalars"
    double = tensor_util.make_ndarray(acc.Tensors("double")[0].tensor_proto)
    assert double.dtype == np.float64 and double.item() == 1.0 / 3.0


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run", {"train": step, "val": 10 * step}, step)
    train = load(tmp_path / "run_train").Scalars("run")
    val = load(tmp_path / "run_val").Scalars("run")
    assert [e.value for e in train] == [0, 1, 2]
    assert [e.value for e in val] == [0, 10, 20]


def test_histogram_counts_match_numpy(tmp_path):
    rng = np.random.default_rng(0)
    values = rng.normal(size=1000).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", tc.tensor(values), 0, bins=20)
        w.add_histogram("tf", values, 1)  # TensorFlow's exponential buckets
        w.add_histogram("few", values, 2, bins=100, max_bins=10)
    acc = load(tmp_path)
    h = acc.Histograms("w")[0].histogram_value
    counts, edges = np.histogram(values.astype(np.float64), bins=20)
    assert h.num == 1000 and sum(h.bucket) == 1000
    np.testing.assert_allclose(h.bucket[-len(counts) :], counts[-len(h.bucket) :])
    np.testing.assert_allclose(h.bucket_limit[-1], edges[-1])
    np.testing.assert_allclose(h.min, values.min(), rtol=1e-6)
    np.testing.assert_allclose(h.max, values.max(), rtol=1e-6)
    np.testing.assert_allclose(h.sum, values.astype(np.float64).sum(), rtol=1e-6)
    np.testing.assert_allclose(h.sum_squares, (values.astype(np.float64) ** 2).sum(), rtol=1e-6)
    tf = acc.Histograms("tf")[0].histogram_value
    assert sum(tf.bucket) == 1000
    assert all(b > a for a, b in zip(tf.bucket_limit, tf.bucket_limit[1:]))
    few = acc.Histograms("few")[0].histogram_value
    assert len(few.bucket) <= 10 and sum(few.bucket) == 1000


def test_histogram_bad_input(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(ValueError, match="empty"):
            w.add_histogram("x", np.zeros(0))
        with pytest.raises(ValueError, match="NaN"):
            w.add_histogram("x", np.array([1.0, np.nan]))


def test_images_round_trip(tmp_path):
    chw = np.random.default_rng(1).random((3, 8, 10)).astype(np.float32)
    batch = np.random.default_rng(2).integers(0, 256, (5, 1, 4, 6), dtype=np.uint8)
    with SummaryWriter(tmp_path) as w:
        w.add_image("chw", tc.tensor(chw), 0)
        w.add_image("hwc", chw.transpose(1, 2, 0), 0, dataformats="HWC")
        w.add_image("gray", chw[0], 0, dataformats="HW")
        w.add_images("grid", batch, 0)
        w.add_image_with_boxes("boxes", chw, np.array([[1, 1, 6, 5]]), 0, labels=["cat"])
        with pytest.raises(ValueError, match="dataformats"):
            w.add_image("bad", chw, 0, dataformats="CHX")
        with pytest.raises(ValueError, match="dimensions"):
            w.add_image("bad", chw, 0, dataformats="HW")
    acc = load(tmp_path)
    expected = np.clip(chw.transpose(1, 2, 0) * 255 + 0.5, 0, 255).astype(np.uint8)
    for tag in ("chw", "hwc"):
        ev = acc.Images(tag)[0]
        assert (ev.height, ev.width) == (8, 10)
        np.testing.assert_array_equal(decode_png(ev.encoded_image_string), expected)
    gray = decode_png(acc.Images("gray")[0].encoded_image_string)
    np.testing.assert_array_equal(gray, expected[:, :, 0])
    grid = decode_png(acc.Images("grid")[0].encoded_image_string)
    # 5 images tile into 3 columns x 2 rows; grayscale is widened to RGB.
    assert grid.shape == (8, 18, 3)
    np.testing.assert_array_equal(grid[4:8, 6:12, 1], batch[4, 0])
    np.testing.assert_array_equal(grid[4:8, 12:18], 0)
    boxed = decode_png(acc.Images("boxes")[0].encoded_image_string)
    assert tuple(boxed[1, 3]) == (255, 0, 0)  # on the box's top edge


def test_audio_round_trip(tmp_path):
    sr = 8000
    t = np.arange(800) / sr
    snd = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_audio("tone", tc.tensor(snd), 0, sample_rate=sr)
        w.add_audio("stereo", np.stack([snd, -snd]), 0, sample_rate=sr)
        with pytest.raises(ValueError, match="sample_rate"):
            w.add_audio("bad", snd, 0, sample_rate=0)
    acc = load(tmp_path)
    ev = acc.Audio("tone")[0]
    assert ev.sample_rate == sr and ev.length_frames == 800 and ev.content_type == "audio/wav"
    with wave.open(io.BytesIO(ev.encoded_audio_string)) as wav:
        assert wav.getframerate() == sr and wav.getnchannels() == 1
        pcm = np.frombuffer(wav.readframes(800), "<i2")
    np.testing.assert_allclose(pcm / 32767.0, snd, atol=1e-4)
    with wave.open(io.BytesIO(acc.Audio("stereo")[0].encoded_audio_string)) as wav:
        assert wav.getnchannels() == 2
        frames = np.frombuffer(wav.readframes(800), "<i2").reshape(800, 2)
    np.testing.assert_array_equal(frames[:, 0], -frames[:, 1])


def test_text(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "hello **tensorboard**", 7)
    acc = load(tmp_path)
    ev = acc.Tensors("notes/text_summary")[0]
    assert ev.step == 7
    assert tensor_util.make_ndarray(ev.tensor_proto)[0] == b"hello **tensorboard**"
    assert acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


def naive_pr(labels, preds, n):
    rows = []
    for i in range(n):
        thr = i / (n - 1)
        # A prediction reaches threshold i when its bucket floor(p * (n-1)) is >= i.
        hit = np.floor(preds * (n - 1)) >= i
        tp = np.sum(hit & labels)
        fp = np.sum(hit & ~labels)
        fn = np.sum(~hit & labels)
        tn = np.sum(~hit & ~labels)
        rows.append([tp, fp, tn, fn, tp / max(1e-7, tp + fp), tp / max(1e-7, tp + fn), thr])
    return np.array(rows).T


def test_pr_curve_matches_a_naive_count(tmp_path):
    rng = np.random.default_rng(3)
    labels = rng.random(200) < 0.4
    preds = np.clip(labels * 0.3 + rng.random(200) * 0.7, 0, 1)
    with SummaryWriter(tmp_path) as w:
        w.add_pr_curve("pr", tc.tensor(labels), tc.tensor(preds), 0, num_thresholds=11)
        with pytest.raises(ValueError, match=r"\[0, 1\]"):
            w.add_pr_curve("bad", labels, preds + 1, 0)
    acc = load(tmp_path)
    data = tensor_util.make_ndarray(acc.Tensors("pr")[0].tensor_proto)
    meta = pr_data.PrCurvePluginData.FromString(acc.SummaryMetadata("pr").plugin_data.content)
    assert meta.num_thresholds == 11 and data.shape == (6, 11)
    np.testing.assert_allclose(data, naive_pr(labels, preds, 11)[:6], rtol=1e-6)
    np.testing.assert_allclose(compute_pr_curve(labels, preds, 11), data)


def test_hparams(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_hparams(
            {"lr": 0.1, "bsize": 32, "opt": "sgd", "nesterov": True},
            {"hparam/accuracy": 0.9},
            hparam_domain_discrete={"opt": ["sgd", "adam"]},
            run_name="trial",
        )
        with pytest.raises(ValueError, match="hyperparameter 'bad'"):
            w.add_hparams({"bad": object()}, {})
    acc = load(tmp_path / "trial")
    assert acc.Scalars("hparam/accuracy")[0].value == pytest.approx(0.9)
    tags = acc.Tags()["tensors"]
    assert {"_hparams_/experiment", "_hparams_/session_start_info"} <= set(tags)
    content = acc.SummaryMetadata("_hparams_/session_start_info").plugin_data.content
    start = hparams_data.HParamsPluginData.FromString(content).session_start_info
    assert start.hparams["lr"].number_value == 0.1
    assert start.hparams["opt"].string_value == "sgd"
    assert start.hparams["nesterov"].bool_value is True
    exp = hparams_data.HParamsPluginData.FromString(
        acc.SummaryMetadata("_hparams_/experiment").plugin_data.content
    ).experiment
    infos = {i.name: i for i in exp.hparam_infos}
    assert [v.string_value for v in infos["opt"].domain_discrete.values] == ["sgd", "adam"]
    assert [m.name.tag for m in exp.metric_infos] == ["hparam/accuracy"]


def test_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [0, 1])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 0)
    ev = load(tmp_path).Images("fig")[0]
    assert (ev.width, ev.height) == (100, 50)
    assert decode_png(ev.encoded_image_string).shape == (50, 100, 4)


def test_video_is_an_animated_gif(tmp_path):
    from PIL import Image

    vid = np.zeros((1, 4, 3, 6, 8), np.float32)
    for t in range(4):
        vid[0, t, 0, :, : 2 * (t + 1)] = 1.0  # a red bar that grows frame by frame
    with SummaryWriter(tmp_path) as w:
        w.add_video("clip", vid, 0, fps=10)
    ev = load(tmp_path).Images("clip")[0]
    gif = Image.open(io.BytesIO(ev.encoded_image_string))
    assert gif.format == "GIF" and gif.n_frames == 4
    gif.seek(2)
    frame = np.asarray(gif.convert("RGB"))
    assert frame[0, 5, 0] > 200 and frame[0, 7, 0] < 50


def test_custom_scalars_mesh_and_embedding(tmp_path):
    from tensorboard.plugins.custom_scalar import layout_pb2

    with SummaryWriter(tmp_path) as w:
        w.add_custom_scalars({"Loss": {"train vs val": ["Multiline", ["loss/train", "loss/val"]]}})
        verts = np.random.default_rng(4).random((1, 4, 3)).astype(np.float32)
        faces = np.array([[[0, 1, 2], [1, 2, 3]]], np.int32)
        w.add_mesh("tetra", verts, faces=faces, global_step=0)
        w.add_embedding(
            np.eye(3, 2), metadata=["a", "b", "c"], label_img=np.zeros((3, 1, 4, 4)), tag="emb"
        )
    acc = load(tmp_path)
    layout = layout_pb2.Layout.FromString(
        tensor_util.make_ndarray(acc.Tensors("custom_scalars__config__")[0].tensor_proto).item()
    )
    assert list(layout.category[0].chart[0].multiline.tag) == ["loss/train", "loss/val"]
    mesh_tags = [t for t in acc.Tags()["tensors"] if t.startswith("tetra")]
    assert len(mesh_tags) == 2
    vertex_tag = next(t for t in mesh_tags if "VERTEX" in t)
    np.testing.assert_array_equal(
        tensor_util.make_ndarray(acc.Tensors(vertex_tag)[0].tensor_proto), verts
    )
    tsv = np.loadtxt(tmp_path / "00000" / "emb" / "tensors.tsv")
    np.testing.assert_array_equal(tsv, np.eye(3, 2))
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_path: "00000/emb/tensors.tsv"' in config and "sprite" in config


def test_purge_step_and_reopen_after_close(tmp_path):
    w = SummaryWriter(tmp_path)
    for step in range(10):
        w.add_scalar("x", step, step)
    w.close()
    # A restart from step 5: TensorBoard drops the old events at steps >= 5.
    w = SummaryWriter(tmp_path, purge_step=5, filename_suffix=".second")
    for step in range(5, 8):
        w.add_scalar("x", 100 + step, step)
    w.close()
    assert len(glob.glob(os.path.join(tmp_path, "events.out.tfevents.*"))) == 2
    events = load(tmp_path).Scalars("x")
    assert [e.step for e in events] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert [e.value for e in events][5:] == [105, 106, 107]


def test_flush_makes_events_visible_before_close(tmp_path):
    w = SummaryWriter(tmp_path, flush_secs=3600)
    w.add_scalar("x", 1.0, 0)
    w.flush()
    assert load(tmp_path).Scalars("x")[0].value == 1.0
    w.close()


def test_bad_input_errors(tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(ValueError, match="one-element"):
            w.add_scalar("x", np.ones(3))
        with pytest.raises(TypeError, match="tag"):
            w.add_scalar("", 1.0)
        with pytest.raises(TypeError, match="str"):
            w.add_text("t", 3)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError, match="log folder"):
        SummaryWriter(blocker / "sub")
