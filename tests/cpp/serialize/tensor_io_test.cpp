#include <gtest/gtest.h>

#include <filesystem>

#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/serialize/zip_reader.h"
#include "tensorcore/tensorcore.h"

namespace {

std::filesystem::path temp_file(const char* name) {
  return std::filesystem::temp_directory_path() / (std::string("tc_tensor_io_") + name);
}

TEST(TensorIo, PtRoundTripKeepsViewsShared) {
  tc::Tensor base = tc::reshape(tc::arange(0, 12, 1, tc::DType::Float32), {3, 4});
  tc::Tensor col = tc::select(tc::transpose(base, 0, 1), 0, 2);  // strided view
  const auto path = temp_file("views.pt");
  tc::serialize::save({{"base", base}, {"col", col}}, path);
  auto loaded = tc::serialize::load(path);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].first, "base");
  EXPECT_EQ(loaded[1].second.sizes(), tc::Shape({3}));
  EXPECT_EQ(loaded[1].second.strides(), tc::Shape({4}));
  EXPECT_EQ(loaded[0].second.storage().get(), loaded[1].second.storage().get());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(loaded[1].second.data<float>()[i * 4], 4 * i + 2);
  std::filesystem::remove(path);
}

TEST(TensorIo, ArchiveIsAlignedAndReadable) {
  const std::string bytes = tc::serialize::write_pt(tc::serialize::PtValue(int64_t(5)));
  tc::serialize::detail::MemorySource src(bytes);
  tc::serialize::detail::ZipReader zip(src);
  ASSERT_NE(zip.find("archive/data.pkl"), nullptr);
  EXPECT_EQ(zip.read(*zip.find("archive/version")), "3\n");
  EXPECT_EQ(tc::serialize::read_pt(bytes).as<int64_t>(), 5);
}

TEST(TensorIo, SafetensorsRoundTripAndFormatDetection) {
  tc::Tensor t = tc::transpose(tc::reshape(tc::arange(0, 6, 1, tc::DType::Int64), {2, 3}), 0, 1);
  const auto path = temp_file("t.safetensors");
  tc::serialize::save_safetensors({{"t", t}}, path);
  auto loaded = tc::serialize::load(path);  // detected as safetensors from the bytes
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].second.sizes(), tc::Shape({3, 2}));
  EXPECT_EQ(loaded[0].second.data<int64_t>()[1], 3);  // t[0][1] == original[1][0]
  std::filesystem::remove(path);
}

TEST(TensorIo, Uint16HasNoPtStorage) {
  tc::Tensor t = tc::zeros({2}, tc::DType::UInt16);
  EXPECT_THROW(tc::serialize::save({{"t", t}}, temp_file("u16.pt")), tc::ValueError);
}

}  // namespace
