// float32 and bfloat16 convolution through oneDNN. Primitives (and the reorders around them) are
// built once per geometry and dtype, and cached; a weight reordered into oneDNN's blocked layout is
// kept with the entry and reused while the same weight storage is unmodified (same version
// counter), so inference loops never re-reorder weights.
#ifdef TC_WITH_DNNL
#include <dnnl.hpp>

#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tensorcore/nn/conv_internal.h"
#include "tensorcore/ops/creation.h"

namespace tc::nn::detail {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

dnnl::engine& cpu_engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

tag plain_act_tag(int nd) { return nd == 1 ? tag::ncw : nd == 2 ? tag::nchw : tag::ncdhw; }
tag plain_wei_tag(int nd, bool grouped) {
  if (grouped) return nd == 1 ? tag::goiw : nd == 2 ? tag::goihw : tag::goidhw;
  return nd == 1 ? tag::oiw : nd == 2 ? tag::oihw : tag::oidhw;
}

memory::dims to_dims(const Shape& s) { return memory::dims(s.begin(), s.end()); }

dt data_type(const ConvGeometry& g) { return g.dtype == DType::BFloat16 ? dt::bf16 : dt::f32; }

// A reference (scalar) oneDNN kernel is far slower than our fallbacks: decline it (bfloat16 on
// CPUs without bf16 instructions), so the caller takes the float32 path.
template <typename PD>
void require_fast(const PD& pd) {
  if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0)
    throw dnnl::error(dnnl_unimplemented, "oneDNN offers only a reference convolution here");
}

// A reorder from `from` to `to`, or nothing when the layouts already agree.
std::optional<dnnl::reorder> make_reorder(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  return dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to));
}

// A weight already reordered into a primitive's layout, valid while its source is unchanged.
struct CachedWeight {
  std::weak_ptr<StorageImpl> storage;
  int64_t offset = -1;
  uint32_t version = 0;
  std::optional<memory> mem;
  bool same_source(const Tensor& w) const {
    auto s = storage.lock();
    return s && s == w.storage() && offset == w.storage_offset();
  }
  bool matches(const Tensor& w) const { return mem && same_source(w) && version == w.version(); }
  void remember(const Tensor& w, memory m) {
    storage = w.storage();
    offset = w.storage_offset();
    version = w.version();
    mem = std::move(m);
  }
};

// The reordered weights of one primitive, one per weight tensor: the blocks of a network often
// share a geometry (ResNet-50's layer3 has five identical 3x3 convolutions), and one slot per
// geometry made them evict each other, so every call reordered their weights again.
struct WeightCache {
  static constexpr size_t kSlots = 32;
  std::list<CachedWeight> slots;  // most recently used first
  CachedWeight& slot_for(const Tensor& w) {
    for (auto it = slots.begin(); it != slots.end();) {
      if (it->same_source(w)) {
        slots.splice(slots.begin(), slots, it);
        return slots.front();
      }
      it = it->storage.expired() ? slots.erase(it) : std::next(it);
    }
    if (slots.size() >= kSlots) slots.pop_back();
    slots.emplace_front();
    return slots.front();
  }
};

struct ConvEntry {
  memory::desc src_plain, wei_plain, dst_plain, bias_md;
  dnnl::convolution_forward::primitive_desc fwd_pd;
  dnnl::convolution_forward fwd;
  std::optional<dnnl::reorder> fwd_src_in, fwd_wei_in, fwd_dst_out;
  memory::desc res_plain;                   // the residual as the caller holds it
  std::optional<dnnl::reorder> fwd_dst_in;  // the residual into dst's layout (sum post-op)
  WeightCache fwd_weight;

  bool has_bwd_data = false;
  dnnl::convolution_backward_data::primitive_desc bwd_data_pd;
  dnnl::convolution_backward_data bwd_data;
  std::optional<dnnl::reorder> bd_dst_in, bd_wei_in, bd_src_out;

  bool has_bwd_weights = false;
  dnnl::convolution_backward_weights::primitive_desc bwd_w_pd;
  dnnl::convolution_backward_weights bwd_w;
  std::optional<dnnl::reorder> bw_src_in, bw_dst_in, bw_wei_out;

  std::mutex mu;  // the cached weights are per entry
};

struct ConvDescs {
  memory::dims strides, dilation, pad_l, pad_r;
};

ConvDescs descs_of(const ConvGeometry& g) {
  ConvDescs d;
  d.strides = to_dims(g.stride);
  for (auto v : g.dilation) d.dilation.push_back(v - 1);  // oneDNN counts dilation from 0
  d.pad_l = to_dims(g.pad_l);
  d.pad_r = to_dims(g.pad_r);
  return d;
}

Shape dnnl_weight_dims(const ConvGeometry& g) {
  Shape w = g.weight_shape();
  if (g.groups == 1) return w;
  Shape r = {g.groups, g.out_channels / g.groups};
  r.insert(r.end(), w.begin() + 1, w.end());
  return r;
}

// What a forward entry is built for besides the geometry: post-ops (a residual summed into dst, a
// ReLU), and channels-last (NHWC) memory for the caller's input, output and residual.
struct FwdVariant {
  bool sum = false, relu = false;
  bool src_cl = false, dst_cl = false, res_cl = false;
  bool fused() const { return sum || relu || src_cl || dst_cl; }
  std::string key() const {
    return std::string(sum ? "s" : "") + (relu ? "r" : "") + (src_cl ? "X" : "") +
           (dst_cl ? "Y" : "") + (res_cl ? "R" : "");
  }
};

// Bias is always part of the forward primitive key so one entry serves both. A fused variant is
// an inference primitive, never used for backward; with NHWC memory on either side it computes
// in NHWC (oneDNN's inference kernels for this layout need no reorder around them).
std::shared_ptr<ConvEntry> make_entry(const ConvGeometry& g, bool with_bias,
                                      const FwdVariant& v = {}) {
  auto e = std::make_shared<ConvEntry>();
  auto& eng = cpu_engine();
  ConvDescs d = descs_of(g);
  auto src_dims = to_dims(g.input_shape()), dst_dims = to_dims(g.output_shape());
  auto wei_dims = to_dims(dnnl_weight_dims(g));
  const tag plain = plain_act_tag(g.nd);
  e->src_plain = memory::desc(src_dims, data_type(g), v.src_cl ? tag::nhwc : plain);
  e->dst_plain = memory::desc(dst_dims, data_type(g), v.dst_cl ? tag::nhwc : plain);
  e->wei_plain = memory::desc(wei_dims, data_type(g), plain_wei_tag(g.nd, g.groups > 1));
  e->bias_md = memory::desc({g.out_channels}, data_type(g), tag::x);
  const tag act = g.nd == 2 && (v.src_cl || v.dst_cl) ? tag::nhwc : tag::any;
  memory::desc src_any(src_dims, data_type(g), act), dst_any(dst_dims, data_type(g), act),
      wei_any(wei_dims, data_type(g), tag::any);
  const bool fused = v.fused();
  const auto prop = fused ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
  auto fd = with_bias ? dnnl::convolution_forward::desc(prop, dnnl::algorithm::convolution_direct,
                                                        src_any, wei_any, e->bias_md, dst_any,
                                                        d.strides, d.dilation, d.pad_l, d.pad_r)
                      : dnnl::convolution_forward::desc(prop, dnnl::algorithm::convolution_direct,
                                                        src_any, wei_any, dst_any, d.strides,
                                                        d.dilation, d.pad_l, d.pad_r);
  if (fused) {
    dnnl::post_ops ops;
    if (v.sum) ops.append_sum(1.f);  // dst = conv + bias + dst (the residual placed there first)
    if (v.relu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    e->fwd_pd = dnnl::convolution_forward::primitive_desc(fd, attr, eng);
  } else {
    e->fwd_pd = dnnl::convolution_forward::primitive_desc(fd, eng);
  }
  if (g.dtype == DType::BFloat16) require_fast(e->fwd_pd);
  e->fwd = dnnl::convolution_forward(e->fwd_pd);
  e->fwd_src_in = make_reorder(e->src_plain, e->fwd_pd.src_desc());
  e->fwd_wei_in = make_reorder(e->wei_plain, e->fwd_pd.weights_desc());
  e->fwd_dst_out = make_reorder(e->fwd_pd.dst_desc(), e->dst_plain);
  if (v.sum) {
    e->res_plain = memory::desc(dst_dims, data_type(g), v.res_cl ? tag::nhwc : plain);
    e->fwd_dst_in = make_reorder(e->res_plain, e->fwd_pd.dst_desc());
  }
  return e;
}

struct EntryCache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<ConvEntry>> map;
  std::list<std::string> order;  // oldest first; bounded so odd shapes cannot grow it forever
  static constexpr size_t kCapacity = 256;
};

std::shared_ptr<ConvEntry> get_entry(const ConvGeometry& g, bool with_bias,
                                     const FwdVariant& v = {}) {
  static EntryCache cache;
  std::string key = g.key() + (with_bias ? "b" : "n") + v.key();
  std::lock_guard<std::mutex> lock(cache.mu);
  auto it = cache.map.find(key);
  if (it != cache.map.end()) return it->second;
  auto e = make_entry(g, with_bias, v);
  cache.map.emplace(key, e);
  cache.order.push_back(key);
  if (cache.order.size() > EntryCache::kCapacity) {
    cache.map.erase(cache.order.front());
    cache.order.pop_front();
  }
  return e;
}

// Buffers in oneDNN's layouts for one call (reordered inputs, outputs before their reorder
// back) come from our allocator, held until the stream is done, instead of oneDNN's own
// malloc: they reuse the allocator's cached blocks rather than fresh pages (a ResNet-50 step
// reorders every activation), and they count in the live bytes the cache bounds itself by.
struct CallBuffers {
  std::vector<Tensor> held;
  memory make(const memory::desc& d) {
    held.push_back(empty({int64_t(d.get_size())}, TensorOptions(DType::UInt8)));
    return memory(d, cpu_engine(), held.back().data_ptr());
  }
};

// Runs `r` (if any) from user memory into a fresh memory of the primitive's layout.
memory prepare_input(const std::optional<dnnl::reorder>& r, memory user, const memory::desc& want,
                     dnnl::stream& s, CallBuffers& bufs) {
  if (!r) return user;
  memory m = bufs.make(want);
  r->execute(s, user, m);
  return m;
}

// The weight in the forward primitive's layout. Inference keeps one copy per weight; a training
// step (TrainingWeightScope) changes the weight before its next use, so it is reordered per call
// like the activations. Backward passes, training only, reorder theirs per call directly.
memory weight_for(WeightCache& weights, const std::optional<dnnl::reorder>& r, const Tensor& w,
                  const memory::desc& plain, const memory::desc& want, dnnl::stream& s,
                  CallBuffers& bufs) {
  memory user(plain, cpu_engine(), w.data_ptr());
  if (!r || TrainingWeightScope::active()) return prepare_input(r, user, want, s, bufs);
  CachedWeight& cache = weights.slot_for(w);
  if (cache.matches(w)) return *cache.mem;
  memory m(want, cpu_engine());
  r->execute(s, user, m);
  s.wait();
  cache.remember(w, m);
  return m;
}

// Lazily builds the backward primitives of an entry (caller holds e.mu).
void ensure_bwd_data(ConvEntry& entry, const ConvGeometry& g) {
  ConvEntry* e = &entry;
  auto& eng = cpu_engine();
  if (!e->has_bwd_data) {
    ConvDescs d = descs_of(g);
    memory::desc src_any(e->src_plain.dims(), data_type(g), tag::any),
        dst_any(e->dst_plain.dims(), data_type(g), tag::any),
        wei_any(e->wei_plain.dims(), data_type(g), tag::any);
    dnnl::convolution_backward_data::desc bd(dnnl::algorithm::convolution_direct, src_any, wei_any,
                                             dst_any, d.strides, d.dilation, d.pad_l, d.pad_r);
    e->bwd_data_pd = dnnl::convolution_backward_data::primitive_desc(bd, eng, e->fwd_pd);
    if (g.dtype == DType::BFloat16) require_fast(e->bwd_data_pd);
    e->bwd_data = dnnl::convolution_backward_data(e->bwd_data_pd);
    e->bd_dst_in = make_reorder(e->dst_plain, e->bwd_data_pd.diff_dst_desc());
    e->bd_wei_in = make_reorder(e->wei_plain, e->bwd_data_pd.weights_desc());
    e->bd_src_out = make_reorder(e->bwd_data_pd.diff_src_desc(), e->src_plain);
    e->has_bwd_data = true;
  }
}

void ensure_bwd_weights(ConvEntry& entry, const ConvGeometry& g, bool with_bias) {
  ConvEntry* e = &entry;
  auto& eng = cpu_engine();
  if (!e->has_bwd_weights) {
    ConvDescs d = descs_of(g);
    memory::desc src_any(e->src_plain.dims(), data_type(g), tag::any),
        dst_any(e->dst_plain.dims(), data_type(g), tag::any),
        wei_any(e->wei_plain.dims(), data_type(g), tag::any);
    auto wd = with_bias ? dnnl::convolution_backward_weights::desc(
                              dnnl::algorithm::convolution_direct, src_any, wei_any, e->bias_md,
                              dst_any, d.strides, d.dilation, d.pad_l, d.pad_r)
                        : dnnl::convolution_backward_weights::desc(
                              dnnl::algorithm::convolution_direct, src_any, wei_any, dst_any,
                              d.strides, d.dilation, d.pad_l, d.pad_r);
    e->bwd_w_pd = dnnl::convolution_backward_weights::primitive_desc(wd, eng, e->fwd_pd);
    if (g.dtype == DType::BFloat16) require_fast(e->bwd_w_pd);
    e->bwd_w = dnnl::convolution_backward_weights(e->bwd_w_pd);
    e->bw_src_in = make_reorder(e->src_plain, e->bwd_w_pd.src_desc());
    e->bw_dst_in = make_reorder(e->dst_plain, e->bwd_w_pd.diff_dst_desc());
    e->bw_wei_out = make_reorder(e->bwd_w_pd.diff_weights_desc(), e->wei_plain);
    e->has_bwd_weights = true;
  }
}

}  // namespace

bool dnnl_conv_available(const ConvGeometry& g) {
  // oneDNN needs every output dim positive and no empty batch.
  if (g.batch == 0) return false;
  for (auto v : g.output)
    if (v <= 0) return false;
  return true;
}

Tensor conv_forward_dnnl(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g,
                         const ConvEpilogue* epi) {
  FwdVariant v;
  const Tensor* res = epi && epi->residual.defined() ? &epi->residual : nullptr;
  if (epi) {
    v.sum = res != nullptr;
    v.relu = epi->relu;
    v.src_cl = is_nhwc(x);
    v.res_cl = res && is_nhwc(*res);
    // Into the residual, the output is the residual, in its layout.
    v.dst_cl = res && epi->into_residual ? v.res_cl : g.nd == 2 && epi->channels_last;
  }
  auto e = get_entry(g, b.defined(), v);
  dnnl::stream s(cpu_engine());
  Tensor y;
  if (res && epi->into_residual) {
    y = *res;
  } else if (v.dst_cl) {
    const Shape z = g.output_shape();
    y = empty_strided(z, {z[1] * z[2] * z[3], 1, z[1] * z[3], z[1]}, TensorOptions(g.dtype));
  } else {
    y = empty(g.output_shape(), TensorOptions(g.dtype));
  }
  memory user_src(e->src_plain, cpu_engine(), x.data_ptr());
  memory user_dst(e->dst_plain, cpu_engine(), y.data_ptr());
  CallBuffers bufs;
  memory src = prepare_input(e->fwd_src_in, user_src, e->fwd_pd.src_desc(), s, bufs);
  std::lock_guard<std::mutex> lock(e->mu);
  memory wei =
      weight_for(e->fwd_weight, e->fwd_wei_in, w, e->wei_plain, e->fwd_pd.weights_desc(), s, bufs);
  memory dst = e->fwd_dst_out ? bufs.make(e->fwd_pd.dst_desc()) : user_dst;
  if (res) {
    // The sum post-op adds what dst holds: the residual, in dst's layout (already there when
    // the output is the residual itself).
    memory r(e->res_plain, cpu_engine(), res->data_ptr());
    if (e->fwd_dst_in)
      e->fwd_dst_in->execute(s, r, dst);
    else if (e->fwd_dst_out || !epi->into_residual)
      std::memcpy(dst.get_data_handle(), res->data_ptr(), size_t(y.nbytes()));
  }
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
  if (b.defined()) args.emplace(DNNL_ARG_BIAS, memory(e->bias_md, cpu_engine(), b.data_ptr()));
  e->fwd.execute(s, args);
  if (e->fwd_dst_out) e->fwd_dst_out->execute(s, dst, user_dst);
  s.wait();
  return y;
}

Tensor conv_backward_data_dnnl(const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  auto e = get_entry(g, false);
  std::lock_guard<std::mutex> lock(e->mu);
  auto& eng = cpu_engine();
  ensure_bwd_data(*e, g);
  dnnl::stream s(eng);
  Tensor gx = empty(g.input_shape(), TensorOptions(g.dtype));
  memory user_gy(e->dst_plain, eng, gy.data_ptr()), user_gx(e->src_plain, eng, gx.data_ptr());
  CallBuffers bufs;
  memory dst = prepare_input(e->bd_dst_in, user_gy, e->bwd_data_pd.diff_dst_desc(), s, bufs);
  memory wei = prepare_input(e->bd_wei_in, memory(e->wei_plain, eng, w.data_ptr()),
                             e->bwd_data_pd.weights_desc(), s, bufs);
  memory src = e->bd_src_out ? bufs.make(e->bwd_data_pd.diff_src_desc()) : user_gx;
  e->bwd_data.execute(
      s, {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, src}});
  if (e->bd_src_out) e->bd_src_out->execute(s, src, user_gx);
  s.wait();
  return gx;
}

std::pair<Tensor, Tensor> conv_backward_weight_dnnl(const Tensor& x, const Tensor& gy,
                                                    const ConvGeometry& g, bool with_bias) {
  // The forward hint must match the bias-ness of the backward-weights primitive.
  auto e = get_entry(g, with_bias);
  std::lock_guard<std::mutex> lock(e->mu);
  auto& eng = cpu_engine();
  ensure_bwd_weights(*e, g, with_bias);
  dnnl::stream s(eng);
  Tensor gw = empty(g.weight_shape(), TensorOptions(g.dtype));
  Tensor gb = with_bias ? empty({g.out_channels}, TensorOptions(g.dtype)) : Tensor();
  memory user_x(e->src_plain, eng, x.data_ptr()), user_gy(e->dst_plain, eng, gy.data_ptr()),
      user_gw(e->wei_plain, eng, gw.data_ptr());
  CallBuffers bufs;
  memory src = prepare_input(e->bw_src_in, user_x, e->bwd_w_pd.src_desc(), s, bufs);
  memory dst = prepare_input(e->bw_dst_in, user_gy, e->bwd_w_pd.diff_dst_desc(), s, bufs);
  memory wei = e->bw_wei_out ? bufs.make(e->bwd_w_pd.diff_weights_desc()) : user_gw;
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_DIFF_WEIGHTS, wei}};
  if (with_bias) args.emplace(DNNL_ARG_DIFF_BIAS, memory(e->bias_md, eng, gb.data_ptr()));
  e->bwd_w.execute(s, args);
  if (e->bw_wei_out) e->bw_wei_out->execute(s, wei, user_gw);
  s.wait();
  return {gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> conv_backward_dnnl(const Tensor& x, const Tensor& gy,
                                                      const Tensor& w, const ConvGeometry& g,
                                                      bool with_bias) {
  // Data and weight gradients share one reorder of grad_output when both primitives want the
  // same blocked layout (the common case).
  auto ed = get_entry(g, false);
  auto ew = with_bias ? get_entry(g, true) : ed;
  std::unique_lock<std::mutex> lock_d(ed->mu);
  std::unique_lock<std::mutex> lock_w;
  if (ew != ed) lock_w = std::unique_lock<std::mutex>(ew->mu);
  ensure_bwd_data(*ed, g);
  ensure_bwd_weights(*ew, g, with_bias);
  auto& eng = cpu_engine();
  dnnl::stream s(eng);
  Tensor gx = empty(g.input_shape(), TensorOptions(g.dtype));
  Tensor gw = empty(g.weight_shape(), TensorOptions(g.dtype));
  Tensor gb = with_bias ? empty({g.out_channels}, TensorOptions(g.dtype)) : Tensor();
  memory user_gy(ed->dst_plain, eng, gy.data_ptr()), user_gx(ed->src_plain, eng, gx.data_ptr()),
      user_x(ed->src_plain, eng, x.data_ptr()), user_gw(ed->wei_plain, eng, gw.data_ptr());
  CallBuffers bufs;
  memory dst_d = prepare_input(ed->bd_dst_in, user_gy, ed->bwd_data_pd.diff_dst_desc(), s, bufs);
  memory dst_w = ew->bwd_w_pd.diff_dst_desc() == ed->bwd_data_pd.diff_dst_desc()
                     ? dst_d
                     : prepare_input(ew->bw_dst_in, user_gy, ew->bwd_w_pd.diff_dst_desc(), s, bufs);
  memory wei = prepare_input(ed->bd_wei_in, memory(ed->wei_plain, cpu_engine(), w.data_ptr()),
                             ed->bwd_data_pd.weights_desc(), s, bufs);
  memory src_d = ed->bd_src_out ? bufs.make(ed->bwd_data_pd.diff_src_desc()) : user_gx;
  ed->bwd_data.execute(
      s, {{DNNL_ARG_DIFF_DST, dst_d}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, src_d}});
  if (ed->bd_src_out) ed->bd_src_out->execute(s, src_d, user_gx);
  memory src_w = prepare_input(ew->bw_src_in, user_x, ew->bwd_w_pd.src_desc(), s, bufs);
  memory dwei = ew->bw_wei_out ? bufs.make(ew->bwd_w_pd.diff_weights_desc()) : user_gw;
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src_w}, {DNNL_ARG_DIFF_DST, dst_w}, {DNNL_ARG_DIFF_WEIGHTS, dwei}};
  if (with_bias) args.emplace(DNNL_ARG_DIFF_BIAS, memory(ew->bias_md, eng, gb.data_ptr()));
  ew->bwd_w.execute(s, args);
  if (ew->bw_wei_out) ew->bw_wei_out->execute(s, dwei, user_gw);
  s.wait();
  return {gx, gw, gb};
}

}  // namespace tc::nn::detail

#else  // built without oneDNN: every convolution takes the im2col + GEMM path

#include <stdexcept>

#include "tensorcore/nn/conv_internal.h"

namespace tc::nn::detail {
namespace {
[[noreturn]] void no_dnnl() { throw std::logic_error("tensorcore was built without oneDNN"); }
}  // namespace
bool dnnl_conv_available(const ConvGeometry&) { return false; }
Tensor conv_forward_dnnl(const Tensor&, const Tensor&, const Tensor&, const ConvGeometry&,
                         const ConvEpilogue*) {
  no_dnnl();
}
Tensor conv_backward_data_dnnl(const Tensor&, const Tensor&, const ConvGeometry&) { no_dnnl(); }
std::pair<Tensor, Tensor> conv_backward_weight_dnnl(const Tensor&, const Tensor&,
                                                    const ConvGeometry&, bool) {
  no_dnnl();
}
std::tuple<Tensor, Tensor, Tensor> conv_backward_dnnl(const Tensor&, const Tensor&, const Tensor&,
                                                      const ConvGeometry&, bool) {
  no_dnnl();
}
}  // namespace tc::nn::detail

#endif  // TC_WITH_DNNL
