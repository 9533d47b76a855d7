// PyTorch 1.13's autocast op lists (aten/src/ATen/autocast_mode.cpp), by aten op name. Ops that
// tensorcore does not have are kept too, so the tables read as torch's and a new op only needs
// its TC_AUTOCAST line.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "tensorcore/amp/autocast.h"

namespace tc::amp {
namespace {

using P = CastPolicy;
struct Entry {
  const char* op;
  CastPolicy policy;
};

const Entry kCudaPolicies[] = {
    // lower_precision_fp
    {"_convolution", P::LowerPrecision},
    {"conv1d", P::LowerPrecision},
    {"conv2d", P::LowerPrecision},
    {"conv3d", P::LowerPrecision},
    {"conv_tbc", P::LowerPrecision},
    {"conv_transpose1d", P::LowerPrecision},
    {"conv_transpose2d", P::LowerPrecision},
    {"conv_transpose3d", P::LowerPrecision},
    {"convolution", P::LowerPrecision},
    {"cudnn_convolution", P::LowerPrecision},
    {"cudnn_convolution_transpose", P::LowerPrecision},
    {"prelu", P::LowerPrecision},
    {"addmm", P::LowerPrecision},
    {"addmv", P::LowerPrecision},
    {"addr", P::LowerPrecision},
    {"matmul", P::LowerPrecision},
    {"einsum", P::LowerPrecision},
    {"mm", P::LowerPrecision},
    {"mv", P::LowerPrecision},
    {"linear", P::LowerPrecision},
    {"addbmm", P::LowerPrecision},
    {"baddbmm", P::LowerPrecision},
    {"bmm", P::LowerPrecision},
    {"chain_matmul", P::LowerPrecision},
    {"linalg_multi_dot", P::LowerPrecision},
    {"_thnn_fused_lstm_cell", P::LowerPrecision},
    {"_thnn_fused_gru_cell", P::LowerPrecision},
    {"lstm_cell", P::LowerPrecision},
    {"gru_cell", P::LowerPrecision},
    {"rnn_tanh_cell", P::LowerPrecision},
    {"rnn_relu_cell", P::LowerPrecision},
    // fp32
    {"acos", P::Fp32},
    {"asin", P::Fp32},
    {"cosh", P::Fp32},
    {"erfinv", P::Fp32},
    {"exp", P::Fp32},
    {"expm1", P::Fp32},
    {"log", P::Fp32},
    {"log10", P::Fp32},
    {"log2", P::Fp32},
    {"log1p", P::Fp32},
    {"reciprocal", P::Fp32},
    {"rsqrt", P::Fp32},
    {"sinh", P::Fp32},
    {"tan", P::Fp32},
    {"pow", P::Fp32},
    {"softplus", P::Fp32},
    {"layer_norm", P::Fp32},
    {"native_layer_norm", P::Fp32},
    {"group_norm", P::Fp32},
    {"frobenius_norm", P::Fp32},
    {"nuclear_norm", P::Fp32},
    {"cosine_similarity", P::Fp32},
    {"poisson_nll_loss", P::Fp32},
    {"cosine_embedding_loss", P::Fp32},
    {"nll_loss", P::Fp32},
    {"nll_loss2d", P::Fp32},
    {"hinge_embedding_loss", P::Fp32},
    {"kl_div", P::Fp32},
    {"l1_loss", P::Fp32},
    {"smooth_l1_loss", P::Fp32},
    {"huber_loss", P::Fp32},
    {"mse_loss", P::Fp32},
    {"margin_ranking_loss", P::Fp32},
    {"multilabel_margin_loss", P::Fp32},
    {"soft_margin_loss", P::Fp32},
    {"triplet_margin_loss", P::Fp32},
    {"multi_margin_loss", P::Fp32},
    {"binary_cross_entropy_with_logits", P::Fp32},
    {"dist", P::Fp32},
    {"pdist", P::Fp32},
    {"cdist", P::Fp32},
    {"renorm", P::Fp32},
    {"logsumexp", P::Fp32},
    // fp32_set_opt_dtype
    {"prod", P::Fp32SetOptDtype},
    {"softmax", P::Fp32SetOptDtype},
    {"log_softmax", P::Fp32SetOptDtype},
    {"cumprod", P::Fp32SetOptDtype},
    {"cumsum", P::Fp32SetOptDtype},
    {"linalg_vector_norm", P::Fp32SetOptDtype},
    {"linalg_matrix_norm", P::Fp32SetOptDtype},
    {"sum", P::Fp32SetOptDtype},
    // fp32_append_dtype: norm computes (and returns) float32 unless a dtype is given.
    {"norm", P::Fp32SetOptDtype},
    // promote
    {"addcdiv", P::Promote},
    {"addcmul", P::Promote},
    {"atan2", P::Promote},
    {"bilinear", P::Promote},
    {"cross", P::Promote},
    {"dot", P::Promote},
    {"grid_sampler", P::Promote},
    {"index_put", P::Promote},
    {"tensordot", P::Promote},
    {"scatter_add", P::Promote},
    // banned
    {"binary_cross_entropy", P::Banned},
};

const Entry kCpuPolicies[] = {
    // lower_precision_fp
    {"conv1d", P::LowerPrecision},
    {"conv2d", P::LowerPrecision},
    {"conv3d", P::LowerPrecision},
    {"bmm", P::LowerPrecision},
    {"mm", P::LowerPrecision},
    {"baddbmm", P::LowerPrecision},
    {"addmm", P::LowerPrecision},
    {"addbmm", P::LowerPrecision},
    {"linear", P::LowerPrecision},
    {"_convolution", P::LowerPrecision},
    {"matmul", P::LowerPrecision},
    {"conv_tbc", P::LowerPrecision},
    // (conv_transpose1d/2d/3d and prelu joined the CPU list after 1.13; 1.13 runs them unchanged.)
    // fp32
    {"avg_pool3d", P::Fp32},
    {"binary_cross_entropy", P::Fp32},
    {"grid_sampler", P::Fp32},
    {"polar", P::Fp32},
    {"prod", P::Fp32},
    {"quantile", P::Fp32},
    {"nanquantile", P::Fp32},
    {"stft", P::Fp32},
    {"cdist", P::Fp32},
    {"trace", P::Fp32},
    {"view_as_complex", P::Fp32},
    {"cholesky", P::Fp32},
    {"cholesky_inverse", P::Fp32},
    {"cholesky_solve", P::Fp32},
    {"inverse", P::Fp32},
    {"lu_solve", P::Fp32},
    {"orgqr", P::Fp32},
    {"ormqr", P::Fp32},
    {"pinverse", P::Fp32},
    {"max_pool3d", P::Fp32},
    {"max_unpool2d", P::Fp32},
    {"max_unpool3d", P::Fp32},
    {"adaptive_avg_pool3d", P::Fp32},
    {"reflection_pad1d", P::Fp32},
    {"reflection_pad2d", P::Fp32},
    {"replication_pad1d", P::Fp32},
    {"replication_pad2d", P::Fp32},
    {"replication_pad3d", P::Fp32},
    {"mse_loss", P::Fp32},
    {"cosine_embedding_loss", P::Fp32},
    {"nll_loss", P::Fp32},
    {"nll_loss2d", P::Fp32},
    {"hinge_embedding_loss", P::Fp32},
    {"poisson_nll_loss", P::Fp32},
    {"smooth_l1_loss", P::Fp32},
    {"cross_entropy_loss", P::Fp32},
    {"l1_loss", P::Fp32},
    {"huber_loss", P::Fp32},
    {"margin_ranking_loss", P::Fp32},
    {"soft_margin_loss", P::Fp32},
    {"triplet_margin_loss", P::Fp32},
    {"multi_margin_loss", P::Fp32},
    {"ctc_loss", P::Fp32},
    {"kl_div", P::Fp32},
    {"multilabel_margin_loss", P::Fp32},
    {"binary_cross_entropy_with_logits", P::Fp32},
    {"fft_fft", P::Fp32},
    {"fft_ifft", P::Fp32},
    {"fft_fft2", P::Fp32},
    {"fft_ifft2", P::Fp32},
    {"fft_fftn", P::Fp32},
    {"fft_ifftn", P::Fp32},
    {"fft_rfft", P::Fp32},
    {"fft_irfft", P::Fp32},
    {"fft_rfft2", P::Fp32},
    {"fft_irfft2", P::Fp32},
    {"fft_rfftn", P::Fp32},
    {"fft_irfftn", P::Fp32},
    {"fft_hfft", P::Fp32},
    {"fft_ihfft", P::Fp32},
    {"linalg_cond", P::Fp32},
    {"linalg_matrix_rank", P::Fp32},
    {"linalg_solve", P::Fp32},
    {"linalg_cholesky", P::Fp32},
    {"linalg_svdvals", P::Fp32},
    {"linalg_eigvals", P::Fp32},
    {"linalg_eigvalsh", P::Fp32},
    {"linalg_inv", P::Fp32},
    {"linalg_householder_product", P::Fp32},
    {"linalg_tensorinv", P::Fp32},
    {"linalg_tensorsolve", P::Fp32},
    {"fake_quantize_per_tensor_affine", P::Fp32},
    {"geqrf", P::Fp32},
    {"_lu_with_info", P::Fp32},
    {"qr", P::Fp32},
    {"svd", P::Fp32},
    {"symeig", P::Fp32},
    {"triangular_solve", P::Fp32},
    {"fractional_max_pool2d", P::Fp32},
    {"fractional_max_pool3d", P::Fp32},
    {"adaptive_max_pool3d", P::Fp32},
    {"multilabel_margin_loss_forward", P::Fp32},
    {"linalg_qr", P::Fp32},
    {"linalg_cholesky_ex", P::Fp32},
    {"linalg_svd", P::Fp32},
    {"linalg_eig", P::Fp32},
    {"linalg_eigh", P::Fp32},
    {"linalg_lstsq", P::Fp32},
    {"linalg_inv_ex", P::Fp32},
    // promote
    {"stack", P::Promote},
    {"cat", P::Promote},
    {"index_copy", P::Promote},
};

using Table = std::unordered_map<std::string_view, CastPolicy>;

template <size_t N>
Table build(const Entry (&entries)[N]) {
  Table table;
  for (const Entry& e : entries) table.emplace(e.op, e.policy);
  return table;
}

const Table& table_for(DeviceType device) {
  static const Table cpu = build(kCpuPolicies);
  static const Table cuda = build(kCudaPolicies);
  return device == DeviceType::CUDA ? cuda : cpu;
}

}  // namespace

const char* policy_name(CastPolicy policy) {
  switch (policy) {
    case P::None:
      return "none";
    case P::LowerPrecision:
      return "lower_precision_fp";
    case P::Fp32:
      return "fp32";
    case P::Fp32SetOptDtype:
      return "fp32_set_opt_dtype";
    case P::Promote:
      return "promote";
    case P::Banned:
      return "banned";
  }
  return "none";
}

CastPolicy cast_policy(std::string_view op, DeviceType device) {
  const Table& table = table_for(device);
  auto it = table.find(op);
  return it == table.end() ? P::None : it->second;
}

std::vector<std::pair<std::string, CastPolicy>> policy_table(DeviceType device) {
  std::vector<std::pair<std::string, CastPolicy>> out;
  for (const auto& [op, policy] : table_for(device)) out.emplace_back(std::string(op), policy);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tc::amp
