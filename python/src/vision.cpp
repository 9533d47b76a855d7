// Bindings for tensorcore.vision: detection ops and transform kernels live in the private
// submodule tensorcore._C._vision; the Python package wraps them with torchvision's signatures.
#include "bind.h"
#include "pipeline_binding.h"
#include "vision/ops/ops.h"
#include "vision/transforms/geometry.h"
#include "vision/transforms/kernels.h"
#include "vision/transforms/pipeline.h"

namespace tc::python {
namespace {

void bind_vision(py::module_& m, TensorClass&) {
  py::module_ v = m.def_submodule("_vision", "tensorcore.vision kernels");
  namespace vo = tc::vision::ops;
  v.def("nms", &vo::nms, py::arg("boxes"), py::arg("scores"), py::arg("iou_threshold"));
  v.def("roi_align", &vo::roi_align, py::arg("input"), py::arg("rois"), py::arg("spatial_scale"),
        py::arg("pooled_height"), py::arg("pooled_width"), py::arg("sampling_ratio"),
        py::arg("aligned"));
  v.def("roi_pool", &vo::roi_pool, py::arg("input"), py::arg("rois"), py::arg("spatial_scale"),
        py::arg("pooled_height"), py::arg("pooled_width"));
  v.def("ps_roi_align", &vo::ps_roi_align, py::arg("input"), py::arg("rois"),
        py::arg("spatial_scale"), py::arg("pooled_height"), py::arg("pooled_width"),
        py::arg("sampling_ratio"));
  v.def("ps_roi_pool", &vo::ps_roi_pool, py::arg("input"), py::arg("rois"),
        py::arg("spatial_scale"), py::arg("pooled_height"), py::arg("pooled_width"));

  v.def("deform_conv2d",
        [](const Tensor& input, const Tensor& offset, const Tensor& weight, const Tensor& bias,
           std::pair<int64_t, int64_t> stride, std::pair<int64_t, int64_t> padding,
           std::pair<int64_t, int64_t> dilation, const Tensor& mask) {
          return vo::deform_conv2d(input, offset, weight, bias, stride, padding, dilation, mask);
        });

  namespace vk = tc::vision::kernels;
  auto mode = [](int m) {
    TC_CHECK(m == 0 || m == 2 || m == 3,
             "interpolation must be nearest (0), bilinear (2) or "
             "bicubic (3), got ",
             m);
    return vk::Interpolation(m);
  };
  v.def(
      "resize",
      [mode](const Tensor& img, int64_t h, int64_t w, int m, bool antialias) {
        py::gil_scoped_release nogil;
        return vk::resize(img, h, w, mode(m), antialias);
      },
      py::arg("img"), py::arg("height"), py::arg("width"), py::arg("interpolation"),
      py::arg("antialias"));
  v.def("crop_flip_normalize",
        [](const Tensor& img, const std::vector<int64_t>& tops, const std::vector<int64_t>& lefts,
           const std::vector<uint8_t>& hflip, const std::vector<uint8_t>& vflip, int64_t h,
           int64_t w, const std::vector<double>& scale, const std::vector<double>& bias) {
          py::gil_scoped_release nogil;
          return vk::crop_flip_normalize(img, tops, lefts, hflip, vflip, h, w, scale, bias);
        });
  v.def("crop_flip", [](const Tensor& img, const std::vector<int64_t>& tops,
                        const std::vector<int64_t>& lefts, const std::vector<uint8_t>& hflip,
                        const std::vector<uint8_t>& vflip, int64_t h, int64_t w) {
    py::gil_scoped_release nogil;
    return vk::crop_flip(img, tops, lefts, hflip, vflip, h, w);
  });

  bind_deploy_pipeline<tc::vision::transforms::Pipeline>(v, "img");
  v.def(
      "apply_pipeline",
      [](const std::string& json, const Tensor& img, py::object gen) {
        GeneratorPtr g = gen.is_none() ? GeneratorPtr() : gen.cast<GeneratorPtr>();
        py::gil_scoped_release nogil;
        return tc::vision::transforms::apply_pipeline(json, img, g);
      },
      py::arg("json"), py::arg("img"), py::arg("generator") = py::none());
  v.def("blend", [](const Tensor& img, const std::vector<double>& factors, int other,
                    const std::vector<double>& values) {
    TC_CHECK(other >= 0 && other <= 2, "blend: other must be 0 (zero), 1 (gray) or 2 (value)");
    py::gil_scoped_release nogil;
    return vk::blend(img, factors, vk::BlendOther(other), values);
  });
  v.def("adjust_hue", [](const Tensor& img, const std::vector<double>& factors) {
    py::gil_scoped_release nogil;
    return vk::adjust_hue(img, factors);
  });
  v.def("warp", [mode](const Tensor& img, const std::vector<double>& mats, int64_t h, int64_t w,
                       int m, std::optional<std::vector<double>> fill) {
    py::gil_scoped_release nogil;
    return vk::warp(img, mats, h, w, mode(m), fill);
  });
  v.def(
      "gaussian_blur",
      [](const Tensor& img, int64_t kx, int64_t ky, const std::vector<double>& sx,
         const std::vector<double>& sy) {
        py::gil_scoped_release nogil;
        return vk::gaussian_blur(img, kx, ky, sx, sy);
      },
      py::arg("img"), py::arg("kernel_x"), py::arg("kernel_y"), py::arg("sigma_x"),
      py::arg("sigma_y"));
  v.def("erase", &vk::erase, py::arg("img"), py::arg("i"), py::arg("j"), py::arg("h"), py::arg("w"),
        py::arg("value"), py::arg("inplace"));
  v.def("invert", &vk::invert, py::arg("img"));
  v.def("posterize", &vk::posterize, py::arg("img"), py::arg("bits"));
  v.def("solarize", &vk::solarize, py::arg("img"), py::arg("threshold"));
  v.def("autocontrast", &vk::autocontrast, py::arg("img"));
  v.def("adjust_sharpness", &vk::adjust_sharpness, py::arg("img"), py::arg("factor"));
  v.def("equalize", [](const Tensor& img) {
    py::gil_scoped_release nogil;
    return vk::equalize(img);
  });
  // Warp matrices: the Python functional transforms use the same C++ code as the pipeline.
  v.def("affine_for_image", &vk::affine_for_image, py::arg("h"), py::arg("w"), py::arg("angle"),
        py::arg("tx"), py::arg("ty"), py::arg("scale"), py::arg("shear_x"), py::arg("shear_y"),
        py::arg("center"));
  v.def("affine_pixel_matrix", &vk::affine_pixel_matrix, py::arg("m"), py::arg("h"), py::arg("w"),
        py::arg("out_h"), py::arg("out_w"));
  v.def("expanded_size", &vk::expanded_size, py::arg("m"), py::arg("h"), py::arg("w"));
  v.def("perspective_matrix", &vk::perspective_matrix, py::arg("start"), py::arg("end"));
}

static Registrar r(bind_vision);

}  // namespace
}  // namespace tc::python
