#include "tensorcore/nn/packed.h"

#include <algorithm>
#include <numeric>

#include "tensorcore/tensorcore.h"

namespace tc::nn {

std::vector<int64_t> PackedSequence::sizes() const {
  TC_CHECK(batch_sizes.defined() && batch_sizes.dim() == 1,
           "PackedSequence: batch_sizes must be a 1-d tensor");
  Tensor b = contiguous(to_dtype(batch_sizes, DType::Int64));
  return std::vector<int64_t>(b.data<int64_t>(), b.data<int64_t>() + b.numel());
}

int64_t PackedSequence::batch_size() const {
  auto s = sizes();
  return s.empty() ? 0 : s[0];
}

PackedSequence pack_padded_sequence(const Tensor& input_in, const std::vector<int64_t>& lengths_in,
                                    bool batch_first, bool enforce_sorted) {
  TC_CHECK(input_in.dim() >= 2,
           "pack_padded_sequence: expected input with at least 2 dims ([T, N, *]), but got ",
           "input of size ", shape_str(input_in.sizes()));
  Tensor input = batch_first ? transpose(input_in, 0, 1) : input_in;  // [T, N, *]
  const int64_t T = input.size(0), N = input.size(1);
  TC_CHECK(int64_t(lengths_in.size()) == N, "pack_padded_sequence: expected ", N,
           " lengths (the batch size of input ", shape_str(input_in.sizes()), "), but got ",
           lengths_in.size());
  for (size_t i = 0; i < lengths_in.size(); ++i) {
    TC_CHECK(lengths_in[i] > 0,
             "pack_padded_sequence: length of all samples has to be greater than 0, but found "
             "an element in 'lengths' that is <= 0 (sample ",
             i, ")");
    TC_CHECK(lengths_in[i] <= T, "pack_padded_sequence: length ", lengths_in[i], " of sample ", i,
             " exceeds the sequence length ", T, " of input ", shape_str(input_in.sizes()));
  }
  PackedSequence out;
  std::vector<int64_t> lengths = lengths_in;
  if (enforce_sorted) {
    for (size_t i = 1; i < lengths.size(); ++i)
      TC_CHECK(lengths[i - 1] >= lengths[i],
               "pack_padded_sequence: `lengths` array must be sorted in decreasing "
               "order when `enforce_sorted` is true; sort the batch or pass enforce_sorted=false");
  } else {
    std::vector<int64_t> order(static_cast<size_t>(N));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return lengths_in[a] > lengths_in[b]; });
    std::vector<int64_t> inverse(static_cast<size_t>(N));
    for (int64_t i = 0; i < N; ++i) {
      lengths[size_t(i)] = lengths_in[size_t(order[size_t(i)])];
      inverse[size_t(order[size_t(i)])] = i;
    }
    out.sorted_indices = from_vector(order, {N});
    out.unsorted_indices = from_vector(inverse, {N});
    input = index_select(input, 1, out.sorted_indices);
  }
  const int64_t steps = lengths.empty() ? 0 : lengths[0];
  std::vector<int64_t> batch_sizes;
  TensorList chunks;
  for (int64_t t = 0; t < steps; ++t) {
    int64_t bs =
        int64_t(std::count_if(lengths.begin(), lengths.end(), [&](int64_t l) { return l > t; }));
    batch_sizes.push_back(bs);
    chunks.push_back(narrow(select(input, 0, t), 0, 0, bs));
  }
  out.data = cat(chunks, 0);
  out.batch_sizes = from_vector(batch_sizes, {int64_t(batch_sizes.size())});
  return out;
}

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first,
                                    bool enforce_sorted) {
  TC_CHECK(lengths.defined() && lengths.dim() == 1,
           "pack_padded_sequence: expected 1-d lengths, but got ",
           lengths.defined() ? shape_str(lengths.sizes()) : std::string("an undefined tensor"));
  Tensor l = contiguous(to_dtype(lengths, DType::Int64));
  return pack_padded_sequence(
      input, std::vector<int64_t>(l.data<int64_t>(), l.data<int64_t>() + l.numel()), batch_first,
      enforce_sorted);
}

std::pair<Tensor, Tensor> pad_packed_sequence(const PackedSequence& seq, bool batch_first,
                                              double padding_value,
                                              std::optional<int64_t> total_length) {
  TC_CHECK(seq.data.defined() && seq.data.dim() >= 1,
           "pad_packed_sequence: the PackedSequence has no data");
  std::vector<int64_t> bs = seq.sizes();
  TC_CHECK(!bs.empty(), "pad_packed_sequence: the PackedSequence has no steps");
  int64_t total = std::accumulate(bs.begin(), bs.end(), int64_t(0));
  TC_CHECK(total == seq.data.size(0), "pad_packed_sequence: batch_sizes sum to ", total,
           " but data has ", seq.data.size(0), " rows");
  const int64_t N = bs[0], T = int64_t(bs.size());
  if (total_length) {
    TC_CHECK(*total_length >= T,
             "pad_packed_sequence: expected total_length to be at least the length of the "
             "longest sequence (",
             T, "), but got total_length=", *total_length);
  }
  const int64_t steps = total_length ? *total_length : T;
  Shape row_shape(seq.data.sizes().begin() + 1, seq.data.sizes().end());
  TensorList rows;
  int64_t offset = 0;
  for (int64_t t = 0; t < steps; ++t) {
    int64_t b = t < T ? bs[size_t(t)] : 0;
    Tensor chunk = narrow(seq.data, 0, offset, b);
    offset += b;
    if (b < N) {
      Shape pad_shape{N - b};
      pad_shape.insert(pad_shape.end(), row_shape.begin(), row_shape.end());
      chunk = cat({chunk, full(pad_shape, padding_value, seq.data.dtype())}, 0);
    }
    rows.push_back(chunk);
  }
  Tensor padded = stack(rows, 0);  // [steps, N, *]
  std::vector<int64_t> lengths(size_t(N), 0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < bs[size_t(t)]; ++i) ++lengths[size_t(i)];
  Tensor len = from_vector(lengths, {N});
  if (seq.unsorted_indices.defined()) {
    padded = index_select(padded, 1, seq.unsorted_indices);
    len = index_select(len, 0, seq.unsorted_indices);
  }
  if (batch_first) padded = transpose(padded, 0, 1);
  return {padded, len};
}

Tensor pad_sequence(const TensorList& seqs, bool batch_first, double padding_value) {
  TC_CHECK(!seqs.empty(), "pad_sequence: expected a non-empty list of tensors");
  const Tensor& first = seqs[0];
  TC_CHECK(first.defined() && first.dim() >= 1,
           "pad_sequence: sequences must be tensors with at least one dim");
  Shape trailing(first.sizes().begin() + 1, first.sizes().end());
  int64_t max_len = 0;
  for (size_t i = 0; i < seqs.size(); ++i) {
    TC_CHECK(seqs[i].defined() && seqs[i].dim() == first.dim() &&
                 Shape(seqs[i].sizes().begin() + 1, seqs[i].sizes().end()) == trailing,
             "pad_sequence: sequence ", i, " has size ",
             seqs[i].defined() ? shape_str(seqs[i].sizes()) : "undefined", ", expected [*, ",
             shape_str(trailing), "] like sequence 0");
    max_len = std::max(max_len, seqs[i].size(0));
  }
  TensorList rows;
  for (auto& s : seqs) {
    Tensor r = s;
    if (s.size(0) < max_len) {
      Shape pad_shape{max_len - s.size(0)};
      pad_shape.insert(pad_shape.end(), trailing.begin(), trailing.end());
      r = cat({s, full(pad_shape, padding_value, s.dtype())}, 0);
    }
    rows.push_back(r);
  }
  return stack(rows, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const TensorList& seqs, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (auto& s : seqs) lengths.push_back(s.defined() && s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(seqs), lengths, false, enforce_sorted);
}

}  // namespace tc::nn
