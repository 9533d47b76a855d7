#include "io/video/disposable_packets.h"

namespace tc::io::detail {

namespace {

enum : int { kNalSlice = 1, kNalAccessUnitDelimiter = 9, kNalFiller = 12 };

// One H.264 NAL unit: disposable when it is a non-reference slice, or an access unit delimiter
// or filler (which carry no state). IDR slices (type 5) always have nal_ref_idc != 0.
// Everything else - parameter sets, SEI (recovery points, user data the decoder reads to pick
// bug workarounds), end of sequence/stream, data partitions - may change decoder state.
bool disposable_nal(uint8_t header) {
  if (header & 0x80) return false;  // forbidden_zero_bit: corrupt, let the decoder report it
  const int type = header & 0x1f;
  const int ref_idc = (header >> 5) & 3;
  if (type == kNalSlice) return ref_idc == 0;
  return type == kNalAccessUnitDelimiter || type == kNalFiller;
}

}  // namespace

DisposablePackets::DisposablePackets(const AVCodecParameters* par) {
  if (par == nullptr || par->codec_id != AV_CODEC_ID_H264) return;
  // Field-coded streams may pair a reference field with a non-reference one in two packets;
  // leaving one out would break the decoder's field pairing, which its own skip keeps intact.
  if (par->field_order != AV_FIELD_PROGRESSIVE) return;
  // avcC extradata (MP4, MKV) starts with configurationVersion 1 and gives the size of the
  // length prefixes; without it the stream carries start codes (Annex B: TS, raw .h264).
  if (par->extradata != nullptr && par->extradata_size >= 7 && par->extradata[0] == 1) {
    length_size_ = (par->extradata[4] & 3) + 1;
    if (length_size_ == 3) return;  // not a valid avcC length size
    format_ = Format::H264LengthPrefixed;
  } else {
    format_ = Format::H264AnnexB;
  }
}

bool DisposablePackets::disposable(const uint8_t* data, int size) const {
  if (format_ == Format::None || data == nullptr || size <= 0) return false;
  bool any_slice = false;
  if (format_ == Format::H264LengthPrefixed) {
    int64_t pos = 0;
    while (pos < size) {
      if (size - pos < length_size_) return false;
      uint32_t len = 0;
      for (int i = 0; i < length_size_; ++i) len = (len << 8) | data[pos + i];
      pos += length_size_;
      if (len == 0 || int64_t(len) > size - pos) return false;
      if (!disposable_nal(data[pos])) return false;
      any_slice = any_slice || (data[pos] & 0x1f) == kNalSlice;
      pos += len;
    }
    return any_slice;
  }
  // Annex B: every NAL unit follows a 00 00 01 start code, and the packet starts with one
  // (after zero bytes).
  int64_t lead = 0;
  while (lead < size && data[lead] == 0) ++lead;
  if (lead < 2 || lead >= size || data[lead] != 1) return false;
  int64_t units = 0;
  for (int64_t i = lead - 2; i + 3 < size; ++i) {
    if (data[i] != 0 || data[i + 1] != 0 || data[i + 2] != 1) continue;
    const uint8_t header = data[i + 3];
    if (!disposable_nal(header)) return false;
    any_slice = any_slice || (header & 0x1f) == kNalSlice;
    ++units;
    i += 3;
  }
  return units > 0 && any_slice;
}

}  // namespace tc::io::detail
