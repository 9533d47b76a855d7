// PrefixStore and FileStore (TCPStore lives in tcp_store.cpp).
#include "tensorcore/distributed/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include "tensorcore/core/error.h"

namespace tc::distributed {

std::string describe_keys(const std::vector<std::string>& keys) {
  std::string s = "[";
  for (size_t i = 0; i < keys.size(); ++i) s += (i ? ", '" : "'") + keys[i] + "'";
  return s + "]";
}

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultStoreTimeout),
      prefix_(std::move(prefix)),
      store_(std::move(store)) {
  TC_CHECK(store_ != nullptr, "PrefixStore: the underlying store is None");
}
void PrefixStore::set(const std::string& key, const Bytes& value) { store_->set(full(key), value); }
Bytes PrefixStore::get(const std::string& key) { return store_->get(full(key)); }
int64_t PrefixStore::add(const std::string& key, int64_t delta) {
  return store_->add(full(key), delta);
}
Bytes PrefixStore::compare_set(const std::string& key, const Bytes& expected,
                               const Bytes& desired) {
  return store_->compare_set(full(key), expected, desired);
}
bool PrefixStore::check(const std::vector<std::string>& keys) { return store_->check(full(keys)); }
bool PrefixStore::delete_key(const std::string& key) { return store_->delete_key(full(key)); }
int64_t PrefixStore::num_keys() { return store_->num_keys(); }
void PrefixStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  store_->wait(full(keys), timeout);
}
void PrefixStore::set_timeout(Milliseconds t) {
  Store::set_timeout(t);
  store_->set_timeout(t);
}

// ---------------------------------------------------------------------------------------------
// FileStore: records are appended as [u8 kind][u32 key len][key][u32 value len][value]; kind 0
// sets, kind 1 deletes. Readers replay the log from where they last stopped.

struct FileStore::Impl {
  int fd = -1;
  off_t read_pos = 0;
  std::map<std::string, Bytes> cache;
  std::mutex mutex;
  int num_users = -1;

  struct Lock {
    int fd;
    Lock(int f, int how) : fd(f) {
      while (flock(fd, how) != 0) {
        TC_CHECK_AS(Error, errno == EINTR, "FileStore: flock failed: ", std::strerror(errno));
      }
    }
    ~Lock() { flock(fd, LOCK_UN); }
  };

  void refresh() {
    struct stat st;
    TC_CHECK_AS(Error, fstat(fd, &st) == 0, "FileStore: stat failed: ", std::strerror(errno));
    if (st.st_size <= read_pos) return;
    std::vector<uint8_t> buf(size_t(st.st_size - read_pos));
    size_t got = 0;
    while (got < buf.size()) {
      ssize_t n = pread(fd, buf.data() + got, buf.size() - got, read_pos + off_t(got));
      TC_CHECK_AS(Error, n > 0, "FileStore: read failed: ", std::strerror(errno));
      got += size_t(n);
    }
    size_t p = 0;
    auto u32 = [&](size_t at) {
      uint32_t v;
      std::memcpy(&v, buf.data() + at, 4);
      return v;
    };
    while (p + 5 <= buf.size()) {
      uint8_t kind = buf[p];
      uint32_t klen = u32(p + 1);
      if (p + 5 + klen + 4 > buf.size()) break;
      std::string key(buf.begin() + long(p + 5), buf.begin() + long(p + 5 + klen));
      uint32_t vlen = u32(p + 5 + klen);
      size_t vstart = p + 9 + klen;
      if (vstart + vlen > buf.size()) break;
      if (kind == 0)
        cache[key] = Bytes(buf.begin() + long(vstart), buf.begin() + long(vstart + vlen));
      else
        cache.erase(key);
      p = vstart + vlen;
    }
    read_pos += off_t(p);
  }

  void append(uint8_t kind, const std::string& key, const Bytes& value) {
    std::vector<uint8_t> rec(9 + key.size() + value.size());
    rec[0] = kind;
    uint32_t klen = uint32_t(key.size()), vlen = uint32_t(value.size());
    std::memcpy(rec.data() + 1, &klen, 4);
    std::memcpy(rec.data() + 5, key.data(), key.size());
    std::memcpy(rec.data() + 5 + key.size(), &vlen, 4);
    if (!value.empty()) std::memcpy(rec.data() + 9 + key.size(), value.data(), value.size());
    struct stat st;
    fstat(fd, &st);
    size_t put = 0;
    while (put < rec.size()) {
      ssize_t n = pwrite(fd, rec.data() + put, rec.size() - put, st.st_size + off_t(put));
      TC_CHECK_AS(Error, n > 0, "FileStore: write failed: ", std::strerror(errno));
      put += size_t(n);
    }
  }
};

FileStore::FileStore(std::string path, int num_users, Milliseconds timeout)
    : Store(timeout), path_(std::move(path)), impl_(std::make_unique<Impl>()) {
  impl_->fd = ::open(path_.c_str(), O_RDWR | O_CREAT, 0644);
  TC_CHECK_AS(Error, impl_->fd >= 0, "FileStore: cannot open '", path_,
              "': ", std::strerror(errno));
  impl_->num_users = num_users;
  add("__filestore_users", 1);
}

FileStore::~FileStore() {
  try {
    int64_t left = add("__filestore_users", -1);
    // The last user removes the file, so the next job with the same path starts clean.
    if (left == 0) ::unlink(path_.c_str());
  } catch (...) {
  }
  if (impl_->fd >= 0) ::close(impl_->fd);
}

void FileStore::set(const std::string& key, const Bytes& value) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  Impl::Lock lock(impl_->fd, LOCK_EX);
  impl_->append(0, key, value);
}

Bytes FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::lock_guard<std::mutex> g(impl_->mutex);
  Impl::Lock lock(impl_->fd, LOCK_SH);
  impl_->refresh();
  auto it = impl_->cache.find(key);
  TC_CHECK_AS(Error, it != impl_->cache.end(), "FileStore: key '", key, "' was deleted");
  return it->second;
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  Impl::Lock lock(impl_->fd, LOCK_EX);
  impl_->refresh();
  int64_t value = 0;
  if (auto it = impl_->cache.find(key); it != impl_->cache.end())
    value = std::stoll(std::string(it->second.begin(), it->second.end()));
  value += delta;
  std::string text = std::to_string(value);
  impl_->append(0, key, Bytes(text.begin(), text.end()));
  return value;
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  Impl::Lock lock(impl_->fd, LOCK_EX);
  impl_->refresh();
  auto it = impl_->cache.find(key);
  if (it == impl_->cache.end()) {
    if (expected.empty()) {
      impl_->append(0, key, desired);
      return desired;
    }
    return expected;
  }
  if (it->second == expected) {
    impl_->append(0, key, desired);
    return desired;
  }
  return it->second;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  Impl::Lock lock(impl_->fd, LOCK_SH);
  impl_->refresh();
  for (auto& k : keys)
    if (!impl_->cache.count(k)) return false;
  return true;
}

bool FileStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> g(impl_->mutex);
  Impl::Lock lock(impl_->fd, LOCK_EX);
  impl_->refresh();
  if (!impl_->cache.count(key)) return false;
  impl_->append(1, key, {});
  return true;
}

int64_t FileStore::num_keys() {
  std::lock_guard<std::mutex> g(impl_->mutex);
  Impl::Lock lock(impl_->fd, LOCK_SH);
  impl_->refresh();
  return int64_t(impl_->cache.size()) - (impl_->cache.count("__filestore_users") ? 1 : 0);
}

void FileStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(200);
  while (!check(keys)) {
    TC_CHECK_AS(Error, std::chrono::steady_clock::now() < deadline, "FileStore: timed out after ",
                timeout.count(), " ms waiting for keys ", describe_keys(keys), " in '", path_, "'");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
}

}  // namespace tc::distributed
