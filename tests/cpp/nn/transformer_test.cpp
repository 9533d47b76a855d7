// TransformerDecoder(Layer) and Transformer: structure, masks and errors here;
// NnCppTransformerInterop.* loads torch.nn.Transformer weights written by
// tests/python/nn/cpp/test_nncpp_transformer.py and reproduces torch's outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "tensorcore/nn/nn.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
namespace nn = tc::nn;

namespace {

// d_model 8, 2 heads, feed-forward width 16 and `layers` encoder and decoder layers (the shapes
// tests/python/nn/cpp/test_nncpp_transformer.py builds in torch).
nn::TransformerOptions small_transformer(int64_t layers) {
  nn::TransformerOptions o;
  o.d_model = 8;
  o.nhead = 2;
  o.num_encoder_layers = layers;
  o.num_decoder_layers = layers;
  o.dim_feedforward = 16;
  return o;
}

}  // namespace

TEST(NnCppTransformer, DecoderStructureMaskAndErrors) {
  nn::TransformerDecoderLayer layer(nn::TransformerDecoderLayerOptions{8, 2, 16, 0.0});
  std::vector<std::string> keys;
  for (auto& [k, t] : layer->state_dict()) keys.push_back(k);
  std::vector<std::string> expect = {"self_attn.in_proj_weight",
                                     "self_attn.in_proj_bias",
                                     "self_attn.out_proj.weight",
                                     "self_attn.out_proj.bias",
                                     "multihead_attn.in_proj_weight",
                                     "multihead_attn.in_proj_bias",
                                     "multihead_attn.out_proj.weight",
                                     "multihead_attn.out_proj.bias",
                                     "linear1.weight",
                                     "linear1.bias",
                                     "linear2.weight",
                                     "linear2.bias",
                                     "norm1.weight",
                                     "norm1.bias",
                                     "norm2.weight",
                                     "norm2.bias",
                                     "norm3.weight",
                                     "norm3.bias"};
  EXPECT_EQ(keys, expect);

  Tensor m = nn::TransformerImpl::generate_square_subsequent_mask(3);
  const float* p = m.data<float>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      if (j > i)
        EXPECT_TRUE(std::isinf(p[i * 3 + j]) && p[i * 3 + j] < 0);
      else
        EXPECT_EQ(p[i * 3 + j], 0.0f);
    }

  // A causal self-attention mask makes step t independent of later target steps.
  nn::TransformerDecoder dec(nn::TransformerDecoderLayerOptions{8, 2, 16, 0.0}, 2, true);
  Tensor tgt = randn({5, 2, 8}), memory = randn({4, 2, 8});
  Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(5);
  Tensor y1 = dec(tgt, memory, mask);
  Tensor tgt2 = clone(tgt);
  {
    autograd::NoGradGuard g;
    fill_(narrow(tgt2, 0, 3, 2), 7.0);
  }
  Tensor y2 = dec(tgt2, memory, mask);
  EXPECT_TRUE(allclose(narrow(y1, 0, 0, 3), narrow(y2, 0, 0, 3), 1e-5, 1e-6));
  EXPECT_FALSE(allclose(narrow(y1, 0, 3, 2), narrow(y2, 0, 3, 2), 1e-5, 1e-6));

  nn::Transformer tr(small_transformer(1));
  EXPECT_EQ(tr->encoder->layers->size(), 1u);
  EXPECT_FALSE(tr->encoder->norm.is_empty());
  EXPECT_FALSE(tr->decoder->norm.is_empty());
  EXPECT_THROW(tr(randn({4, 2, 8}), randn({3, 3, 8})), ValueError);  // batch mismatch
  EXPECT_THROW(tr(randn({4, 2, 6}), randn({3, 2, 6})), ValueError);  // d_model mismatch
  sum(tr(randn({4, 2, 8}), randn({3, 2, 8}))).backward();
  for (auto& [k, t] : tr->named_parameters()) EXPECT_TRUE(t.grad().defined()) << k;
}

TEST(NnCppTransformerInterop, MatchesTorch) {
  const char* dir_env = std::getenv("NNCPP_TRANSFORMER_DIR");
  if (!dir_env)
    GTEST_SKIP()
        << "NNCPP_TRANSFORMER_DIR not set (run by tests/python/nn/cpp/test_nncpp_transformer.py)";
  std::filesystem::path dir(dir_env);
  for (int config = 0; config < 2; ++config) {
    std::string tag = std::to_string(config);
    nn::TransformerOptions o = small_transformer(2);
    o.dropout = 0.0;
    if (config == 0) {
      o.activation = "gelu";
      o.batch_first = true;
      o.norm_first = true;
    }
    nn::Transformer model(o);
    model->load(dir / ("torch_sd" + tag + ".pt"), /*strict=*/true);
    std::map<std::string, Tensor> io;
    for (auto& [k, t] : serialize::load(dir / ("torch_io" + tag + ".pt"))) io[k] = t;
    Tensor y = model(io["src"], io["tgt"], Tensor(), io["tgt_mask"], Tensor(), io["src_kpm"],
                     Tensor(), io["src_kpm"]);
    EXPECT_TRUE(allclose(y, io["y"], 1e-4, 1e-5))
        << "config " << config << ": max diff " << max(abs(sub(y, io["y"]))).item<double>();
    serialize::save({{"y", y.detach()}}, dir / ("cpp_out" + tag + ".pt"));
    nn::Transformer fresh(o);
    fresh->save(dir / ("cpp_sd" + tag + ".pt"));
  }
}
