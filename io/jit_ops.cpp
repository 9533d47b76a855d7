// Graph-runtime adapters (tensorcore/jit) for image decoding, named after the bindings in
// python/src/io_image.cpp: a traced graph can start from the encoded bytes of a file.
#include "io/audio/audio_io.h"
#include "io/image.h"
#include "tensorcore/jit/op_registry.h"

namespace tc::io {
namespace {

using jit::IValue;
using jit::OpArgs;

ImageReadMode read_mode(const OpArgs& a, size_t i) {
  const int64_t mode = a.int_(i);
  TC_CHECK(mode >= 0 && mode <= 4, a.op(), "(): ImageReadMode must be in 0..4, got ", mode);
  return ImageReadMode(mode);
}

const jit::OpRegistrar registrar({
    {"_C._image_io.decode_image",
     [](const OpArgs& a) {
       return IValue(decode_image(a.tensor(0), read_mode(a, 1), a.bool_(2)));
     }},
    {"_C._image_io.decode_jpeg",
     [](const OpArgs& a) { return IValue(decode_jpeg(a.tensor(0), read_mode(a, 1), a.bool_(2))); }},
    {"_C._audio.decode_audio",
     [](const OpArgs& a) {
       audio::LoadOptions o;
       o.normalize = a.bool_(1);
       o.channels_first = a.bool_(2);
       o.format = a.str(3);
       audio::LoadResult r = audio::decode_audio(a.tensor(0), o);
       return IValue::tuple({r.waveform, r.sample_rate});
     }},
    {"_C._image_io.decode_png",
     [](const OpArgs& a) { return IValue(decode_png(a.tensor(0), read_mode(a, 1), a.bool_(2))); }},
});

}  // namespace
}  // namespace tc::io
