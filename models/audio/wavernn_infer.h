#pragma once
// WaveRNN's autoregressive sampling loop (torchaudio.models.WaveRNN.infer), run natively: per
// output sample one GRU step per recurrent layer, the fully connected head, a softmax and one
// categorical draw, for a batch of utterances at once. The upsampling network (convolutions over
// the whole spectrogram) is not autoregressive and stays with the caller.
#include <cstdint>
#include <optional>
#include <vector>

#include "tensorcore/core/generator.h"
#include "tensorcore/core/tensor.h"

namespace tc::models::audio {

// The layers the loop runs, with torchaudio's shapes (weights row-major [out, in]); n_aux is
// n_output / 4.
struct WaveRNNWeights {
  Tensor fc_weight, fc_bias;                                          // [n_rnn, 1 + n_freq + n_aux]
  Tensor rnn1_weight_ih, rnn1_weight_hh, rnn1_bias_ih, rnn1_bias_hh;  // GRU(n_rnn -> n_rnn)
  Tensor rnn2_weight_ih, rnn2_weight_hh, rnn2_bias_ih, rnn2_bias_hh;  // GRU(n_rnn + n_aux -> n_rnn)
  Tensor fc1_weight, fc1_bias;                                        // [n_fc, n_rnn + n_aux]
  Tensor fc2_weight, fc2_bias;                                        // [n_fc, n_fc + n_aux]
  Tensor fc3_weight, fc3_bias;                                        // [n_classes, n_fc]
};

struct WaveRNNInferOptions {
  // The default stream: each step draws like tc::multinomial(posterior, 1, generator) called
  // once per step over the batch (one Philox subsequence per step). Null = default generator.
  GeneratorPtr generator;
  // When set, draws instead come from MT19937 seeded as torch's CPU generator after
  // torch.manual_seed(torch_seed), consumed exactly as torch.multinomial consumes it, so the
  // samples are torchaudio's for the same weights and seed.
  std::optional<uint64_t> torch_seed;
  // Output mu-law decoded samples (torchaudio.functional.mu_law_decoding of the labels) instead
  // of the labels mapped linearly to [-1, 1].
  bool mulaw = false;
  // Fold mode (fold_target > 0): each utterance is cut into segments that own fold_target
  // samples and start fold_overlap samples early; all segments run as one batch, and each
  // overlap is cross-faded (first half: the new segment warms up at weight 0; second half: a
  // linear ramp), so the output keeps the unfolded timeline. 0 <= fold_overlap <= fold_target.
  int64_t fold_target = 0;
  int64_t fold_overlap = 0;
};

// specgram: [batch, n_freq, time] and aux: [batch, >= 4 * n_aux, time], the upsampling
// network's outputs (time in samples), same floating dtype as the weights. lengths: valid
// samples per utterance (each <= time), empty = all of `time`. Returns [batch, 1, time] float32
// (torchaudio's infer returns float32 for every model dtype); samples past an utterance's length
// are 0 and are never computed.
Tensor wavernn_infer(const WaveRNNWeights& weights, const Tensor& specgram, const Tensor& aux,
                     const std::vector<int64_t>& lengths, const WaveRNNInferOptions& options);

// x @ weight^T (x: [M, K], weight: [R, K], float32/float64, CPU) with the loop's product
// kernel: streams weight once for all M rows. Benchmarks use it to time the per-step products
// alone (what reading the weights costs on a machine).
Tensor small_batch_linear(const Tensor& x, const Tensor& weight);

}  // namespace tc::models::audio
