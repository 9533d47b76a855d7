// oneDNN matmul for bfloat16 (see gemm_bf16.h). Primitives are cached per shape and strides:
// creating one costs far more than a small product.
#include "tensorcore/kernels/cpu/gemm_bf16.h"

#include "tensorcore/ops/copy.h"

#ifdef TC_WITH_DNNL
#include <dnnl.hpp>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#endif

namespace tc {

#ifdef TC_WITH_DNNL
namespace {

using dnnl::memory;
using Key = std::array<int64_t, 12>;  // shapes, strides, output dtype

struct Entry {
  std::optional<dnnl::matmul> prim;  // empty: oneDNN offers no fast kernel for this case
  memory::desc a_md, b_md, c_md;
};

dnnl::engine& engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

memory::desc strided(int64_t batch, int64_t rows, int64_t cols, int64_t bs, int64_t rs,
                     int64_t cs) {
  // A size-1 dim's stride is irrelevant (torch leaves it arbitrary): give oneDNN sane ones.
  if (rows == 1) rs = cols * cs;
  if (cols == 1) cs = 1;
  if (batch == 1) bs = (rows - 1) * rs + (cols - 1) * cs + 1;
  return memory::desc({batch, rows, cols}, memory::data_type::bf16, {bs, rs, cs});
}

Entry make_entry(const Key& k) {
  Entry e;
  e.a_md = strided(k[0], k[2], k[3], k[5], k[6], k[7]);
  e.b_md = strided(k[1], k[3], k[4], k[8], k[9], k[10]);
  int64_t batch = std::max(k[0], k[1]);
  const auto out_type = k[11] ? memory::data_type::f32 : memory::data_type::bf16;
  e.c_md = memory::desc({batch, k[2], k[4]}, out_type, memory::format_tag::abc);
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(e.a_md, e.b_md, e.c_md), engine());
    // A reference (scalar) implementation would be slower than our float32 path.
    if (std::string(pd.impl_info_str()).rfind("ref", 0) != 0) e.prim.emplace(pd);
  } catch (const dnnl::error&) {
  }
  return e;
}

std::mutex cache_mu;
// Entries are shared: a thread keeps its entry alive while another clears the cache.
std::map<Key, std::shared_ptr<const Entry>>& cache() {
  static std::map<Key, std::shared_ptr<const Entry>> c;
  return c;
}

}  // namespace

bool bmm_bf16_dnnl(const Tensor& out, const Tensor& a_in, const Tensor& b_in) {
  if (a_in.dtype() != DType::BFloat16 || b_in.dtype() != DType::BFloat16 || !out.is_contiguous() ||
      (out.dtype() != DType::BFloat16 && out.dtype() != DType::Float32))
    return false;
  // oneDNN mishandles zero strides (expanded operands): pack those first.
  auto packed = [](const Tensor& t) {
    for (int64_t d = 0; d < 3; ++d)
      if (t.stride(d) <= 0 && t.size(d) > 1) return contiguous(t);
    return t;
  };
  const Tensor a = packed(a_in), b = packed(b_in);
  const int64_t M = a.size(1), K = a.size(2), N = b.size(2);
  const int64_t Ba = a.size(0), Bb = b.size(0);
  Key key{Ba,          Bb,          M,           K,
          N,           a.stride(0), a.stride(1), a.stride(2),
          b.stride(0), b.stride(1), b.stride(2), out.dtype() == DType::Float32};
  std::shared_ptr<const Entry> e;
  {
    std::lock_guard<std::mutex> lock(cache_mu);
    auto& c = cache();
    if (c.size() > 512) c.clear();
    auto it = c.find(key);
    if (it == c.end()) it = c.emplace(key, std::make_shared<const Entry>(make_entry(key))).first;
    e = it->second;
  }
  if (!e->prim) return false;
  dnnl::stream s(engine());
  memory am(e->a_md, engine(), a.data_ptr()), bm(e->b_md, engine(), b.data_ptr());
  memory cm(e->c_md, engine(), out.data_ptr());
  e->prim->execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  s.wait();
  return true;
}

#else

bool bmm_bf16_dnnl(const Tensor&, const Tensor&, const Tensor&) { return false; }

#endif

}  // namespace tc
