// Runs the audio models exported by examples/jit_export_audio.py with no Python:
//
//   build/examples/jit_audio asr asr.tcj speech.flac          # prints the greedy transcript
//   build/examples/jit_audio separate sep.tcj mix.wav out_dir # writes out_dir/cpp_s{k}.wav
//
// The graphs start from the file's bytes (decode and front end are nodes of the graph).
#include <cstdio>
#include <string>

#include <io/audio/audio_io.h>
#include <io/image.h>
#include <tensorcore/jit.h>
#include <tensorcore/tensorcore.h>

static const std::string kLabels = "_ abcdefghijklmnopqrstuvwxyz'";  // 0: CTC blank

int main(int argc, char** argv) {
  if (argc < 4 || (std::string(argv[1]) == "separate" && argc < 5)) {
    std::fprintf(stderr, "usage: %s asr model.tcj audio | separate model.tcj audio out_dir\n",
                 argv[0]);
    return 2;
  }
  try {
    const std::string mode = argv[1];
    tc::jit::Module model = tc::jit::load(argv[2]);
    tc::Tensor data = tc::io::read_file(argv[3]);
    tc::Tensor out = tc::contiguous(model.forward({data}).to_tensor());
    if (mode == "asr") {
      std::string text;
      int64_t previous = -1;
      for (int64_t t = 0; t < out.numel(); ++t) {
        const int64_t i = out.data<int64_t>()[t];
        if (i != previous && i != 0) text += kLabels.at(size_t(i));
        previous = i;
      }
      std::printf("%s '%s'\n", argv[3], text.c_str());
    } else {
      const int64_t rate = tc::audio::decode_audio(data).sample_rate;
      tc::audio::SaveOptions opts;
      opts.encoding = "PCM_S";
      opts.bits_per_sample = 16;
      for (int64_t k = 0; k < out.size(0); ++k)
        tc::audio::save(std::string(argv[4]) + "/cpp_s" + std::to_string(k) + ".wav",
                        tc::narrow(out, 0, k, 1), rate, opts);
      std::printf("%s %lld sources of %lld samples\n", argv[3], static_cast<long long>(out.size(0)),
                  static_cast<long long>(out.size(1)));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
