// Which H.264 packets an exact seek may leave out before its target: only pictures with
// nal_ref_idc 0, with nothing else in the packet that could change decoder state. The Python
// seek tests (tests/python/io/video/test_seek_paths.py) check the pixels end to end.
#include "io/video/disposable_packets.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

using tc::io::detail::DisposablePackets;

namespace {

using Bytes = std::vector<uint8_t>;

// NAL units with 4- (or `size`-) byte big-endian length prefixes, as in MP4/MKV (avcC).
Bytes length_prefixed(std::initializer_list<Bytes> nals, int size = 4) {
  Bytes out;
  for (const Bytes& nal : nals) {
    for (int i = size - 1; i >= 0; --i) out.push_back(uint8_t(nal.size() >> (8 * i)));
    out.insert(out.end(), nal.begin(), nal.end());
  }
  return out;
}

// NAL units after start codes, as in MPEG-TS / raw .h264 (Annex B).
Bytes annex_b(std::initializer_list<Bytes> nals) {
  Bytes out;
  for (const Bytes& nal : nals) {
    out.insert(out.end(), {0, 0, 0, 1});
    out.insert(out.end(), nal.begin(), nal.end());
  }
  return out;
}

// First byte: forbidden bit, nal_ref_idc (2 bits), nal_unit_type (5 bits).
const Bytes kNonRefSlice = {0x01, 0x9a, 0x12, 0x34};  // ref_idc 0, type 1
const Bytes kRefSlice = {0x41, 0x9a, 0x12, 0x34};     // ref_idc 2, type 1
const Bytes kIdrSlice = {0x65, 0x88, 0x84, 0x00};     // ref_idc 3, type 5
const Bytes kAud = {0x09, 0xf0};
const Bytes kSei = {0x06, 0x05, 0x01, 0x00, 0x80};
const Bytes kSps = {0x67, 0x64, 0x00, 0x1e};
const Bytes kFiller = {0x0c, 0xff, 0xff, 0x80};

struct Params {
  AVCodecParameters par{};
  Bytes extradata;
  explicit Params(AVCodecID id, Bytes extra = {}) : extradata(std::move(extra)) {
    par.codec_id = id;
    par.field_order = AV_FIELD_PROGRESSIVE;
    par.extradata = extradata.empty() ? nullptr : extradata.data();
    par.extradata_size = int(extradata.size());
  }
};

// avcC header: version 1, profile, compatibility, level, 0xfc | (length size - 1), ...
Bytes avcc(int length_size) {
  return {1, 0x64, 0x00, 0x1e, uint8_t(0xfc | (length_size - 1)), 0xe1, 0x00, 0x00};
}

bool disposable(const DisposablePackets& d, const Bytes& b) {
  return d.disposable(b.data(), int(b.size()));
}

}  // namespace

TEST(VideoDisposablePackets, LengthPrefixedNonReferenceSlices) {
  Params p(AV_CODEC_ID_H264, avcc(4));
  DisposablePackets d(&p.par);
  EXPECT_TRUE(disposable(d, length_prefixed({kNonRefSlice})));
  EXPECT_TRUE(disposable(d, length_prefixed({kAud, kNonRefSlice, kNonRefSlice, kFiller})));
  EXPECT_FALSE(disposable(d, length_prefixed({kRefSlice})));
  EXPECT_FALSE(disposable(d, length_prefixed({kIdrSlice})));
  // Anything that may change decoder state keeps the packet.
  EXPECT_FALSE(disposable(d, length_prefixed({kSei, kNonRefSlice})));
  EXPECT_FALSE(disposable(d, length_prefixed({kSps, kNonRefSlice})));
  EXPECT_FALSE(disposable(d, length_prefixed({kNonRefSlice, kRefSlice})));
  // No picture at all, or nothing.
  EXPECT_FALSE(disposable(d, length_prefixed({kAud})));
  EXPECT_FALSE(disposable(d, Bytes{}));
  EXPECT_FALSE(d.disposable(nullptr, 8));
}

TEST(VideoDisposablePackets, MalformedDataIsKept) {
  Params p(AV_CODEC_ID_H264, avcc(4));
  DisposablePackets d(&p.par);
  Bytes b = length_prefixed({kNonRefSlice});
  b[3] += 1;  // length runs past the end
  EXPECT_FALSE(disposable(d, b));
  b = length_prefixed({kNonRefSlice});
  b.pop_back();
  EXPECT_FALSE(disposable(d, b));
  EXPECT_FALSE(disposable(d, length_prefixed({Bytes{}})));             // zero-length NAL
  EXPECT_FALSE(disposable(d, length_prefixed({{0x81, 0x9a, 0x12}})));  // forbidden bit set
  EXPECT_FALSE(disposable(d, Bytes{0, 0, 0}));
}

TEST(VideoDisposablePackets, OtherLengthSizes) {
  Params two(AV_CODEC_ID_H264, avcc(2));
  EXPECT_TRUE(disposable(DisposablePackets(&two.par), length_prefixed({kNonRefSlice}, 2)));
  EXPECT_FALSE(disposable(DisposablePackets(&two.par), length_prefixed({kRefSlice}, 2)));
  Params one(AV_CODEC_ID_H264, avcc(1));
  EXPECT_TRUE(disposable(DisposablePackets(&one.par), length_prefixed({kAud, kNonRefSlice}, 1)));
  Params three(AV_CODEC_ID_H264, avcc(3));  // invalid in avcC: never guess
  EXPECT_FALSE(disposable(DisposablePackets(&three.par), length_prefixed({kNonRefSlice}, 3)));
}

TEST(VideoDisposablePackets, AnnexB) {
  Params p(AV_CODEC_ID_H264);  // no avcC: start codes
  DisposablePackets d(&p.par);
  EXPECT_TRUE(disposable(d, annex_b({kAud, kNonRefSlice})));
  Bytes three_byte_codes = {0, 0, 1, 0x09, 0xf0, 0, 0, 1, 0x01, 0x9a, 0x12};
  EXPECT_TRUE(disposable(d, three_byte_codes));
  EXPECT_FALSE(disposable(d, annex_b({kAud, kRefSlice})));
  EXPECT_FALSE(disposable(d, annex_b({kSps, kIdrSlice})));
  EXPECT_FALSE(disposable(d, annex_b({kSei, kNonRefSlice})));
  EXPECT_FALSE(disposable(d, annex_b({kAud})));
  // Data before the first start code is not Annex B.
  Bytes junk = annex_b({kNonRefSlice});
  junk.insert(junk.begin(), 0x42);
  EXPECT_FALSE(disposable(d, junk));
}

TEST(VideoDisposablePackets, OtherCodecsNeverDisposable) {
  for (AVCodecID id : {AV_CODEC_ID_HEVC, AV_CODEC_ID_VP9, AV_CODEC_ID_MPEG4, AV_CODEC_ID_NONE}) {
    Params p(id, avcc(4));
    DisposablePackets d(&p.par);
    EXPECT_FALSE(disposable(d, length_prefixed({kNonRefSlice})));
    EXPECT_FALSE(disposable(d, annex_b({kNonRefSlice})));
  }
  EXPECT_FALSE(disposable(DisposablePackets(), length_prefixed({kNonRefSlice})));
  EXPECT_FALSE(disposable(DisposablePackets(nullptr), length_prefixed({kNonRefSlice})));
}

TEST(VideoDisposablePackets, OnlyProgressiveStreams) {
  // Field pictures can pair a reference and a non-reference field across two packets.
  for (AVFieldOrder order :
       {AV_FIELD_UNKNOWN, AV_FIELD_TT, AV_FIELD_BB, AV_FIELD_TB, AV_FIELD_BT}) {
    Params p(AV_CODEC_ID_H264, avcc(4));
    p.par.field_order = order;
    EXPECT_FALSE(disposable(DisposablePackets(&p.par), length_prefixed({kNonRefSlice})));
  }
}
