#include "tensorcore/nn/rnn_cell_modules.h"
#include "tensorcore/nn/modules/module_args.h"

#include <cmath>
#include <ostream>

#include "tensorcore/nn/functional.h"
#include "tensorcore/nn/rnn_stack.h"
#include "tensorcore/tensorcore.h"

namespace tc::nn {
using detail::with_state_of;

RNNCellBaseImpl::RNNCellBaseImpl(std::string type, int64_t gates, int64_t in, int64_t hidden,
                                 bool bias)
    : Module(std::move(type)), input_size(in), hidden_size(hidden) {
  TC_CHECK(in > 0 && hidden > 0, name(), ": input_size and hidden_size must be positive, got ", in,
           " and ", hidden);
  weight_ih = register_parameter("weight_ih", empty({gates * hidden, in}));
  weight_hh = register_parameter("weight_hh", empty({gates * hidden, hidden}));
  bias_ih = register_parameter("bias_ih", bias ? empty({gates * hidden}) : Tensor());
  bias_hh = register_parameter("bias_hh", bias ? empty({gates * hidden}) : Tensor());
  reset_parameters();
}

void RNNCellBaseImpl::reset_parameters() {
  // The recurrent modules' rule (rnn_stack.h), shared with the Python cells.
  rnn_reset_parameters({weight_ih, weight_hh, bias_ih, bias_hh}, hidden_size);
}

void RNNCellBaseImpl::pretty_print(std::ostream& os) const {
  os << name() << "(" << input_size << ", " << hidden_size
     << (bias_ih.defined() ? "" : ", bias=false") << ")";
}

std::tuple<Tensor, Tensor, bool> RNNCellBaseImpl::prepare(const Tensor& input, const Tensor& hx,
                                                          const char* what) const {
  TC_CHECK((input.dim() == 1 || input.dim() == 2) && input.size(-1) == input_size, name(),
           ": expected input of shape [N, ", input_size, "] or [", input_size,
           "], but got input of size ", shape_str(input.sizes()));
  const bool unbatched = input.dim() == 1;
  Tensor x = unbatched ? unsqueeze(input, 0) : input;
  Tensor h;
  if (hx.defined()) {
    Shape expect = unbatched ? Shape{hidden_size} : Shape{x.size(0), hidden_size};
    TC_CHECK(hx.sizes() == expect, name(), ": expected ", what, " of shape ", shape_str(expect),
             ", but got ", shape_str(hx.sizes()));
    h = unbatched ? unsqueeze(hx, 0) : hx;
  }
  return {x, h, unbatched};
}

RNNCellImpl::RNNCellImpl(int64_t in, int64_t hidden, bool bias, std::string nl)
    : RNNCellBaseImpl("RNNCell", 1, in, hidden, bias), nonlinearity(std::move(nl)) {
  TC_CHECK(nonlinearity == "tanh" || nonlinearity == "relu",
           "RNNCell: nonlinearity must be 'tanh' or 'relu', got '", nonlinearity, "'");
}

Tensor RNNCellImpl::forward(const Tensor& input, const Tensor& hx) {
  auto [x, h, unbatched] = prepare(input, hx, "hx");
  Tensor out = nonlinearity == "tanh"
                   ? functional::rnn_tanh_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh)
                   : functional::rnn_relu_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh);
  return unbatched ? squeeze(out, 0) : out;
}

LSTMCellImpl::LSTMCellImpl(int64_t in, int64_t hidden, bool bias)
    : RNNCellBaseImpl("LSTMCell", 4, in, hidden, bias) {}

std::pair<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input, const Tensor& hx,
                                                const Tensor& cx) {
  auto [x, h, unbatched] = prepare(input, hx, "hx");
  auto [x2, c, unused] = prepare(input, cx, "cx");
  (void)x2;
  (void)unused;
  auto [h1, c1] = functional::lstm_cell(x, h, c, weight_ih, weight_hh, bias_ih, bias_hh);
  if (unbatched) return {squeeze(h1, 0), squeeze(c1, 0)};
  return {h1, c1};
}

GRUCellImpl::GRUCellImpl(int64_t in, int64_t hidden, bool bias)
    : RNNCellBaseImpl("GRUCell", 3, in, hidden, bias) {}

Tensor GRUCellImpl::forward(const Tensor& input, const Tensor& hx) {
  auto [x, h, unbatched] = prepare(input, hx, "hx");
  Tensor out = functional::gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh);
  return unbatched ? squeeze(out, 0) : out;
}

ModulePtr RNNCellImpl::clone() const {
  return with_state_of(
      std::make_shared<RNNCellImpl>(input_size, hidden_size, bias_ih.defined(), nonlinearity),
      *this);
}
ModulePtr LSTMCellImpl::clone() const {
  return with_state_of(std::make_shared<LSTMCellImpl>(input_size, hidden_size, bias_ih.defined()),
                       *this);
}
ModulePtr GRUCellImpl::clone() const {
  return with_state_of(std::make_shared<GRUCellImpl>(input_size, hidden_size, bias_ih.defined()),
                       *this);
}

}  // namespace tc::nn
