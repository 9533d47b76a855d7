#include <gtest/gtest.h>

#include "tensorcore/autograd/custom_function.h"
#include "tensorcore/tensorcore.h"

using namespace tc;
using tc::autograd::AutogradContext;

namespace {

struct MulConst : autograd::Function<MulConst> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double k, Tensor y) {
    ctx->saved_data["k"] = k;
    ctx->save_for_backward({x, y});
    return mul(mul(x, y), k);
  }
  static TensorList backward(AutogradContext* ctx, TensorList g) {
    double k = std::any_cast<double>(ctx->saved_data["k"]);
    auto s = ctx->get_saved_variables();
    return {mul(mul(g[0], s[1]), k), Tensor(), mul(mul(g[0], s[0]), k)};
  }
};

struct SplitExp : autograd::Function<SplitExp> {
  static TensorList forward(AutogradContext* ctx, Tensor x) {
    Tensor e = exp(x);
    ctx->save_for_backward({e});
    return {e, mul(x, 2.0)};
  }
  static TensorList backward(AutogradContext* ctx, TensorList g) {
    return {add(mul(g[0], ctx->get_saved_variables()[0]), mul(g[1], 2.0))};
  }
};

}  // namespace

TEST(CustomFunction, Basic) {
  Tensor x = full({3}, 2.0, TensorOptions(DType::Float64).requires_grad(true));
  Tensor y = full({3}, 5.0, TensorOptions(DType::Float64).requires_grad(true));
  Tensor out = MulConst::apply(x, 3.0, y);
  EXPECT_TRUE(out.requires_grad());
  sum(out).backward();
  EXPECT_DOUBLE_EQ(x.grad().data<double>()[0], 15.0);
  EXPECT_DOUBLE_EQ(y.grad().data<double>()[0], 6.0);
}

TEST(CustomFunction, MultiOutputOneUsed) {
  Tensor x = zeros({2}, TensorOptions(DType::Float64).requires_grad(true));
  TensorList outs = SplitExp::apply(x);
  ASSERT_EQ(outs.size(), 2u);
  sum(outs[1]).backward();  // only the second output gets a gradient
  EXPECT_DOUBLE_EQ(x.grad().data<double>()[0], 2.0);
  x.set_grad(Tensor());
  TensorList o2 = SplitExp::apply(x);
  sum(add(o2[0], o2[1])).backward();
  EXPECT_DOUBLE_EQ(x.grad().data<double>()[0], 3.0);
}

TEST(CustomFunction, NoGradInputs) {
  Tensor x = ones({2});
  Tensor out = MulConst::apply(x, 2.0, x);
  EXPECT_FALSE(out.requires_grad());
}
