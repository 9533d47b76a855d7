#pragma once
// Key-value stores for rendezvous (torch.distributed's Store): every rank of a job reaches the same
// store, publishes its transport address and waits for the others'. Values are bytes. Every
// blocking call gives up after the store's timeout with an error naming the keys it waited for.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tc::distributed {

using Bytes = std::vector<uint8_t>;
using Milliseconds = std::chrono::milliseconds;
inline constexpr Milliseconds kDefaultStoreTimeout{300000};

class Store {
 public:
  explicit Store(Milliseconds timeout = kDefaultStoreTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // Waits up to the timeout for the key to be set.
  virtual Bytes get(const std::string& key) = 0;
  // Adds `delta` to the integer stored (as decimal text) under key (0 when unset); returns it.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Sets key to `desired` when its value equals `expected` (or when the key is unset and
  // `expected` is empty); returns the value after the call.
  virtual Bytes compare_set(const std::string& key, const Bytes& expected,
                            const Bytes& desired) = 0;
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  virtual void wait(const std::vector<std::string>& keys, Milliseconds timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

  Milliseconds timeout() const { return timeout_; }
  virtual void set_timeout(Milliseconds t) { timeout_ = t; }

  void set(const std::string& key, const std::string& value) {
    set(key, Bytes(value.begin(), value.end()));
  }
  std::string get_string(const std::string& key) {
    Bytes b = get(key);
    return std::string(b.begin(), b.end());
  }

 protected:
  Milliseconds timeout_;
};

// All keys get "prefix/" in front, so process groups share one store without collisions.
class PrefixStore final : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  using Store::set;
  using Store::wait;
  void set_timeout(Milliseconds t) override;
  const std::shared_ptr<Store>& underlying() const { return store_; }

 private:
  std::string full(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> full(const std::vector<std::string>& keys) const {
    std::vector<std::string> k;
    for (auto& key : keys) k.push_back(full(key));
    return k;
  }
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

// A store in a shared file (one append-only log of records, locked with flock): works for ranks
// on one machine or on a shared file system. The last of `num_users` instances to go deletes it.
class FileStore final : public Store {
 public:
  FileStore(std::string path, int num_users = -1, Milliseconds timeout = kDefaultStoreTimeout);
  ~FileStore() override;
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  using Store::set;
  using Store::wait;
  const std::string& path() const { return path_; }

 private:
  struct Impl;
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

// A store served over TCP by one process (is_master) and reached by all (torch's TCPStore).
// port 0 picks a free port (see port()). A client retries connecting until the timeout.
class TCPStore final : public Store {
 public:
  TCPStore(std::string host, int port, bool is_master, Milliseconds timeout = kDefaultStoreTimeout,
           bool wait_for_workers = false, int world_size = -1);
  ~TCPStore() override;
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  using Store::set;
  using Store::wait;
  int port() const { return port_; }
  const std::string& host() const { return host_; }

 private:
  class Server;
  Bytes request(uint8_t cmd, const std::vector<Bytes>& args, Milliseconds timeout,
                const std::vector<std::string>& waited_keys);
  void connect_client();
  std::string host_;
  int port_;
  std::unique_ptr<Server> server_;
  int fd_ = -1;
  std::mutex mutex_;
};

std::string describe_keys(const std::vector<std::string>& keys);

}  // namespace tc::distributed
