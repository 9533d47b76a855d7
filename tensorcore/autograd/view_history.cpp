#include "tensorcore/autograd/view_history.h"

#include "tensorcore/autograd/function.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/ops/elementwise.h"
#include "tensorcore/ops/shape.h"

namespace tc::autograd {
namespace {

// Where a view sits inside its base's storage, and the base's own layout, in units of the real
// scalar type: a complex tensor counts as its [..., 2] real view, so views that change dtype
// between complex and real (real, imag, view_as_real, view_as_complex) and their base share one
// coordinate system.
struct ViewGeometry {
  DType base_dtype, view_dtype;
  Shape base_sizes, base_strides;
  int64_t base_offset = 0;
  Shape view_sizes, view_strides;
  int64_t view_offset = 0;
  int64_t storage_numel = 0;

  static void real_units(const Tensor& t, Shape& sizes, Shape& strides, int64_t& offset) {
    sizes = t.sizes();
    strides = t.strides();
    offset = t.storage_offset();
    if (!is_complex(t.dtype())) return;
    for (auto& st : strides) st *= 2;
    sizes.push_back(2);
    strides.push_back(1);
    offset *= 2;
  }

  ViewGeometry(const Tensor& base, const Tensor& view)
      : base_dtype(base.dtype()), view_dtype(view.dtype()) {
    real_units(base, base_sizes, base_strides, base_offset);
    real_units(view, view_sizes, view_strides, view_offset);
    storage_numel = int64_t(base.storage()->nbytes / itemsize(to_real(base_dtype)));
  }
};

// Whether a view of dtype `view` can route in-place history to a base of dtype `base`.
bool same_scalars(DType base, DType view) {
  return base == view || (is_complex(base) && to_real(base) == view) ||
         (is_complex(view) && to_real(view) == base);
}

Tensor as_real_units(const Tensor& t) { return is_complex(t.dtype()) ? view_as_real(t) : t; }
Tensor from_real_units(const Tensor& r, DType dtype) {
  return is_complex(dtype) ? view_as_complex(contiguous(r)) : r;
}

Tensor strided_region_real(const Tensor& g, const std::shared_ptr<ViewGeometry>& geo);

// Base-shaped zeros (real units) with `x` written where the view sits. Differentiable (its vjp
// is strided_region_real), so double backward through CopySlices works.
Tensor strided_embed_real(const Tensor& x, const std::shared_ptr<ViewGeometry>& geo) {
  Tensor flat = zeros({geo->storage_numel}, TensorOptions(x.dtype()).device(x.device()));
  {
    NoGradGuard ng;
    Tensor region = as_strided(flat, geo->view_sizes, geo->view_strides, geo->view_offset);
    copy_(region, x);
  }
  Tensor out = contiguous(as_strided(flat, geo->base_sizes, geo->base_strides, geo->base_offset));
  if (needs_grad({x}))
    record("StridedEmbedBackward", {x}, {out}, {},
           [geo](const TensorList&, const TensorList& g) -> TensorList {
             return {strided_region_real(g[0], geo)};
           });
  return out;
}

// The view's region of a base-shaped tensor `g` (real units), as a new tensor.
Tensor strided_region_real(const Tensor& g, const std::shared_ptr<ViewGeometry>& geo) {
  Tensor flat = zeros({geo->storage_numel}, TensorOptions(g.dtype()).device(g.device()));
  Tensor out;
  {
    NoGradGuard ng;
    Tensor base_view = as_strided(flat, geo->base_sizes, geo->base_strides, geo->base_offset);
    copy_(base_view, g);
    out = contiguous(as_strided(flat, geo->view_sizes, geo->view_strides, geo->view_offset));
  }
  if (needs_grad({g}))
    record("StridedRegionBackward", {g}, {out}, {},
           [geo](const TensorList&, const TensorList& gg) -> TensorList {
             return {strided_embed_real(gg[0], geo)};
           });
  return out;
}

// The same two in the dtypes of the view (x) and of the base (result / g).
Tensor strided_embed(const Tensor& x, const std::shared_ptr<ViewGeometry>& geo) {
  return from_real_units(strided_embed_real(as_real_units(to_dtype(x, geo->view_dtype)), geo),
                         geo->base_dtype);
}
Tensor strided_region(const Tensor& g, const std::shared_ptr<ViewGeometry>& geo) {
  return from_real_units(strided_region_real(as_real_units(to_dtype(g, geo->base_dtype)), geo),
                         geo->view_dtype);
}

// `g` with the view's region overwritten by `x` (zeros where `x` is undefined), not differentiable.
// Overwriting keeps an inf/NaN of `g` inside the region from leaking into the result, as the
// subtractive form below would (inf - inf), and matches torch's CopySlices.
Tensor overwrite_region(const Tensor& g, const Tensor& x,
                        const std::shared_ptr<ViewGeometry>& geo) {
  NoGradGuard ng;
  Tensor g_real = as_real_units(to_dtype(g, geo->base_dtype));
  Tensor flat = zeros({geo->storage_numel}, TensorOptions(g_real.dtype()).device(g_real.device()));
  copy_(as_strided(flat, geo->base_sizes, geo->base_strides, geo->base_offset), g_real);
  Tensor region = as_strided(flat, geo->view_sizes, geo->view_strides, geo->view_offset);
  if (x.defined())
    copy_(region, as_real_units(to_dtype(x, geo->view_dtype)));
  else
    fill_(region, 0);
  Tensor out = contiguous(as_strided(flat, geo->base_sizes, geo->base_strides, geo->base_offset));
  return from_real_units(out, geo->base_dtype);
}

struct CopySlices final : Node {
  CopySlices(std::shared_ptr<FunctionNode> op, std::vector<size_t> self_slots,
             std::shared_ptr<ViewGeometry> geo)
      : op_(std::move(op)), self_slots_(std::move(self_slots)), geo_(std::move(geo)) {}

  std::string name() const override { return "CopySlices"; }
  void release_saved() override { op_->release_saved(); }

  // next_edges: [base's previous history, then the op's inputs other than the view itself].
  TensorList apply(TensorList&& grads) override {
    TensorList out(next_edges.size());
    const Tensor& g = grads[0];
    if (!g.defined()) return out;
    Tensor region_grad = strided_region(g, geo_);
    TensorList op_grads = op_->apply({region_grad});
    Tensor self_grad;
    for (size_t slot : self_slots_) {
      const Tensor& sg = op_grads[slot];
      if (sg.defined()) self_grad = self_grad.defined() ? add(self_grad, sg) : sg;
    }
    // The region's gradient is replaced by what flows to the view's old value. With a graph to
    // build (double backward) the replacement must be differentiable, hence the subtractive form.
    Tensor base_grad;
    if (needs_grad({g}) || (self_grad.defined() && needs_grad({self_grad}))) {
      base_grad = sub(g, strided_embed(region_grad, geo_));
      if (self_grad.defined()) base_grad = add(base_grad, strided_embed(self_grad, geo_));
    } else {
      base_grad = overwrite_region(g, self_grad, geo_);
    }
    out[0] = match_input_meta(base_grad, input_meta[0]);
    size_t k = 1;
    for (size_t i = 0; i < op_grads.size(); ++i) {
      if (std::find(self_slots_.begin(), self_slots_.end(), i) != self_slots_.end()) continue;
      out[k++] = op_grads[i];
    }
    return out;
  }

 private:
  std::shared_ptr<FunctionNode> op_;
  std::vector<size_t> self_slots_;
  std::shared_ptr<ViewGeometry> geo_;
};

}  // namespace

void bump_history(const Tensor& t) { t.ensure_autograd_meta().history_version++; }

bool rebase_view_history(const Tensor& out, const std::shared_ptr<FunctionNode>& op,
                         const TensorList& inputs, const std::vector<size_t>& self_slots) {
  const auto& root = out.impl()->view_base;
  if (!root || !same_scalars(root->dtype, out.dtype())) return false;
  Tensor base(root);
  // An op may return a view of its own scratch buffer (mm squeezes a bmm result) and record
  // its history on the view. The buffer is outside the graph while the view is inside it: the
  // result is no view for autograd, and rebasing onto the buffer would cut the op's history.
  const auto* vm = out.autograd_meta();
  if (!base.requires_grad() && vm && vm->grad_fn) {
    out.impl()->view_base.reset();
    return false;
  }
  auto cs = std::make_shared<CopySlices>(op, self_slots, std::make_shared<ViewGeometry>(base, out));
  TensorList cs_inputs{base};
  for (size_t i = 0; i < inputs.size(); ++i)
    if (std::find(self_slots.begin(), self_slots.end(), i) == self_slots.end())
      cs_inputs.push_back(inputs[i]);
  cs->connect_inputs(cs_inputs);  // base's edge is still its old history here
  cs->input_meta[0] = InputMeta{base.sizes(), base.dtype(), base.device()};
  auto& bm = base.ensure_autograd_meta();
  bm.grad_fn = cs;
  bm.output_nr = 0;
  bm.requires_grad = true;
  bm.history_version++;
  refresh_view_history(out);
  return true;
}

void refresh_view_history(const Tensor& view) {
  const auto& root = view.impl()->view_base;
  if (!root || !root->autograd) return;
  const uint32_t version = root->autograd->history_version;
  if (version == 0) return;
  auto& vm = view.ensure_autograd_meta();
  if (vm.base_history_seen == version) return;
  vm.base_history_seen = version;
  Tensor base(root);
  if (!base.requires_grad() || !same_scalars(root->dtype, view.dtype())) return;
  auto geo = std::make_shared<ViewGeometry>(base, view);
  auto node = std::make_shared<FunctionNode>(
      "AsStridedBackward0", [geo](const TensorList&, const TensorList& g) -> TensorList {
        return {strided_embed(g[0], geo)};
      });
  node->connect_inputs({base});
  node->output_meta.push_back({view.sizes(), view.dtype(), view.device()});
  vm.grad_fn = node;
  vm.output_nr = 0;
  vm.requires_grad = true;
}

}  // namespace tc::autograd
