// The vision / nn CUDA kernels run on the host (scripts/cuda_host_emulation/run.sh), compared
// with the CPU ops on the same inputs: index arithmetic and per-element math without a GPU.
#include <cstdio>
#include <iostream>

#include "tensorcore/nn/device_kernels.h"
#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/nn.h"
#include "tensorcore/tensorcore.h"
#include "vision/ops/device_kernels.h"
#include "vision/ops/ops.h"
#include "vision/transforms/device_kernels.h"
#include "vision/transforms/kernels.h"

using namespace tc;
namespace vk = vision::kernels;
int fails = 0;
void check(const char* what, const Tensor& a, const Tensor& b, double tol) {
  bool ok = a.sizes() == b.sizes() && (tol == 0 ? equal(a, b)
                                                : allclose(to_dtype(a, DType::Float64),
                                                           to_dtype(b, DType::Float64), tol, tol));
  std::printf("%-40s %s\n", what, ok ? "ok" : "MISMATCH");
  if (!ok) ++fails;
}
Tensor rnd(const Shape& s, uint64_t seed, DType dt = DType::Float64) {
  auto g = std::make_shared<Generator>(Device(), seed);
  return to_dtype(rand(s, g), dt);
}
Tensor u8(const Shape& s, uint64_t seed) {
  return to_dtype(floor(mul(rnd(s, seed), 256.0)), DType::UInt8);
}

int main() {
  // warp: emulate the front end's args.
  const std::vector<double> mats = {0.9, -0.3, 4.0,  0.3,   0.9,  -2.0, 0.0,   0.0,    1.0,
                                    1.1, 0.05, -1.5, -0.02, 0.95, 0.7,  0.001, -0.002, 1.0};
  for (DType dt : {DType::UInt8, DType::Float32, DType::Float64}) {
    Tensor x = dt == DType::UInt8 ? u8({2, 3, 21, 26}, 1) : rnd({2, 3, 21, 26}, 1, dt);
    for (bool nearest : {true, false}) {
      std::vector<double> fill = {3.0, 7.0, 200.0};
      vk::detail::WarpArgs a{mats.data(), true, nearest, 3, 21, 26, 19, 30, fill.data(), 3};
      Tensor out = empty({2, 3, 19, 30}, TensorOptions(dt));
      vk::warp_kernel.get(DeviceType::CUDA)(x, mats, fill, a, out);
      check("warp", out,
            vk::warp(x, mats, 19, 30,
                     nearest ? vk::Interpolation::Nearest : vk::Interpolation::Bilinear, fill),
            0);
    }
    // blur: the CPU's 1-D kernels (blur.cpp's gaussian_kernel1d, copied here).
    auto k1d = [](int64_t size, double sigma) {
      const float half = float(size - 1) * 0.5f, s = float(sigma);
      std::vector<float> k(size);
      const float step = size > 1 ? (half - -half) / float(size - 1) : 0.0f;
      float sum = 0;
      for (int64_t i = 0; i < size; ++i) {
        float xx = i < size / 2 ? -half + step * float(i) : half - step * float(size - 1 - i);
        float t = xx / s;
        k[i] = std::exp(-0.5f * (t * t));
        sum += k[i];
      }
      for (float& v : k) v /= sum;
      return k;
    };
    std::vector<std::vector<float>> kx = {k1d(5, 0.8), k1d(5, 2.0)}, ky = {k1d(9, 1.5)};
    Tensor bo = empty(x.sizes(), TensorOptions(dt));
    vk::gaussian_blur_kernel.get(DeviceType::CUDA)(x, kx, ky, bo);
    check("blur", bo, vk::gaussian_blur(x, 5, 9, {0.8, 2.0}, {1.5}), 0);
  }
  {
    Tensor x = u8({3, 3, 17, 23}, 2);
    Tensor o = empty(x.sizes(), TensorOptions(DType::UInt8));
    vk::blend_kernel.get(DeviceType::CUDA)(x, 3, 3, 17 * 23, vk::BlendOther::Gray, {0.4, 1.3, 2.0},
                                           {}, o);
    check("blend gray", o, vk::blend(x, {0.4, 1.3, 2.0}, vk::BlendOther::Gray), 0);
    vk::blend_kernel.get(DeviceType::CUDA)(x, 3, 3, 17 * 23, vk::BlendOther::Value, {0.7},
                                           {10, 90, 200}, o);
    check("blend value", o, vk::blend(x, {0.7}, vk::BlendOther::Value, {10, 90, 200}), 0);
    vk::adjust_hue_kernel.get(DeviceType::CUDA)(x, 3, 17 * 23, {-0.4, 0.1, 0.45}, o);
    check("hue", o, vk::adjust_hue(x, {-0.4, 0.1, 0.45}), 0);
    vk::equalize_kernel.get(DeviceType::CUDA)(x, 9, 17 * 23, o);
    check("equalize", o, vk::equalize(x), 0);
    std::vector<int64_t> tops = {0, 3, 5}, lefts = {1, 0, 7};
    std::vector<uint8_t> hf = {1, 0, 1}, vf = {0, 1, 1};
    Tensor f = empty({3, 3, 12, 15}, TensorOptions(DType::Float32));
    vk::crop_flip_normalize_kernel.get(DeviceType::CUDA)(
        x, tops, lefts, hf, vf, {0.01f, 0.02f, 0.03f}, {-0.5f, 0.1f, 0.2f}, f);
    check("crop_flip_normalize", f,
          vk::crop_flip_normalize(x, tops, lefts, hf, vf, 12, 15, {0.01, 0.02, 0.03},
                                  {-0.5, 0.1, 0.2}),
          1e-6);
  }
  {
    Tensor x = rnd({2, 8, 16, 18}, 4);
    Tensor rois = from_vector<double>(
        {0, 1.5, 2.0, 12.0, 9.0, 1, -3.0, 4.0, 20.0, 30.0, 0, 5, 5, 5.5, 5.2, 1, 30, 30, 40, 40},
        {4, 5});
    namespace oc = vision::ops;
    Tensor out = empty({4, 8, 2, 3}, TensorOptions(DType::Float64)),
           am = empty({4, 8, 2, 3}, TensorOptions(DType::Int64));
    oc::roi_pool_forward_kernel.get(DeviceType::CUDA)(x, rois, 0.8, 2, 3, out, am);
    Tensor xr = clone(x).requires_grad_(true);
    Tensor ref = vision::ops::roi_pool(xr, rois, 0.8, 2, 3);
    check("roi_pool fwd", out, ref.detach(), 0);
    Tensor g = rnd({4, 8, 2, 3}, 5);
    sum(mul(ref, g)).backward();
    Tensor gin = zeros({2, 8, 16, 18}, TensorOptions(DType::Float64));
    oc::roi_pool_backward_kernel.get(DeviceType::CUDA)(g, rois, am, gin);
    check("roi_pool bwd", gin, xr.grad(), 1e-12);
    Tensor po = empty({4, 2, 2, 2}, TensorOptions(DType::Float64));
    oc::ps_roi_pool_forward_kernel.get(DeviceType::CUDA)(x, rois, 0.8, 2, 2, po);
    Tensor xr2 = clone(x).requires_grad_(true);
    Tensor pref = vision::ops::ps_roi_pool(xr2, rois, 0.8, 2, 2);
    check("ps_roi_pool fwd", po, pref.detach(), 1e-12);
    Tensor pg = rnd({4, 2, 2, 2}, 6);
    sum(mul(pref, pg)).backward();
    Tensor pgin = zeros({2, 8, 16, 18}, TensorOptions(DType::Float64));
    oc::ps_roi_pool_backward_kernel.get(DeviceType::CUDA)(pg, rois, 0.8, 2, 2, pgin);
    check("ps_roi_pool bwd", pgin, xr2.grad(), 1e-12);
    for (bool ps : {false, true}) {
      vision::ops::RoiAlignArgs a{0.8, 2, 2, ps ? 2 : -1, true, ps};
      int64_t oc_ = ps ? 2 : 8;
      Tensor ao = empty({4, oc_, 2, 2}, TensorOptions(DType::Float64));
      oc::roi_align_forward_kernel.get(DeviceType::CUDA)(x, rois, a, ao);
      Tensor xr3 = clone(x).requires_grad_(true);
      Tensor aref = ps ? vision::ops::ps_roi_align(xr3, rois, 0.8, 2, 2, 2)
                       : vision::ops::roi_align(xr3, rois, 0.8, 2, 2, -1, true);
      check(ps ? "ps_roi_align fwd" : "roi_align fwd", ao, aref.detach(), 1e-12);
      Tensor ag = rnd({4, oc_, 2, 2}, 7);
      sum(mul(aref, ag)).backward();
      Tensor agin = zeros({2, 8, 16, 18}, TensorOptions(DType::Float64));
      oc::roi_align_backward_kernel.get(DeviceType::CUDA)(ag, rois, a, agin);
      check(ps ? "ps_roi_align bwd" : "roi_align bwd", agin, xr3.grad(), 1e-12);
    }
  }
  {
    Tensor x = rnd({2, 3, 7, 9}, 8);
    Tensor grid = mul(sub(rnd({2, 4, 5, 2}, 9), 0.5), 2.4);
    for (const char* mode : {"bilinear", "nearest", "bicubic"})
      for (int pad = 0; pad < 3; ++pad)
        for (bool align : {false, true}) {
          nn::detail::GridGeom g{
              2, 3, 7, 9, 4, 5, std::string(mode) == "nearest", align, nn::detail::GridPad(pad)};
          g.bicubic = std::string(mode) == "bicubic";
          Tensor out = empty({2, 3, 4, 5}, TensorOptions(DType::Float64));
          nn::grid_sample_forward_kernel.get(DeviceType::CUDA)(x, grid, g, out);
          Tensor xr = clone(x).requires_grad_(true), gr = clone(grid).requires_grad_(true);
          const char* pads[] = {"zeros", "border", "reflection"};
          Tensor ref = nn::functional::grid_sample(xr, gr, mode, pads[pad], align);
          check("grid_sample fwd", out, ref.detach(), 1e-12);
          Tensor go = rnd({2, 3, 4, 5}, 10);
          sum(mul(ref, go)).backward();
          Tensor gin = zeros({2, 3, 7, 9}, TensorOptions(DType::Float64)),
                 gg = empty({2, 4, 5, 2}, TensorOptions(DType::Float64));
          nn::grid_sample_backward_kernel.get(DeviceType::CUDA)(go, x, grid, g, gin, gg);
          check("grid_sample bwd x", gin, xr.grad(), 1e-12);
          check("grid_sample bwd grid", gg, gr.grad(), 1e-12);
        }
  }
  {
    // 5-d grid_sample: forward and backward through the one kernel.
    Tensor x = rnd({2, 2, 4, 5, 6}, 18);
    Tensor grid = mul(sub(rnd({2, 3, 2, 4, 3}, 19), 0.5), 2.4);
    for (bool nearest : {false, true})
      for (int pad = 0; pad < 3; ++pad)
        for (bool align : {false, true}) {
          nn::detail::GridGeom3 g{2, 2, 4, 5, 6, 3, 2, 4, nearest, align, nn::detail::GridPad(pad)};
          Tensor out = empty({2, 2, 3, 2, 4}, TensorOptions(DType::Float64));
          nn::grid_sample3d_kernel.get(DeviceType::CUDA)(x, grid, out, Tensor(), Tensor(), Tensor(),
                                                         g);
          Tensor xr = clone(x).requires_grad_(true), gr = clone(grid).requires_grad_(true);
          const char* pads[] = {"zeros", "border", "reflection"};
          Tensor ref = nn::functional::grid_sample(xr, gr, nearest ? "nearest" : "bilinear",
                                                   pads[pad], align);
          check("grid_sample 5-d fwd", out, ref.detach(), 1e-12);
          Tensor go = rnd({2, 2, 3, 2, 4}, 20);
          sum(mul(ref, go)).backward();
          Tensor gin = zeros(x.sizes(), TensorOptions(DType::Float64));
          Tensor gg = empty(grid.sizes(), TensorOptions(DType::Float64));
          nn::grid_sample3d_kernel.get(DeviceType::CUDA)(x, grid, Tensor(), go, gin, gg, g);
          check("grid_sample 5-d bwd x", gin, xr.grad(), 1e-12);
          check("grid_sample 5-d bwd grid", gg, gr.grad(), 1e-12);
        }
  }
  {
    // ctc: padded targets, an empty target, a repeat, a short input.
    Tensor lp = nn::functional::log_softmax(rnd({12, 4, 6}, 11), 2);
    Tensor targets = from_vector<int64_t>({1, 2, 3, 4, 0, 0, 0, 0, 2, 2, 5, 1, 3, 5, 0, 0}, {4, 4});
    Tensor in_len = from_vector<int64_t>({12, 7, 11, 3}, {4}),
           tg_len = from_vector<int64_t>({4, 0, 4, 2}, {4});
    Tensor lpr = clone(lp).requires_grad_(true);
    Tensor ref = nn::functional::ctc_loss(lpr, targets, in_len, tg_len, 0, "none");
    Tensor nll = empty({4}, TensorOptions(DType::Float64)),
           alpha = empty({4, 12, 9}, TensorOptions(DType::Float64));
    Tensor offs = from_vector<int64_t>({0, 4, 8, 12}, {4});
    nn::ctc_forward_kernel.get(DeviceType::CUDA)(lp, reshape(targets, {-1}), offs, in_len, tg_len,
                                                 0, 9, nll, alpha);
    check("ctc fwd", nll, ref.detach(), 1e-12);
    Tensor go = from_vector<double>({0.5, 1.0, -2.0, 0.7}, {4});
    sum(mul(ref, go)).backward();
    Tensor grad = empty({12, 4, 6}, TensorOptions(DType::Float64));
    nn::ctc_backward_kernel.get(DeviceType::CUDA)(lp, reshape(targets, {-1}), offs, in_len, tg_len,
                                                  0, 9, nll, alpha, go, false, grad);
    check("ctc bwd", grad, lpr.grad(), 1e-12);
  }
  {
    Tensor w = rnd({10, 4}, 12);
    Tensor idx = from_vector<int64_t>({1, 2, 4, 5, 4, 3, 2, 9}, {8});
    std::vector<int64_t> starts = {0, 3, 3, 6}, ends = {3, 3, 6, 8};
    for (int mode = 0; mode < 3; ++mode) {
      const char* names[] = {"sum", "mean", "max"};
      auto ref = nn::functional::embedding_bag(idx, w, from_vector<int64_t>(starts, {4}), {}, 2.0,
                                               false, names[mode], {}, false, 4);
      std::vector<double> scale;
      for (int b = 0; b < 4; ++b) {
        int cnt = 0;
        for (int64_t j = starts[b]; j < ends[b]; ++j) cnt += idx.data<int64_t>()[j] != 4;
        for (int64_t j = starts[b]; j < ends[b]; ++j) scale.push_back(mode == 1 ? 1.0 / cnt : 1.0);
      }
      Tensor out = zeros({4, 4}, TensorOptions(DType::Float64)),
             mi = full({4, 4}, Scalar(int64_t(-1)), TensorOptions(DType::Int64));
      nn::embedding_bag_forward_kernel.get(DeviceType::CUDA)(w, idx, starts, ends, scale, Tensor(),
                                                             4, mode == 2, out, mi);
      check("embedding_bag", out, std::get<0>(ref), 1e-12);
      if (mode == 2) check("embedding_bag max idx", mi, std::get<3>(ref), 0);
    }
  }
  {
    // deform: columns through the emulated kernel vs the CPU op's forward via bmm.
    Tensor x = rnd({2, 4, 9, 10}, 13), off = mul(sub(rnd({2, 36, 5, 6}, 14), 0.5), 4.0);
    Tensor m = rnd({2, 18, 5, 6}, 15), w = rnd({6, 2, 3, 3}, 16);
    vision::ops::detail::DeformGeometry g{2, 4, 9, 10, 6, 3, 3, 5, 6, 2, 2, 2, 2, 1, 2, 1, 1, true};
    Tensor xr = clone(x).requires_grad_(true), offr = clone(off).requires_grad_(true),
           mr = clone(m).requires_grad_(true), wr = clone(w).requires_grad_(true);
    Tensor ref = vision::ops::deform_conv2d(xr, offr, wr, Tensor(), {2, 2}, {1, 2}, {1, 1}, mr);
    Tensor outs[2];
    Tensor gw = reshape(w, {2, 3, 18});
    for (int n = 0; n < 2; ++n) {
      Tensor cols = empty({36, 30}, TensorOptions(DType::Float64));
      vision::ops::deform_im2col_kernel.get(DeviceType::CUDA)(g, x, off, m, n, cols);
      outs[n] = reshape(bmm(gw, reshape(cols, {2, 18, 30})), {1, 6, 5, 6});
    }
    check("deform fwd", cat({outs[0], outs[1]}, 0), ref.detach(), 1e-12);
    Tensor go = rnd({2, 6, 5, 6}, 17);
    sum(mul(ref, go)).backward();
    Tensor gin = zeros(x.sizes(), TensorOptions(DType::Float64)),
           goff = zeros(off.sizes(), TensorOptions(DType::Float64)),
           gm = zeros(m.sizes(), TensorOptions(DType::Float64));
    Tensor wt = transpose(gw, 1, 2);
    for (int n = 0; n < 2; ++n) {
      Tensor gon = reshape(select(go, 0, n), {2, 3, 30});
      Tensor gcols = contiguous(bmm(wt, gon));
      vision::ops::deform_col2im_kernel.get(DeviceType::CUDA)(g, x, off, m, n, gcols, gin, goff,
                                                              gm);
    }
    check("deform bwd input", gin, xr.grad(), 1e-12);
    check("deform bwd offset", goff, offr.grad(), 1e-12);
    check("deform bwd mask", gm, mr.grad(), 1e-12);
  }
  {
    // nms: the overlap bit matrix (64x64 tiles, one word per thread) against IoU computed here
    // with the CPU's expression; 150 boxes span three 64-box words.
    for (DType dt : {DType::Float32, DType::Float64}) {
      Tensor xy = mul(rnd({150, 2}, 21), 100.0), wh = add(mul(rnd({150, 2}, 22), 40.0), 1.0);
      Tensor boxes = to_dtype(contiguous(cat({xy, add(xy, wh)}, 1)), dt);
      const double thr = 0.3;
      Tensor mask = vision::ops::nms_mask_kernel.get(DeviceType::CUDA)(boxes, thr);
      const int64_t* m = mask.data<int64_t>();
      const int64_t words = mask.size(1);
      bool ok = words == 3;
      for (int64_t i = 0; i < 150 && ok; ++i)
        for (int64_t j = i + 1; j < 150; ++j) {
          auto iou = [&](auto tag) {
            using T = decltype(tag);
            const T* p = static_cast<const T*>(boxes.data_ptr());
            const T *a = p + i * 4, *c = p + j * 4;
            T w = std::max(T(0), std::min(a[2], c[2]) - std::max(a[0], c[0]));
            T h = std::max(T(0), std::min(a[3], c[3]) - std::max(a[1], c[1]));
            T inter = w * h, area_a = (a[2] - a[0]) * (a[3] - a[1]);
            T area_c = (c[2] - c[0]) * (c[3] - c[1]);
            return inter / ((area_a + area_c) - inter) > T(thr);
          };
          const bool expect = dt == DType::Float32 ? iou(float{}) : iou(double{});
          const bool bit = (uint64_t(m[i * words + j / 64]) >> (j % 64)) & 1;
          ok = ok && bit == expect;
        }
      std::printf("%-40s %s\n", "nms mask", ok ? "ok" : "MISMATCH");
      fails += !ok;
    }
  }
  {
    // resize passes with hand-made windows, against the weighted sums computed here (the CPU
    // front end's weight tables are internal to resize.cpp).
    namespace vc = vision::kernels;
    Tensor src = rnd({2, 5, 4}, 23);  // planes 2, in_h 5, width 4
    vk::ResizeAxis ax{from_vector<int64_t>({0, 2, 3}, {3}),
                      from_vector<double>({0.25, 0.75, 0.5, 0.5, 1.0, 0.0}, {6}), 2};
    Tensor v = empty({2, 3, 4}, TensorOptions(DType::Float64));
    vk::resize_vertical_kernel.get(DeviceType::CUDA)(src, 2, 5, 4, v, 3, ax);
    Tensor expect_v = empty({2, 3, 4}, TensorOptions(DType::Float64));
    const double* sp = src.data<double>();
    const int64_t st[3] = {0, 2, 3};
    const double wv[6] = {0.25, 0.75, 0.5, 0.5, 1.0, 0.0};
    for (int p = 0; p < 2; ++p)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x)
          expect_v.data<double>()[(p * 3 + y) * 4 + x] =
              wv[y * 2] * sp[(p * 5 + st[y]) * 4 + x] +
              wv[y * 2 + 1] * sp[(p * 5 + st[y] + 1) * 4 + x];
    check("resize vertical", v, expect_v, 1e-15);
    Tensor rows = reshape(src, {10, 4});
    vk::ResizeAxis ah{from_vector<int64_t>({0, 1, 2}, {3}),
                      from_vector<double>({0.25, 0.75, 0.5, 0.5, 1.0, 0.0}, {6}), 2};
    Tensor h = empty({10, 3}, TensorOptions(DType::Float64));
    vk::resize_horizontal_kernel.get(DeviceType::CUDA)(rows, 10, 4, h, 3, ah);
    Tensor expect_h = empty({10, 3}, TensorOptions(DType::Float64));
    for (int r = 0; r < 10; ++r)
      for (int x = 0; x < 3; ++x)
        expect_h.data<double>()[r * 3 + x] =
            wv[x * 2] * sp[r * 4 + x] + wv[x * 2 + 1] * sp[r * 4 + x + 1];
    check("resize horizontal", h, expect_h, 1e-15);
    // uint8 in 22-bit fixed point: weights summing to 1 << 22 reproduce a constant row.
    Tensor u = full({1, 6}, Scalar(int64_t(77)), TensorOptions(DType::UInt8));
    vk::ResizeAxis au{from_vector<int64_t>({0, 2, 4}, {3}),
                      from_vector<int32_t>({1 << 20, 3 << 20, 1 << 21, 1 << 21, 1 << 22, 0}, {6}),
                      2};
    Tensor uo = empty({1, 3}, TensorOptions(DType::UInt8));
    vk::resize_horizontal_kernel.get(DeviceType::CUDA)(u, 1, 6, uo, 3, au);
    check("resize horizontal uint8", uo,
          full({1, 3}, Scalar(int64_t(77)), TensorOptions(DType::UInt8)), 0);
    Tensor n = empty({2, 2, 3}, TensorOptions(DType::Float64));
    vk::resize_nearest_kernel.get(DeviceType::CUDA)(src, 2, 5, 4, n, 2, 3,
                                                    from_vector<int64_t>({4, 1}, {2}),
                                                    from_vector<int64_t>({3, 0, 2}, {3}));
    Tensor expect_n = index_select(index_select(src, 1, from_vector<int64_t>({4, 1}, {2})), 2,
                                   from_vector<int64_t>({3, 0, 2}, {3}));
    check("resize nearest", n, expect_n, 0);
    Tensor f = from_vector<float>({-3.f, 0.5f, 1.5f, 2.5f, 254.5f, 300.f}, {6});
    Tensor r8 = empty({6}, TensorOptions(DType::UInt8));
    vk::round_to_uint8_kernel.get(DeviceType::CUDA)(f, r8);
    check("round_to_uint8", r8, from_vector<uint8_t>({0, 0, 2, 2, 254, 255}, {6}), 0);
  }
  {
    // random.cu against the CPU fills: the same (seed, offset) and stream layout, so uniform,
    // bernoulli and integer values match bit for bit and normal / exponential to rounding.
    // n = 1000 + 3 also covers a partial last group.
    auto fill = [](DeviceType dev, DType dt, RandomArgs a) {
      Tensor t = empty({1003}, TensorOptions(dt));
      random_fill_kernel.get(dev)(t, a, PhiloxState{1234567, 89});
      return t;
    };
    const DType dts[] = {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16};
    for (DType dt : dts) {
      RandomArgs a;
      a.dist = RandomDist::Uniform;
      a.a = -2;
      a.b = 3;
      check("random uniform", fill(DeviceType::CUDA, dt, a), fill(DeviceType::CPU, dt, a), 0);
      a.dist = RandomDist::Normal;
      a.a = 0.5;
      a.b = 2;
      check("random normal", fill(DeviceType::CUDA, dt, a), fill(DeviceType::CPU, dt, a),
            dt == DType::Float64 ? 1e-14 : 1e-6);
      a.dist = RandomDist::Exponential;
      a.a = 1.5;
      check("random exponential", fill(DeviceType::CUDA, dt, a), fill(DeviceType::CPU, dt, a),
            dt == DType::Float64 ? 1e-14 : 1e-6);
      a.dist = RandomDist::Bernoulli;
      a.a = 0.3;
      check("random bernoulli", fill(DeviceType::CUDA, dt, a), fill(DeviceType::CPU, dt, a), 0);
    }
    for (DType dt : {DType::Int64, DType::UInt8, DType::Float32}) {
      RandomArgs a;
      a.dist = RandomDist::Integer;
      a.lo = -7;
      a.range = dt == DType::UInt8 ? 200 : 1000003;
      if (dt == DType::UInt8) a.lo = 0;
      check("random integer", fill(DeviceType::CUDA, dt, a), fill(DeviceType::CPU, dt, a), 0);
    }
    Tensor probs = contiguous(rand({1003}, std::make_shared<Generator>(Device(), 5), {}));
    probs = to_dtype(probs, DType::Float64);
    Tensor bc = empty({1003}), bg = empty({1003});
    bernoulli_tensor_kernel.get(DeviceType::CPU)(bc, probs, PhiloxState{7, 3});
    bernoulli_tensor_kernel.get(DeviceType::CUDA)(bg, probs, PhiloxState{7, 3});
    check("random bernoulli(p tensor)", bg, bc, 0);
  }
  std::printf("%d mismatches\n", fails);
  return fails != 0;
}
