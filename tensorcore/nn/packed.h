#pragma once
// Packed variable-length batches (torch.nn.utils.rnn): PackedSequence, pack_padded_sequence,
// pad_packed_sequence, pad_sequence, pack_sequence. LSTM and GRU accept a PackedSequence and
// return one; padded steps never reach the recurrence, so h_n is each sequence's last real state.
#include <optional>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn {

// data: [sum(batch_sizes), *], the steps of the length-sorted batch one after another;
// batch_sizes: int64 [T], how many sequences are still running at each step (non-increasing);
// sorted_indices / unsorted_indices: int64 [N] permutations (undefined when the batch was
// already sorted, enforce_sorted=true).
struct PackedSequence {
  Tensor data, batch_sizes, sorted_indices, unsorted_indices;
  std::vector<int64_t> sizes() const;  // batch_sizes as a vector
  int64_t batch_size() const;
};

// input [T, N, *] ([N, T, *] with batch_first); lengths: one positive length <= T per sequence
// (an int64 tensor or a list). enforce_sorted requires decreasing lengths; otherwise the batch
// is sorted here and the permutation recorded.
PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<int64_t>& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);
PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);
// Returns (padded [T, N, *] or [N, T, *], lengths int64 [N]) in the original batch order;
// total_length pads to at least that many steps.
std::pair<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                              bool batch_first = false, double padding_value = 0.0,
                                              std::optional<int64_t> total_length = std::nullopt);
// Stacks [L_i, *] tensors into [max L, N, *] (or [N, max L, *]) padded with padding_value.
Tensor pad_sequence(const TensorList& sequences, bool batch_first = false,
                    double padding_value = 0.0);
PackedSequence pack_sequence(const TensorList& sequences, bool enforce_sorted = true);

}  // namespace tc::nn
