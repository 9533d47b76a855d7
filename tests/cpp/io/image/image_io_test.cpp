// tc::io image round trips, EXIF orientation, error reporting and batched decode, from C++.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "io/image.h"
#include "tensorcore/ops/creation.h"

using namespace tc;
using io::ImageReadMode;

namespace {

// A C x H x W uint8 gradient image (contiguous planar memory).
Tensor gradient(int64_t c, int64_t h, int64_t w) {
  Tensor t = empty({c, h, w}, TensorOptions(DType::UInt8));
  uint8_t* p = t.data<uint8_t>();
  for (int64_t k = 0; k < c; ++k)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        p[(k * h + y) * w + x] = uint8_t(std::min<int64_t>(255, x * 3 + y * 2 + k * 30));
  return t;
}

uint8_t at(const Tensor& t, int64_t c, int64_t y, int64_t x) {
  const auto& s = t.strides();
  return static_cast<const uint8_t*>(t.data_ptr())[c * s[0] + y * s[1] + x * s[2]];
}

Tensor bytes(const std::string& s) {
  Tensor t = empty({int64_t(s.size())}, TensorOptions(DType::UInt8));
  std::memcpy(t.data_ptr(), s.data(), s.size());
  return t;
}

}  // namespace

TEST(ImageIO, PngRoundTripIsLossless) {
  for (int64_t c = 1; c <= 4; ++c) {
    Tensor img = gradient(c, 17, 23);
    Tensor png = io::encode_png(img, 6);
    ASSERT_EQ(png.dim(), 1);
    Tensor back = io::decode_png(png);
    ASSERT_EQ(back.sizes(), img.sizes());
    for (int64_t k = 0; k < c; ++k)
      for (int64_t y = 0; y < 17; ++y)
        for (int64_t x = 0; x < 23; ++x) ASSERT_EQ(at(back, k, y, x), at(img, k, y, x));
  }
}

TEST(ImageIO, JpegRoundTripIsClose) {
  Tensor img = gradient(3, 32, 48);
  Tensor back = io::decode_image(io::encode_jpeg(img, 98), ImageReadMode::RGBAlpha);
  ASSERT_EQ(back.sizes(), (Shape{4, 32, 48}));
  double err = 0;
  for (int64_t k = 0; k < 3; ++k)
    for (int64_t y = 0; y < 32; ++y)
      for (int64_t x = 0; x < 48; ++x)
        err += std::abs(int(at(back, k, y, x)) - int(at(img, k, y, x)));
  EXPECT_LT(err / (3 * 32 * 48), 3.0);
  EXPECT_EQ(at(back, 3, 5, 5), 255);
}

TEST(ImageIO, OrientationRotatesClockwise) {
  // Orientation 6 (camera turned right): stored pixel (y, x) shows at (x, h - 1 - y).
  std::vector<uint8_t> px(2 * 3);
  for (int i = 0; i < 6; ++i) px[i] = uint8_t(i);
  io::codec::DecodedImage img;
  img.data = px.data();
  img.height = 2, img.width = 3, img.channels = 1, img.exif_orientation = 6;
  std::vector<uint8_t> out;
  auto rotated = io::codec::apply_orientation(img, [&](size_t n) {
    out.resize(n);
    return out.data();
  });
  ASSERT_EQ(rotated.height, 3);
  ASSERT_EQ(rotated.width, 2);
  // in = [[0 1 2], [3 4 5]] -> rotated cw = [[3 0], [4 1], [5 2]]
  EXPECT_EQ(out, (std::vector<uint8_t>{3, 0, 4, 1, 5, 2}));
}

TEST(ImageIO, ExifParserIgnoresGarbage) {
  const uint8_t le[] = {'I',  'I', '*', 0, 8, 0, 0, 0, 1, 0, 0x12,
                        0x01, 3,   0,   1, 0, 0, 0, 8, 0, 0, 0};
  EXPECT_EQ(io::codec::exif_orientation(le, sizeof le), 8);
  EXPECT_EQ(io::codec::exif_orientation(le, 12), 1);  // IFD cut short
  const uint8_t bad_offset[] = {'M', 'M', 0, '*', 0xff, 0xff, 0xff, 0xf0};
  EXPECT_EQ(io::codec::exif_orientation(bad_offset, sizeof bad_offset), 1);
}

TEST(ImageIO, CorruptInputThrowsDecodeError) {
  Tensor png = io::encode_png(gradient(3, 20, 20), 6);
  Tensor cut = empty({png.numel() / 2}, TensorOptions(DType::UInt8));
  std::memcpy(cut.data_ptr(), png.data_ptr(), size_t(cut.numel()));
  EXPECT_THROW(io::decode_png(cut), DecodeError);
  EXPECT_THROW(io::decode_image(bytes("")), DecodeError);
  EXPECT_THROW(io::decode_jpeg(bytes(std::string("\xff\xd8\xff\xe0", 4))), DecodeError);
  try {
    io::decode_image(bytes("hello world"));
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported image format"), std::string::npos);
  }
  EXPECT_THROW(io::encode_jpeg(gradient(2, 4, 4)), ValueError);
  EXPECT_THROW(io::read_file("/nonexistent/tc_image.png"), Error);
}

TEST(ImageIO, BatchedDecodeMatchesSingle) {
  TensorList in;
  for (int i = 0; i < 6; ++i) in.push_back(io::encode_jpeg(gradient(3, 16 + i, 24), 80));
  TensorList out = io::decode_jpeg(in, ImageReadMode::Gray, false, 3);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    Tensor one = io::decode_jpeg(in[i], ImageReadMode::Gray);
    ASSERT_EQ(out[i].sizes(), one.sizes());
    EXPECT_EQ(std::memcmp(out[i].data_ptr(), one.data_ptr(), size_t(one.numel())), 0);
  }
  in.push_back(bytes("junk"));
  EXPECT_THROW(io::decode_image(in), DecodeError);
}

TEST(ImageIO, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "tc_image_io_test.png";
  Tensor img = gradient(3, 9, 11);
  io::write_png(img, path);
  Tensor back = io::read_image(path, ImageReadMode::RGB);
  EXPECT_EQ(at(back, 2, 8, 10), at(img, 2, 8, 10));
  std::remove(path.c_str());
}
