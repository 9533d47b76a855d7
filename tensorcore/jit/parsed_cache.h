#pragma once
// Objects parsed from a text argument of a graph node (a transforms pipeline's JSON), kept per
// text so a graph run many times parses once. Bounded: past `capacity` texts, new ones are
// parsed on every call instead of growing the cache.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tc::jit {

template <class T, class Parse>
std::shared_ptr<const T> parsed_from_text(const std::string& text, Parse parse,
                                          size_t capacity = 64) {
  static std::mutex mu;
  static auto* cache = new std::unordered_map<std::string, std::shared_ptr<const T>>();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find(text);
    if (it != cache->end()) return it->second;
  }
  auto parsed = std::make_shared<const T>(parse(text));
  std::lock_guard<std::mutex> lock(mu);
  if (cache->size() < capacity) cache->emplace(text, parsed);
  return parsed;
}

}  // namespace tc::jit
