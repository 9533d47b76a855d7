#pragma once
// Internal (not a public header): FLAC decoding straight through libFLAC for audio::load, without
// libsox's per-sample buffer conversions. The samples are exactly the SoX path's: libsox scales
// a b-bit sample d to the int32 d << (32 - b), and load divides that by 2^31.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/audio/audio_io.h"

namespace tc::audio::detail {

// Decodes a native FLAC stream (it starts with "fLaC") from a file (path != nullptr) or from
// `bytes`. Returns nullopt, having decoded nothing that matters, where the SoX path should take
// over: not native FLAC, a sample size libsox handles differently (not 8/16/24/32 bits), a file
// that cannot be opened (libsox reports that), or a seek libFLAC refuses. Corrupt or truncated
// streams raise DecodeError naming the input.
std::optional<LoadResult> load_flac(const std::string* path, std::string_view bytes,
                                    const LoadOptions& options, const char* op);

}  // namespace tc::audio::detail
