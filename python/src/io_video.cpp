// Bindings for tc::io::VideoReader and read_video (private module tensorcore._C._videoio; the
// public API is python/tensorcore/vision/io/video.py). Decoding runs with the GIL released.
#include <mutex>

#include "bind.h"
#include "io/video.h"

namespace tc::python {

namespace {

io::MediaSource to_media_source(py::handle src, const char* op) {
  if (py::isinstance<py::bytes>(src)) {
    return io::MediaSource::memory(src.cast<std::string>());
  }
  if (PyByteArray_Check(src.ptr()) || PyMemoryView_Check(src.ptr())) {
    auto bytes = py::reinterpret_steal<py::object>(PyBytes_FromObject(src.ptr()));
    if (!bytes) throw py::error_already_set();
    return io::MediaSource::memory(bytes.cast<std::string>());
  }
  if (is_tensor(src)) {
    const Tensor t = src.cast<Tensor>();
    TC_CHECK_TYPE(t.dtype() == DType::UInt8 && t.dim() == 1 && t.is_cpu(), op,
                  ": a tensor source must be a 1-D uint8 CPU tensor of encoded bytes, but got a ",
                  t.dim(), "-d ", dtype_name(t.dtype()), " tensor on ", t.device().str());
    std::string bytes(size_t(t.numel()), '\0');
    const auto* p = static_cast<const char*>(t.data_ptr());
    const int64_t stride = t.stride(0);
    for (int64_t i = 0; i < t.numel(); ++i) bytes[size_t(i)] = p[i * stride];
    return io::MediaSource::memory(std::move(bytes));
  }
  if (py::isinstance<py::str>(src) || py::hasattr(src, "__fspath__")) {
    py::object path = py::module_::import("os").attr("fspath")(src);
    TC_CHECK_TYPE(py::isinstance<py::str>(path), op, ": bytes paths are not supported; pass a str");
    return io::MediaSource::file(path.cast<std::string>());
  }
  throw TypeError(detail::concat(op, ": expected a path, bytes or a uint8 tensor, but got ",
                                 std::string(py::str(src.get_type().attr("__name__")))));
}

py::object optional_float(double v) {
  return std::isnan(v) ? py::none() : py::object(py::float_(v));
}

py::dict stream_dict(const io::StreamInfo& s) {
  py::dict d;
  d["type"] = s.type;
  d["index"] = s.index;
  d["stream_index"] = s.stream_index;
  d["codec"] = s.codec;
  d["time_base"] = py::make_tuple(s.time_base_num, s.time_base_den);
  d["start_time"] = s.start_time;
  d["duration"] = optional_float(s.duration);
  d["num_frames"] = s.num_frames;
  if (s.type == "video") {
    d["fps"] = optional_float(s.fps);
    d["nominal_fps"] = optional_float(s.nominal_fps);
    d["width"] = s.width;
    d["height"] = s.height;
  } else if (s.type == "audio") {
    d["sample_rate"] = optional_float(s.sample_rate);
    d["channels"] = s.channels;
  }
  return d;
}

// One decode at a time per reader, since decoding runs without the GIL.
struct PyVideoReader {
  std::mutex mu;
  std::optional<io::VideoReader> reader;

  // f(reader) under the mutex.
  template <typename F>
  auto locked(F&& f) {
    std::lock_guard lock(mu);
    return f(*reader);
  }
  // The same for calls that decode or seek: the GIL is released first, so a thread waiting
  // for the mutex does not hold it.
  template <typename F>
  auto decoding(F&& f) {
    py::gil_scoped_release nogil;
    return locked(std::forward<F>(f));
  }
};

// Destroying a reader joins FFmpeg's decoder threads. A thread may be inside av_log, and a
// Python-side log callback (PyAV installs one when imported, e.g. by torchvision) takes the
// GIL there: joining with the GIL held would deadlock, so it is released first.
struct ReleaseGilDelete {
  void operator()(PyVideoReader* r) const {
    if (PyGILState_Check()) {
      py::gil_scoped_release nogil;
      delete r;
    } else {
      delete r;
    }
  }
};
using PyVideoReaderPtr = std::unique_ptr<PyVideoReader, ReleaseGilDelete>;

void bind_io_video(py::module_& m, TensorClass&) {
  py::module_ sub = m.def_submodule("_videoio", "FFmpeg video/audio decoding (private)");
  py::class_<PyVideoReader, PyVideoReaderPtr>(sub, "VideoReader")
      .def(py::init([](py::handle src, const std::string& stream, int num_threads,
                       bool audio_channels_first, bool audio_native_dtype) {
             io::MediaSource source = to_media_source(src, "VideoReader");
             PyVideoReaderPtr out(new PyVideoReader());
             io::VideoReaderOptions opts{stream, num_threads, audio_channels_first,
                                         audio_native_dtype};
             py::gil_scoped_release nogil;
             out->reader.emplace(std::move(source), opts);
             return out;
           }),
           py::arg("source"), py::arg("stream") = "video", py::arg("num_threads") = 0,
           py::arg("audio_channels_first") = false, py::arg("audio_native_dtype") = false)
      .def("next",
           [](PyVideoReader& r) -> py::object {
             auto f = r.decoding([](io::VideoReader& v) { return v.next(); });
             if (!f) return py::none();
             return py::make_tuple(f->data, f->pts, f->timestamp);
           })
      .def(
          "seek",
          [](PyVideoReader& r, double t, bool keyframes_only) {
            r.decoding([&](io::VideoReader& v) { v.seek(t, keyframes_only); });
          },
          py::arg("time_s"), py::arg("keyframes_only") = false)
      .def("set_current_stream",
           [](PyVideoReader& r, const std::string& stream) {
             r.decoding([&](io::VideoReader& v) { v.set_current_stream(stream); });
           })
      .def_property_readonly(
          "current_stream",
          [](PyVideoReader& r) {
            return r.locked([](io::VideoReader& v) { return v.current_stream(); });
          })
      .def("streams",
           [](PyVideoReader& r) {
             auto infos = r.locked([](io::VideoReader& v) { return v.streams(); });
             py::list out;
             for (const auto& s : infos) out.append(stream_dict(s));
             return out;
           })
      .def("_demuxer_seek_count",
           [](PyVideoReader& r) {
             return r.locked([](io::VideoReader& v) { return v.demuxer_seek_count(); });
           })
      .def("_disposed_packet_count",
           [](PyVideoReader& r) {
             return r.locked([](io::VideoReader& v) { return v.disposed_packet_count(); });
           })
      .def("average_frame_rate",
           [](PyVideoReader& r, int stream_index) {
             return r.decoding(
                 [&](io::VideoReader& v) { return v.average_frame_rate(stream_index); });
           })
      .def("container_duration", [](PyVideoReader& r) {
        return optional_float(r.locked([](io::VideoReader& v) { return v.container_duration(); }));
      });

  sub.def(
      "read_video",
      [](py::handle src, double start, double end, bool with_video, bool with_audio,
         bool preceding_frame, bool audio_native_dtype, bool bounds_in_ticks) {
        io::MediaSource source = to_media_source(src, "read_video");
        io::ReadVideoOptions opts;
        opts.with_video = with_video;
        opts.with_audio = with_audio;
        opts.preceding_frame = preceding_frame;
        opts.audio_native_dtype = audio_native_dtype;
        opts.bounds_in_ticks = bounds_in_ticks;
        io::VideoClip clip;
        {
          py::gil_scoped_release nogil;
          clip = io::read_video(source, start, end, opts);
        }
        py::dict d;
        d["video"] = clip.video;
        d["audio"] = clip.audio;
        d["video_timestamps"] = clip.video_timestamps;
        d["video_pts"] = clip.video_pts;
        d["video_time_base"] = py::make_tuple(clip.video_time_base_num, clip.video_time_base_den);
        if (clip.video_fps) d["video_fps"] = *clip.video_fps;
        if (clip.audio_fps) d["audio_fps"] = *clip.audio_fps;
        return d;
      },
      py::arg("source"), py::arg("start") = 0.0,
      py::arg("end") = std::numeric_limits<double>::infinity(), py::arg("with_video") = true,
      py::arg("with_audio") = true, py::arg("preceding_frame") = true,
      py::arg("audio_native_dtype") = true, py::arg("bounds_in_ticks") = false);

  // Decodes (without pixel conversion) to list the true pts of every video frame.
  sub.def("read_video_timestamps", [](py::handle src) {
    io::MediaSource source = to_media_source(src, "read_video_timestamps");
    std::vector<int64_t> ticks;
    io::StreamInfo info;
    {
      py::gil_scoped_release nogil;
      io::VideoReader reader(std::move(source), io::VideoReaderOptions{"video", 0});
      reader.set_video_layout(io::VideoReader::VideoLayout::None);
      info = reader.current_stream_info();
      while (auto f = reader.next()) ticks.push_back(f->timestamp);
    }
    return py::make_tuple(ticks, py::make_tuple(info.time_base_num, info.time_base_den),
                          optional_float(info.fps));
  });
}

static Registrar registrar(bind_io_video);

}  // namespace

}  // namespace tc::python
