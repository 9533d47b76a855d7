// The container size parser behind truncation detection, on hand-laid headers for the edge cases
// real files rarely show (the Python tests cut real ffmpeg output at many offsets).
#include "io/video/container_extent.h"

#include <gtest/gtest.h>

#include <string>

using tc::io::MediaSource;
using tc::io::detail::container_extent;

namespace {

std::string be32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }
std::string le32(uint32_t v) { return {char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }
std::string box(const std::string& type, size_t payload) {
  return be32(uint32_t(8 + payload)) + type + std::string(payload, '\0');
}

}  // namespace

TEST(VideoContainerExtent, IsoBmffBoxChain) {
  const std::string file = box("ftyp", 12) + box("moov", 40) + box("mdat", 100);
  auto e = container_extent(MediaSource::memory(file));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->declared, int64_t(file.size()));
  EXPECT_FALSE(e->truncated());
  e = container_extent(MediaSource::memory(file.substr(0, file.size() - 30)));
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->truncated());
  EXPECT_EQ(e->declared, int64_t(file.size()));
  // Size 0: the last box runs to the end of the file, whatever its length.
  const std::string open_ended = box("ftyp", 12) + be32(0) + "mdat" + std::string(50, 'x');
  e = container_extent(MediaSource::memory(open_ended.substr(0, 40)));
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->truncated());
  // 64-bit size.
  std::string large = box("ftyp", 12) + be32(1) + "mdat" + be32(0) + be32(16 + 64);
  large += std::string(64, 'x');
  e = container_extent(MediaSource::memory(large));
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->truncated());
  e = container_extent(MediaSource::memory(large.substr(0, large.size() - 1)));
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->truncated());
  // A box header cut in two.
  e = container_extent(MediaSource::memory(box("ftyp", 12) + std::string(3, '\0')));
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->truncated());
  // Sizes below the header's own length are FFmpeg's to report.
  EXPECT_FALSE(container_extent(MediaSource::memory(box("ftyp", 12) + be32(3) + "mdat")));
}

TEST(VideoContainerExtent, Riff) {
  const std::string avi = "RIFF" + le32(4 + 9) + "AVI " + std::string(9, 'x');
  auto e = container_extent(MediaSource::memory(avi));  // odd size, pad byte left out
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->truncated());
  e = container_extent(MediaSource::memory(avi + '\0'));  // with the pad byte
  EXPECT_FALSE(e->truncated());
  e = container_extent(MediaSource::memory(avi.substr(0, avi.size() - 2)));
  EXPECT_TRUE(e->truncated());
  // Size 0 (an unfinished writer) and 0xFFFFFFFF (RF64) declare nothing.
  EXPECT_FALSE(container_extent(MediaSource::memory("RIFF" + le32(0) + "AVI " + "xxxx")));
  EXPECT_FALSE(container_extent(MediaSource::memory("RIFF" + le32(~0u) + "WAVE" + "xxxx")));
}

TEST(VideoContainerExtent, Matroska) {
  // EBML header (ID 1A45DFA3, size 4), then a Segment (ID 18538067) of 8-byte size 20.
  const std::string header = std::string("\x1A\x45\xDF\xA3\x84", 5) + "abcd";
  const std::string segment =
      std::string("\x18\x53\x80\x67\x01\0\0\0\0\0\0\x14", 12) + std::string(20, 'x');
  auto e = container_extent(MediaSource::memory(header + segment));
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->truncated());
  e = container_extent(MediaSource::memory(header + segment.substr(0, segment.size() - 5)));
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->truncated());
  // Unknown size (all ones): a live stream, not checkable.
  const std::string live = std::string("\x18\x53\x80\x67\x01\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 12);
  EXPECT_FALSE(container_extent(MediaSource::memory(header + live + "xxxx")));
}

TEST(VideoContainerExtent, OtherFormatsAndMissingFiles) {
  EXPECT_FALSE(container_extent(MediaSource::memory(std::string(64, 'G'))));  // e.g. MPEG-TS
  EXPECT_FALSE(container_extent(MediaSource::memory("short")));
  EXPECT_FALSE(container_extent(MediaSource::file("/nonexistent/file.mp4")));
  EXPECT_FALSE(container_extent(MediaSource::file("/dev/null")));
}
