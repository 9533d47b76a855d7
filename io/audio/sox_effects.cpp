// Effect chains: a custom source effect feeds tensor samples (or libsox's own "input" effect
// reads a file), the user's effects follow, and a custom sink effect collects the output.
#include "io/audio/sox_effects.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "io/audio/sox_common.h"

namespace tc::audio {
namespace {

using namespace tc::audio::detail;

struct TensorSource {
  const sox_sample_t* data;
  size_t size;
  size_t pos;
  size_t channels;
};

// libsox copies an effect's private area per flow; ours holds one pointer to shared state.
template <typename T>
T* state(sox_effect_t* e) {
  return *static_cast<T**>(e->priv);
}

int source_drain(sox_effect_t* e, sox_sample_t* obuf, size_t* osamp) {
  TensorSource* s = state<TensorSource>(e);
  size_t n = std::min(*osamp, s->size - s->pos);
  n -= n % s->channels;
  if (n) std::memcpy(obuf, s->data + s->pos, n * sizeof(sox_sample_t));
  s->pos += n;
  *osamp = n;
  return n ? SOX_SUCCESS : SOX_EOF;
}

int sink_flow(sox_effect_t* e, const sox_sample_t* ibuf, sox_sample_t*, size_t* isamp,
              size_t* osamp) {
  auto* out = state<std::vector<sox_sample_t>>(e);
  out->insert(out->end(), ibuf, ibuf + *isamp);
  *osamp = 0;
  return SOX_SUCCESS;
}

const sox_effect_handler_t* source_handler() {
  static const sox_effect_handler_t h = {"tc_tensor_input", nullptr,      SOX_EFF_MCHAN, nullptr,
                                         nullptr,           nullptr,      source_drain,  nullptr,
                                         nullptr,           sizeof(void*)};
  return &h;
}

const sox_effect_handler_t* sink_handler() {
  static const sox_effect_handler_t h = {
      "tc_tensor_output", nullptr, SOX_EFF_MCHAN, nullptr, nullptr,
      sink_flow,          nullptr, nullptr,       nullptr, sizeof(void*)};
  return &h;
}

struct ChainDeleter {
  void operator()(sox_effects_chain_t* c) const {
    std::lock_guard<std::mutex> lock(sox_mutex());
    sox_delete_effects_chain(c);
  }
};

bool effect_allowed(const sox_effect_handler_t* h) {
  if (!h || !h->name || (h->flags & SOX_EFF_INTERNAL)) return false;
  const std::string name = h->name;
  // These read or write side files or devices, which a tensor pipeline has no use for.
  return name != "input" && name != "output" && name != "spectrogram" && name != "noiseprof" &&
         name != "splice" && name != "newfile" && name != "restart";
}

// Runs `effects` between a prepared source effect and the collecting sink.
LoadResult run_chain(sox_effect_t* source, sox_signalinfo_t in_signal,
                     const sox_encodinginfo_t& in_enc, const EffectChain& effects, const char* op,
                     DType out_dtype, bool channels_first) {
  sox_encodinginfo_t out_enc = in_enc;
  std::unique_ptr<sox_effects_chain_t, ChainDeleter> chain;
  std::vector<sox_sample_t> collected;
  std::vector<sox_sample_t>* collected_ptr = &collected;
  sox_signalinfo_t interm = in_signal;
  // Argument strings stay alive for the whole flow: some effects keep pointers into argv.
  std::vector<std::vector<std::string>> args_store(effects.size());
  {
    std::lock_guard<std::mutex> lock(sox_mutex());
    chain.reset(sox_create_effects_chain(&in_enc, &out_enc));
    if (!chain) {
      free(source);
      throw_sox_error(op, "cannot create an effects chain");
    }
    auto add = [&](sox_effect_t* e, const std::string& name) {
      if (sox_add_effect(chain.get(), e, &interm, &in_signal) != SOX_SUCCESS) {
        sox_delete_effect(e);
        return false;
      }
      free(e);  // the chain keeps a copy
      (void)name;
      return true;
    };
    if (!add(source, "input")) throw_sox_error(op, "cannot start the input of the chain");
    for (size_t i = 0; i < effects.size(); ++i) {
      TC_CHECK(!effects[i].empty(), op, ": effect ", i, " is an empty list");
      const std::string& name = effects[i][0];
      const sox_effect_handler_t* h = sox_find_effect(name.c_str());
      TC_CHECK(effect_allowed(h), op, ": unsupported effect '", name, "'");
      sox_effect_t* e = sox_create_effect(h);
      args_store[i].assign(effects[i].begin() + 1, effects[i].end());
      std::vector<char*> argv;
      for (auto& a : args_store[i]) argv.push_back(a.data());
      if (sox_effect_options(e, int(argv.size()), argv.data()) != SOX_SUCCESS) {
        sox_delete_effect(e);
        std::string msg = take_sox_error();
        throw ValueError(tc::detail::concat(op, ": invalid arguments for effect '", name, "'",
                                            msg.empty() ? "" : ": ", msg));
      }
      if (!add(e, name)) {
        std::string msg = take_sox_error();
        throw ValueError(tc::detail::concat(op, ": cannot apply effect '", name, "'",
                                            msg.empty() ? "" : ": ", msg));
      }
    }
    sox_effect_t* sink = sox_create_effect(sink_handler());
    std::memcpy(sink->priv, &collected_ptr, sizeof(void*));
    if (!add(sink, "output")) throw_sox_error(op, "cannot finish the chain");
  }
  const int rc = sox_flow_effects(chain.get(), nullptr, nullptr);
  if (rc != SOX_SUCCESS && rc != SOX_EOF) throw_sox_error(op, "the effects chain failed");
  const int64_t channels = interm.channels;
  TC_CHECK(channels > 0, op, ": the chain produced no channels");
  const int64_t frames = int64_t(collected.size()) / channels;
  LoadResult r;
  r.waveform = samples_to_tensor(collected.data(), frames, channels, out_dtype, channels_first);
  r.sample_rate = int64_t(std::lround(interm.rate));
  return r;
}

LoadResult effects_on_input(sox_format_t* ft, const EffectChain& effects, bool normalize,
                            bool channels_first, const char* op) {
  sox_effect_t* input;
  {
    std::lock_guard<std::mutex> lock(sox_mutex());
    input = sox_create_effect(sox_find_effect("input"));
    char* arg = reinterpret_cast<char*>(ft);
    if (sox_effect_options(input, 1, &arg) != SOX_SUCCESS) {
      sox_delete_effect(input);
      throw_sox_error(op, "cannot read the input");
    }
  }
  const DType dtype = normalize ? DType::Float32 : native_dtype(ft);
  return run_chain(input, ft->signal, ft->encoding, effects, op, dtype, channels_first);
}

}  // namespace

LoadResult apply_effects_tensor(const Tensor& waveform, int64_t sample_rate,
                                const EffectChain& effects, bool channels_first) {
  const char* op = "sox_effects.apply_effects_tensor";
  ensure_sox_effects_initialized();
  take_sox_error();
  TC_CHECK(sample_rate > 0, op, ": sample_rate must be positive, got ", sample_rate);
  std::vector<sox_sample_t> samples = tensor_to_samples(waveform, channels_first, op);
  const int64_t channels = channels_first ? waveform.size(0) : waveform.size(1);
  TC_CHECK(channels >= 1, op, ": expected at least one channel");
  TensorSource src{samples.data(), samples.size(), 0, size_t(channels)};
  TensorSource* src_ptr = &src;
  sox_signalinfo_t signal{};
  signal.rate = double(sample_rate);
  signal.channels = unsigned(channels);
  signal.precision = 32;
  signal.length = samples.size();
  sox_encodinginfo_t enc{};  // sox_init_encodinginfo leaves opposite_endian unset
  sox_init_encodinginfo(&enc);
  enc.encoding = SOX_ENCODING_SIGN2;
  enc.bits_per_sample = 32;
  sox_effect_t* source;
  {
    std::lock_guard<std::mutex> lock(sox_mutex());
    source = sox_create_effect(source_handler());
  }
  std::memcpy(source->priv, &src_ptr, sizeof(void*));
  return run_chain(source, signal, enc, effects, op, DType::Float32, channels_first);
}

LoadResult apply_effects_file(const std::string& path, const EffectChain& effects, bool normalize,
                              bool channels_first, const std::string& format) {
  const char* op = "sox_effects.apply_effects_file";
  ensure_sox_effects_initialized();
  SoxPtr ft = open_input(&path, {}, format, op);
  return effects_on_input(ft.get(), effects, normalize, channels_first, op);
}

LoadResult apply_effects_bytes(std::string_view data, const EffectChain& effects, bool normalize,
                               bool channels_first, const std::string& format) {
  const char* op = "sox_effects.apply_effects_file";
  ensure_sox_effects_initialized();
  SoxPtr ft = open_input(nullptr, data, format, op);
  return effects_on_input(ft.get(), effects, normalize, channels_first, op);
}

std::vector<std::string> effect_names() {
  ensure_sox_initialized();
  std::vector<std::string> names;
  for (const sox_effect_fn_t* fn = sox_get_effect_fns(); *fn; ++fn) {
    const sox_effect_handler_t* h = (*fn)();
    if (effect_allowed(h)) names.push_back(h->name);
  }
  return names;
}

}  // namespace tc::audio
