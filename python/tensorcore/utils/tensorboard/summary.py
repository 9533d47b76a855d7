"""Summary protos for each kind of value, built from the tensorboard package's own protobufs
and plugin metadata helpers (the event-file format is TensorBoard's, not re-encoded here)."""

import io
import wave

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.custom_scalar import metadata as custom_scalar_metadata
from tensorboard.plugins.hparams import api_pb2
from tensorboard.plugins.hparams import metadata as hparams_metadata
from tensorboard.plugins.hparams import plugin_data_pb2 as hparams_plugin_data
from tensorboard.plugins.mesh import metadata as mesh_metadata
from tensorboard.plugins.mesh import plugin_data_pb2 as mesh_plugin_data
from tensorboard.plugins.pr_curve import metadata as pr_curve_metadata
from tensorboard.plugins.scalar import metadata as scalar_metadata
from tensorboard.plugins.text import metadata as text_metadata
from tensorboard.util import tensor_util

from ._convert import make_np, scalar_of, to_hwc


def _check_tag(tag):
    if not isinstance(tag, str) or not tag:
        raise TypeError(f"tensorboard: a tag must be a non-empty str, got {tag!r}")
    return tag


def scalar(tag, value, new_style=False, double_precision=False):
    """A scalar: the classic simple_value, or (new_style) a rank-0 tensor with scalar metadata."""
    _check_tag(tag)
    v = scalar_of(value, f"add_scalar({tag!r})")
    if isinstance(v, complex):
        raise TypeError(f"add_scalar({tag!r}): complex values cannot be plotted")
    v = float(v)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=v)])
    if double_precision:
        tensor = TensorProto(dtype="DT_DOUBLE", double_val=[v], tensor_shape=TensorShapeProto())
    else:
        tensor = TensorProto(dtype="DT_FLOAT", float_val=[v], tensor_shape=TensorShapeProto())
    meta = scalar_metadata.create_summary_metadata(display_name="", description="")
    return Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=meta)])


def default_bins():
    """TensorFlow's histogram buckets: +-1e-12 growing by 10% up to 1e20, and 0."""
    limits = []
    v = 1e-12
    while v < 1e20:
        limits.append(v)
        v *= 1.1
    return [-x for x in reversed(limits)] + [0.0] + limits


def histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002
    _check_tag(tag)
    if len(bucket_limits) != len(bucket_counts):
        raise ValueError(
            f"add_histogram_raw: {len(bucket_limits)} bucket limits but "
            f"{len(bucket_counts)} bucket counts"
        )
    hist = HistogramProto(
        min=float(min),
        max=float(max),
        num=float(num),
        sum=float(sum),
        sum_squares=float(sum_squares),
        bucket_limit=[float(x) for x in bucket_limits],
        bucket=[float(x) for x in bucket_counts],
    )
    return Summary(value=[Summary.Value(tag=tag, histo=hist)])


def histogram(tag, values, bins, max_bins=None):
    """Histogram of `values` with NumPy's `bins` (a count, edges or a method name); empty
    buckets at both ends are dropped and at most `max_bins` buckets are kept (merging)."""
    _check_tag(tag)
    values = make_np(values).astype(np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError(f"add_histogram({tag!r}): the values are empty")
    if not np.isfinite(values).all():
        raise ValueError(f"add_histogram({tag!r}): the values hold NaN or infinity")
    counts, edges = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # Merge neighbouring buckets so at most max_bins remain.
        group = int(np.ceil(len(counts) / max_bins))
        pad = (-len(counts)) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=1)
        edges = np.concatenate([edges[:-1:group], edges[-1:]])
    nonzero = np.nonzero(counts)[0]
    if nonzero.size:
        first, last = nonzero[0], nonzero[-1] + 1
        # Keep one empty bucket to the left so the first filled one has a lower edge.
        first = max(first - 1, 0)
        counts, edges = counts[first:last], edges[first : last + 1]
    return histogram_raw(
        tag,
        values.min(),
        values.max(),
        values.size,
        values.sum(),
        (values * values).sum(),
        edges[1:],
        counts,
    )


def _to_uint8(array):
    if array.dtype == np.uint8:
        return array
    if array.dtype == np.bool_:
        return array.astype(np.uint8) * 255
    # Float images are in [0, 1] (torch's rule); integer ones other than uint8 in [0, 255].
    scale = 255.0 if np.issubdtype(array.dtype, np.floating) else 1.0
    return np.clip(array.astype(np.float64) * scale + 0.5, 0, 255).astype(np.uint8)


def _encode_png(hwc):
    from PIL import Image

    channels = hwc.shape[2]
    if channels == 1:
        img = Image.fromarray(hwc[:, :, 0], "L")
    elif channels == 3:
        img = Image.fromarray(hwc, "RGB")
    elif channels == 4:
        img = Image.fromarray(hwc, "RGBA")
    else:
        raise ValueError(f"an image needs 1, 3 or 4 channels, got {channels}")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def image_hwc(tag, hwc_uint8):
    h, w, c = hwc_uint8.shape
    img = Summary.Image(
        height=h, width=w, colorspace=c, encoded_image_string=_encode_png(hwc_uint8)
    )
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def image(tag, tensor, rescale=1, dataformats="CHW"):
    """One PNG image; `tensor` in dataformats order, float in [0, 1] or uint8."""
    _check_tag(tag)
    hwc = to_hwc(make_np(tensor), dataformats)
    hwc = _to_uint8(hwc)
    if rescale != 1:
        from PIL import Image

        h, w = hwc.shape[:2]
        size = (max(1, int(w * rescale)), max(1, int(h * rescale)))
        resized = Image.fromarray(hwc if hwc.shape[2] != 1 else hwc[:, :, 0]).resize(size)
        hwc = np.asarray(resized).reshape(size[1], size[0], -1)
    return image_hwc(tag, hwc)


def image_boxes(tag, tensor, boxes, rescale=1, dataformats="CHW", labels=None):
    """An image with boxes (N, 4) in (xmin, ymin, xmax, ymax) pixels drawn on it."""
    from PIL import Image, ImageDraw

    _check_tag(tag)
    hwc = _to_uint8(to_hwc(make_np(tensor), dataformats))
    boxes = make_np(boxes).reshape(-1, 4) if make_np(boxes).size else np.zeros((0, 4))
    if labels is not None:
        if isinstance(labels, str):
            labels = [labels]
        if len(labels) != len(boxes):
            raise ValueError(f"add_image_with_boxes: {len(labels)} labels for {len(boxes)} boxes")
    if hwc.shape[2] == 1:
        hwc = np.repeat(hwc, 3, axis=2)
    img = Image.fromarray(hwc[:, :, :3], "RGB")
    draw = ImageDraw.Draw(img)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        draw.rectangle([float(x0), float(y0), float(x1), float(y1)], outline=(255, 0, 0))
        if labels is not None:
            draw.text((float(x0) + 2, float(y0) + 1), str(labels[i]), fill=(255, 0, 0))
    if rescale != 1:
        img = img.resize((max(1, int(img.width * rescale)), max(1, int(img.height * rescale))))
    return image_hwc(tag, np.asarray(img))


def figure_to_hwc(figure):
    """Renders a matplotlib figure into an RGBA uint8 array."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def video(tag, tensor, fps=4):
    """An animated GIF from (N, T, C, H, W) frames (N clips are tiled side by side)."""
    from PIL import Image

    _check_tag(tag)
    arr = make_np(tensor)
    if arr.ndim != 5:
        raise ValueError(f"add_video({tag!r}): expected (N, T, C, H, W), got shape {arr.shape}")
    arr = _to_uint8(arr)
    frames = []
    for t in range(arr.shape[1]):
        hwc = _make_rgb(to_hwc(arr[:, t], "NCHW"))
        frames.append(Image.fromarray(hwc, "RGB"))
    buf = io.BytesIO()
    frames[0].save(
        buf,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=max(1, int(round(1000.0 / fps))),
        loop=0,
    )
    h, w = frames[0].height, frames[0].width
    img = Summary.Image(height=h, width=w, colorspace=3, encoded_image_string=buf.getvalue())
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def _make_rgb(hwc):
    return hwc[:, :, :3] if hwc.shape[2] >= 3 else np.repeat(hwc, 3, axis=2)


def audio(tag, tensor, sample_rate=44100):
    """16-bit PCM WAV from samples in [-1, 1]: (L,), (1, L) or (channels, L)."""
    _check_tag(tag)
    arr = make_np(tensor).astype(np.float64)
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2:
        raise ValueError(f"add_audio({tag!r}): expected (L,) or (C, L) samples, got {arr.shape}")
    if int(sample_rate) <= 0:
        raise ValueError(f"add_audio({tag!r}): sample_rate must be positive, got {sample_rate}")
    channels, length = arr.shape
    pcm = (np.clip(arr, -1.0, 1.0) * 32767.0).round().astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(2)
        wav.setframerate(int(sample_rate))
        wav.writeframes(pcm.T.tobytes())
    snd = Summary.Audio(
        sample_rate=float(sample_rate),
        num_channels=channels,
        length_frames=length,
        encoded_audio_string=buf.getvalue(),
        content_type="audio/wav",
    )
    return Summary(value=[Summary.Value(tag=tag, audio=snd)])


def _string_tensor(strings, shape):
    return TensorProto(
        dtype="DT_STRING",
        string_val=[s if isinstance(s, bytes) else s.encode("utf-8") for s in strings],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in shape]),
    )


def text(tag, text_string):
    _check_tag(tag)
    if not isinstance(text_string, str):
        raise TypeError(f"add_text({tag!r}): text_string must be a str, got {type(text_string)}")
    meta = text_metadata.create_summary_metadata(display_name="", description="")
    tensor = _string_tensor([text_string], [1])
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)])


def compute_pr_curve(labels, predictions, num_thresholds=127, weights=None):
    """[tp, fp, tn, fn, precision, recall] at thresholds i / (num_thresholds - 1): a
    prediction counts as positive at every threshold up to its bucket (TensorBoard's rule)."""
    labels = make_np(labels).reshape(-1)
    predictions = make_np(predictions).astype(np.float64).reshape(-1)
    if labels.shape != predictions.shape:
        raise ValueError(f"add_pr_curve: {labels.size} labels but {predictions.size} predictions")
    if predictions.size and (predictions.min() < 0 or predictions.max() > 1):
        raise ValueError("add_pr_curve: predictions must lie in [0, 1]")
    if num_thresholds < 2:
        raise ValueError(f"add_pr_curve: num_thresholds must be >= 2, got {num_thresholds}")
    weights = np.ones_like(predictions) if weights is None else make_np(weights).astype(np.float64)
    weights = np.broadcast_to(weights.reshape(-1) if weights.size > 1 else weights, labels.shape)
    positive = labels.astype(bool)
    buckets = np.floor(predictions * (num_thresholds - 1)).astype(np.int64)
    tp_per_bucket = np.bincount(buckets, weights=weights * positive, minlength=num_thresholds)
    fp_per_bucket = np.bincount(buckets, weights=weights * ~positive, minlength=num_thresholds)
    tp = np.cumsum(tp_per_bucket[::-1])[::-1]
    fp = np.cumsum(fp_per_bucket[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack([tp, fp, tn, fn, precision, recall]).astype(np.float32)


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127):
    _check_tag(tag)
    data = np.stack(
        [make_np(x).astype(np.float32).reshape(-1) for x in (tp, fp, tn, fn)]
        + [make_np(x).astype(np.float32).reshape(-1) for x in (precision, recall)]
    )
    if data.shape[1] != num_thresholds:
        raise ValueError(
            f"add_pr_curve_raw: {data.shape[1]} values per row but num_thresholds={num_thresholds}"
        )
    return _pr_summary(tag, data, num_thresholds)


def _pr_summary(tag, data, num_thresholds):
    meta = pr_curve_metadata.create_summary_metadata(
        display_name=tag, description="", num_thresholds=num_thresholds
    )
    tensor = tensor_util.make_tensor_proto(data.astype(np.float32), dtype="float32")
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=tensor)])


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    _check_tag(tag)
    num_thresholds = min(int(num_thresholds), 127)  # TensorBoard's plugin shows at most 127
    data = compute_pr_curve(labels, predictions, num_thresholds, weights)
    return _pr_summary(tag, data, num_thresholds)


def _hparam_value(name, v):
    """A google.protobuf.Value for one hyperparameter (numbers, str, bool, 1-element tensors)."""
    if isinstance(v, bool):
        return struct_pb2.Value(bool_value=v), api_pb2.DATA_TYPE_BOOL
    if isinstance(v, str):
        return struct_pb2.Value(string_value=v), api_pb2.DATA_TYPE_STRING
    if isinstance(v, (int, float, np.integer, np.floating)):
        return struct_pb2.Value(number_value=float(v)), api_pb2.DATA_TYPE_FLOAT64
    try:
        number = scalar_of(v, f"add_hparams: hyperparameter {name!r}")
    except TypeError:
        raise ValueError(
            f"add_hparams: hyperparameter {name!r} has type {type(v).__name__}; use int, "
            "float, str, bool or a one-element tensor"
        ) from None
    return struct_pb2.Value(number_value=float(number)), api_pb2.DATA_TYPE_FLOAT64


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The three hparams plugin summaries: experiment, session start, session end."""
    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("add_hparams: hparam_dict and metric_dict must be dicts")
    hparam_domain_discrete = hparam_domain_discrete or {}
    for name, domain in hparam_domain_discrete.items():
        if name not in hparam_dict:
            raise ValueError(f"add_hparams: hparam_domain_discrete names {name!r}, not an hparam")
        if not isinstance(domain, (list, tuple)) or not domain:
            raise TypeError(f"add_hparams: the domain of {name!r} must be a non-empty list")
    infos, start = [], hparams_plugin_data.SessionStartInfo()
    for name, v in hparam_dict.items():
        if v is None:
            continue
        value, dtype = _hparam_value(name, v)
        start.hparams[name].CopyFrom(value)
        info = api_pb2.HParamInfo(name=name, type=dtype)
        if name in hparam_domain_discrete:
            values = [_hparam_value(name, d)[0] for d in hparam_domain_discrete[name]]
            info.domain_discrete.CopyFrom(struct_pb2.ListValue(values=values))
        infos.append(info)
    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)

    def wrap(tag, **data):
        plugin = hparams_plugin_data.HParamsPluginData(
            version=hparams_metadata.PLUGIN_DATA_VERSION, **data
        )
        meta = hparams_metadata.create_summary_metadata(plugin)
        return Summary(
            value=[Summary.Value(tag=tag, metadata=meta, tensor=hparams_metadata.NULL_TENSOR)]
        )

    end = hparams_plugin_data.SessionEndInfo(status=api_pb2.STATUS_SUCCESS)
    return (
        wrap(hparams_metadata.EXPERIMENT_TAG, experiment=experiment),
        wrap(hparams_metadata.SESSION_START_INFO_TAG, session_start_info=start),
        wrap(hparams_metadata.SESSION_END_INFO_TAG, session_end_info=end),
    )


def custom_scalars(layout):
    """The custom-scalars layout: {category: {chart: ['Multiline', [tags]] or
    ['Margin', [value, lower, upper]]}}."""
    categories = []
    for category, charts in layout.items():
        chart_protos = []
        for title, (kind, tags) in charts.items():
            if kind == "Multiline":
                content = layout_pb2.MultilineChartContent(tag=list(tags))
                chart_protos.append(layout_pb2.Chart(title=title, multiline=content))
            elif kind == "Margin":
                if len(tags) != 3:
                    raise ValueError(
                        f"custom scalars chart {title!r}: Margin needs [value, lower, upper] tags"
                    )
                series = layout_pb2.MarginChartContent.Series(
                    value=tags[0], lower=tags[1], upper=tags[2]
                )
                content = layout_pb2.MarginChartContent(series=[series])
                chart_protos.append(layout_pb2.Chart(title=title, margin=content))
            else:
                raise ValueError(
                    f"custom scalars chart {title!r}: kind must be 'Multiline' or 'Margin', "
                    f"got {kind!r}"
                )
        categories.append(layout_pb2.Category(title=category, chart=chart_protos))
    proto = layout_pb2.Layout(category=categories)
    meta = custom_scalar_metadata.create_summary_metadata()
    tensor = _string_tensor([proto.SerializeToString()], [])
    return Summary(
        value=[
            Summary.Value(
                tag=custom_scalar_metadata.CONFIG_SUMMARY_TAG, tensor=tensor, metadata=meta
            )
        ]
    )


def mesh(tag, vertices, colors=None, faces=None, config_dict=None):
    """The mesh plugin's summaries: vertices (B, N, 3), optional colors (B, N, 3) and faces
    (B, F, 3), one value per component."""
    import json

    _check_tag(tag)
    content = mesh_plugin_data.MeshPluginData
    parts = [(content.VERTEX, make_np(vertices).astype(np.float32))]
    if faces is not None:
        parts.append((content.FACE, make_np(faces).astype(np.int32)))
    if colors is not None:
        parts.append((content.COLOR, make_np(colors).astype(np.uint8)))
    for kind, arr in parts:
        if arr.ndim != 3 or arr.shape[2] != 3:
            raise ValueError(
                f"add_mesh({tag!r}): each component must be (B, N, 3), got {arr.shape}"
            )
    components = mesh_metadata.get_components_bitmask([k for k, _ in parts])
    json_config = json.dumps(config_dict, sort_keys=True) if config_dict else None
    values = []
    for kind, arr in parts:
        meta = mesh_metadata.create_summary_metadata(
            tag, None, kind, components, list(arr.shape), json_config=json_config
        )
        values.append(
            Summary.Value(
                tag=mesh_metadata.get_instance_name(tag, kind),
                tensor=tensor_util.make_tensor_proto(arr),
                metadata=meta,
            )
        )
    return Summary(value=values)


__all__ = [
    "SummaryMetadata",
    "audio",
    "compute_pr_curve",
    "custom_scalars",
    "default_bins",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "image_boxes",
    "mesh",
    "pr_curve",
    "pr_curve_raw",
    "scalar",
    "text",
    "video",
]
