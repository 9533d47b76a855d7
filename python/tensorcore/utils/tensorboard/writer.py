"""SummaryWriter (torch.utils.tensorboard's API) over TensorBoard's own event-file writer."""

import os
import socket
import time
from datetime import datetime

import numpy as np
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as _summary
from ._convert import make_np, scalar_of


class FileWriter:
    """Writes Event protos to one event file in `log_dir` (asynchronously, flushed every
    `flush_secs` seconds or when `max_queue` events are pending)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        log_dir = str(log_dir)
        try:
            os.makedirs(log_dir, exist_ok=True)
        except OSError as e:
            raise OSError(f"SummaryWriter: cannot create the log folder {log_dir!r}: {e}") from e
        if not os.access(log_dir, os.W_OK):
            raise PermissionError(f"SummaryWriter: the log folder {log_dir!r} is not writable")
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else float(walltime)
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_def, walltime=None):
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


def _step(global_step):
    if global_step is None:
        return None
    return int(scalar_of(global_step, "global_step"))


class SummaryWriter:
    """Writes scalars, images, audio, histograms, text, figures, PR curves and hparams for
    TensorBoard, as torch.utils.tensorboard.SummaryWriter does.

    log_dir defaults to runs/<date>_<host><comment>. purge_step marks a restart: TensorBoard
    drops the events of this run at steps >= purge_step written before the crash.
    """

    def __init__(
        self,
        log_dir=None,
        comment="",
        purge_step=None,
        max_queue=10,
        flush_secs=120,
        filename_suffix="",
    ):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers = None
        self._get_file_writer()
        self.default_bins = _summary.default_bins()

    def _get_file_writer(self):
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = int(self.purge_step)
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(
                    Event(step=step, session_log=SessionLog(status=SessionLog.START))
                )
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def _write(self, summary, global_step, walltime):
        self._get_file_writer().add_summary(summary, _step(global_step), walltime)

    def add_scalar(
        self,
        tag,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style=False,
        double_precision=False,
    ):
        self._write(
            _summary.scalar(tag, scalar_value, new_style, double_precision), global_step, walltime
        )

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each key becomes its own run folder `<log_dir>/<main_tag>_<key>` (torch's layout),
        so TensorBoard draws the values in one chart."""
        if not isinstance(tag_scalar_dict, dict):
            raise TypeError("add_scalars: tag_scalar_dict must be a dict of tag -> value")
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run_dir = os.path.join(base, f"{main_tag}_{tag}".replace("/", "_"))
            writer = self.all_writers.get(run_dir)
            if writer is None:
                writer = FileWriter(run_dir, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[run_dir] = writer
            writer.add_summary(_summary.scalar(main_tag, value), _step(global_step), walltime)

    def add_histogram(
        self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._write(_summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(
        self,
        tag,
        min,  # noqa: A002 (torch's parameter names)
        max,  # noqa: A002
        num,
        sum,  # noqa: A002
        sum_squares,
        bucket_limits,
        bucket_counts,
        global_step=None,
        walltime=None,
    ):
        self._write(
            _summary.histogram_raw(
                tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts
            ),
            global_step,
            walltime,
        )

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._write(_summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        if "N" not in dataformats.upper():
            raise ValueError(f"add_images: dataformats must hold N, got {dataformats!r}")
        self._write(_summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_image_with_boxes(
        self,
        tag,
        img_tensor,
        box_tensor,
        global_step=None,
        walltime=None,
        rescale=1,
        dataformats="CHW",
        labels=None,
    ):
        self._write(
            _summary.image_boxes(tag, img_tensor, box_tensor, rescale, dataformats, labels),
            global_step,
            walltime,
        )

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, tiled) rendered to an image."""
        import matplotlib.pyplot as plt

        figures = figure if isinstance(figure, (list, tuple)) else [figure]
        images = [_summary.figure_to_hwc(f) for f in figures]
        if close:
            for f in figures:
                plt.close(f)
        if len(images) == 1:
            self.add_image(tag, images[0], global_step, walltime, dataformats="HWC")
        else:
            shapes = {im.shape for im in images}
            if len(shapes) != 1:
                raise ValueError(f"add_figure: the figures have different sizes {sorted(shapes)}")
            self.add_images(tag, np.stack(images), global_step, walltime, dataformats="NHWC")

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        self._write(_summary.video(tag, vid_tensor, fps), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        self._write(_summary.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._write(_summary.text(tag, text_string), global_step, walltime)

    def add_pr_curve(
        self,
        tag,
        labels,
        predictions,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ):
        self._write(
            _summary.pr_curve(tag, labels, predictions, num_thresholds, weights),
            global_step,
            walltime,
        )

    def add_pr_curve_raw(
        self,
        tag,
        true_positive_counts,
        false_positive_counts,
        true_negative_counts,
        false_negative_counts,
        precision,
        recall,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ):
        self._write(
            _summary.pr_curve_raw(
                tag,
                true_positive_counts,
                false_positive_counts,
                true_negative_counts,
                false_negative_counts,
                precision,
                recall,
                num_thresholds,
            ),
            global_step,
            walltime,
        )

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None):
        """One hparams session in the run folder `<log_dir>/<run_name>` (default: the time),
        with the metrics written there as scalars."""
        experiment, start, end = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_name = run_name or str(time.time())
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=run_dir) as run_writer:
            fw = run_writer._get_file_writer()
            fw.add_summary(experiment)
            fw.add_summary(start)
            fw.add_summary(end)
            for name, value in metric_dict.items():
                run_writer.add_scalar(name, value)

    def add_custom_scalars(self, layout):
        self._get_file_writer().add_summary(_summary.custom_scalars(layout))

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_mesh(
        self,
        tag,
        vertices,
        colors=None,
        faces=None,
        config_dict=None,
        global_step=None,
        walltime=None,
    ):
        self._write(_summary.mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    def add_embedding(
        self,
        mat,
        metadata=None,
        label_img=None,
        global_step=None,
        tag="default",
        metadata_header=None,
    ):
        """Writes the projector files: <log_dir>/<step>/<tag>/tensors.tsv (+ metadata.tsv,
        sprite.png) and an entry in projector_config.pbtxt."""
        from ._embedding import write_embedding

        write_embedding(
            self._get_file_writer().get_logdir(),
            make_np(mat),
            metadata,
            None if label_img is None else make_np(label_img),
            _step(global_step),
            tag,
            metadata_header,
        )

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Writes the graph of ``model`` for TensorBoard's Graphs tab.

        The model is traced with ``tc.fx.symbolic_trace`` (so it must be traceable by it); with
        ``input_to_model`` (a tensor or a tuple of them) the graph is also run once to label
        every edge with its shape. Module calls are named by their attribute path, as in
        torch's graphs. ``use_strict_trace`` is accepted for torch's signature (fx has no
        non-strict mode to choose)."""
        from ._graph import graph_def_from_model

        del use_strict_trace
        self._get_file_writer().add_graph(graph_def_from_model(model, input_to_model, verbose))

    def add_onnx_graph(self, prototxt):
        """Writes the graph of the ONNX file at ``prototxt`` (e.g. from ``tc.onnx.export``)."""
        from ._graph import graph_def_from_onnx

        self._get_file_writer().add_graph(graph_def_from_onnx(prototxt))

    def flush(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
