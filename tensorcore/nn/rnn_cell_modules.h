#pragma once
// RNNCell, LSTMCell, GRUCell (torch.nn names, parameters weight_ih [G*H, I], weight_hh [G*H, H],
// bias_ih, bias_hh, U(-1/sqrt(H), 1/sqrt(H)) init) over the fused cells of tc::nn::functional.
// Input [N, I] or unbatched [I]; an undefined state means zeros.
#include <string>
#include <utility>

#include "tensorcore/nn/module.h"

namespace tc::nn {

class RNNCellBaseImpl : public Module {
 public:
  RNNCellBaseImpl(std::string type, int64_t gates, int64_t input_size, int64_t hidden_size,
                  bool bias);
  void reset_parameters();
  void pretty_print(std::ostream& os) const override;
  int64_t input_size, hidden_size;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  // Checks shapes; returns (input as [N, I], state as [N, H] or undefined, unbatched).
  std::tuple<Tensor, Tensor, bool> prepare(const Tensor& input, const Tensor& hx,
                                           const char* what) const;
};

class RNNCellImpl : public RNNCellBaseImpl {
 public:
  // nonlinearity "tanh" or "relu".
  RNNCellImpl(int64_t input_size, int64_t hidden_size, bool bias = true,
              std::string nonlinearity = "tanh");
  ModulePtr clone() const override;
  Tensor forward(const Tensor& input, const Tensor& hx = {});
  std::string nonlinearity;
};
TC_MODULE(RNNCell);

class LSTMCellImpl : public RNNCellBaseImpl {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size, bool bias = true);
  ModulePtr clone() const override;
  // Returns (h', c').
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {},
                                    const Tensor& cx = {});
};
TC_MODULE(LSTMCell);

class GRUCellImpl : public RNNCellBaseImpl {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size, bool bias = true);
  ModulePtr clone() const override;
  Tensor forward(const Tensor& input, const Tensor& hx = {});
};
TC_MODULE(GRUCell);

}  // namespace tc::nn
