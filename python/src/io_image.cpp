// Bindings for tc::io image IO, in the private submodule tensorcore._C._image_io; the public
// names live in tensorcore.vision.io. Decoding and encoding run without the GIL.
#include "bind.h"
#include "io/image.h"

namespace tc::python {
namespace {

io::ImageReadMode read_mode(int mode) {
  TC_CHECK(mode >= 0 && mode <= 4, "ImageReadMode: expected a value in 0..4, got ", mode);
  return io::ImageReadMode(mode);
}

void bind_io_image(py::module_& m, TensorClass&) {
  py::module_ io = m.def_submodule("_image_io", "native JPEG/PNG decoding and encoding");
  io.def("read_file", [](const std::string& path) {
    py::gil_scoped_release nogil;
    return io::read_file(path);
  });
  io.def("write_file", [](const std::string& path, const Tensor& data) {
    py::gil_scoped_release nogil;
    io::write_file(path, data);
  });
  io.def("decode_jpeg", [](const Tensor& data, int mode, bool exif) {
    auto m = read_mode(mode);
    py::gil_scoped_release nogil;
    return io::decode_jpeg(data, m, exif);
  });
  io.def("decode_png", [](const Tensor& data, int mode, bool exif) {
    auto m = read_mode(mode);
    py::gil_scoped_release nogil;
    return io::decode_png(data, m, exif);
  });
  io.def("decode_image", [](const Tensor& data, int mode, bool exif) {
    auto m = read_mode(mode);
    py::gil_scoped_release nogil;
    return io::decode_image(data, m, exif);
  });
  io.def("decode_jpeg_batch", [](const TensorList& data, int mode, bool exif, int threads) {
    auto m = read_mode(mode);
    py::gil_scoped_release nogil;
    return io::decode_jpeg(data, m, exif, threads);
  });
  io.def("decode_image_batch", [](const TensorList& data, int mode, bool exif, int threads) {
    auto m = read_mode(mode);
    py::gil_scoped_release nogil;
    return io::decode_image(data, m, exif, threads);
  });
  io.def("encode_jpeg", [](const Tensor& image, int quality) {
    py::gil_scoped_release nogil;
    return io::encode_jpeg(image, quality);
  });
  io.def("encode_png", [](const Tensor& image, int level) {
    py::gil_scoped_release nogil;
    return io::encode_png(image, level);
  });
}

Registrar registrar(bind_io_image);

}  // namespace
}  // namespace tc::python
