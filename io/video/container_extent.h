#pragma once
// How many bytes a container says it spans, read from its own top-level structure, so a file
// cut short can be told apart from a file that is simply short: FFmpeg's demuxers report a clean
// end of input in both cases.
#include <cstdint>
#include <optional>

#include "io/video.h"

namespace tc::io::detail {

struct ContainerExtent {
  int64_t declared = 0;  // bytes the container's top-level structure spans
  int64_t actual = 0;    // bytes of input
  const char* format = "";
  bool truncated() const { return actual < declared; }
};

// Matroska/WebM (the Segment's size), RIFF (AVI, WAV: the RIFF chunk's size) and ISO BMFF
// (MP4, MOV: the chain of top-level boxes). nullopt for other formats, for sizes declared as
// unknown (live streams), for inputs that are not regular files, and when the structure cannot
// be parsed (FFmpeg reports that itself).
std::optional<ContainerExtent> container_extent(const MediaSource& source);

}  // namespace tc::io::detail
