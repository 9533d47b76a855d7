// TCPStore: a small request/response protocol over TCP. Requests are
// [u8 command][u32 argument count]([u32 length][bytes])*, replies ([u32 count] then arguments).
// The server is one thread polling all client sockets; a WAIT is answered once its keys exist.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "tensorcore/core/error.h"
#include "tensorcore/distributed/store.h"

namespace tc::distributed {
namespace {

enum Command : uint8_t {
  kSet = 1,
  kGet,
  kAdd,
  kCompareSet,
  kCheck,
  kDelete,
  kNumKeys,
  kWait,
};

void put_u32(Bytes& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

Bytes encode(const std::vector<Bytes>& args) {
  Bytes out;
  put_u32(out, uint32_t(args.size()));
  for (auto& a : args) {
    put_u32(out, uint32_t(a.size()));
    out.insert(out.end(), a.begin(), a.end());
  }
  return out;
}

// Parses [u32 count]([u32 len][bytes])* starting at `pos`; returns false when incomplete.
bool decode(const Bytes& buf, size_t& pos, std::vector<Bytes>& args) {
  size_t p = pos;
  auto u32 = [&](uint32_t& v) {
    if (p + 4 > buf.size()) return false;
    std::memcpy(&v, buf.data() + p, 4);
    p += 4;
    return true;
  };
  uint32_t count;
  if (!u32(count)) return false;
  args.clear();
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len;
    if (!u32(len) || p + len > buf.size()) return false;
    args.emplace_back(buf.begin() + long(p), buf.begin() + long(p + len));
    p += len;
  }
  pos = p;
  return true;
}

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string to_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

void send_all(int fd, const Bytes& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    TC_CHECK_AS(Error, n > 0, "TCPStore: send failed: ", std::strerror(errno));
    sent += size_t(n);
  }
}

}  // namespace

class TCPStore::Server {
 public:
  explicit Server(int port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    TC_CHECK_AS(Error, listen_fd_ >= 0, "TCPStore: socket failed: ", std::strerror(errno));
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(uint16_t(port));
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      int err = errno;
      ::close(listen_fd_);
      TC_FAIL(
          "TCPStore: the master could not listen on port ", port, ": ", std::strerror(err),
          err == EADDRINUSE ? " (another process uses this port; pick another master_port)" : "");
    }
    TC_CHECK_AS(Error, ::listen(listen_fd_, 1024) == 0,
                "TCPStore: listen failed: ", std::strerror(errno));
    socklen_t len = sizeof(addr);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    TC_CHECK_AS(Error, ::pipe2(wake_, O_CLOEXEC) == 0, "TCPStore: pipe failed");
    thread_ = std::thread([this] { loop(); });
  }
  ~Server() {
    char c = 0;
    (void)!::write(wake_[1], &c, 1);
    thread_.join();
    for (auto& [fd, buf] : clients_) ::close(fd);
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }
  int port() const { return port_; }

 private:
  void loop() {
    while (true) {
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      for (auto& [fd, buf] : clients_) fds.push_back({fd, POLLIN, 0});
      int r = ::poll(fds.data(), fds.size(), -1);
      if (r < 0 && errno == EINTR) continue;
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) {
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          int one = 1;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          clients_[fd] = {};
        }
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        int fd = fds[i].fd;
        uint8_t tmp[65536];
        ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
        if (n <= 0) {
          drop(fd);
          continue;
        }
        Bytes& buf = clients_[fd];
        buf.insert(buf.end(), tmp, tmp + n);
        size_t pos = 0;
        std::vector<Bytes> args;
        while (pos < buf.size()) {
          uint8_t cmd = buf[pos];
          size_t p = pos + 1;
          if (!decode(buf, p, args)) break;
          pos = p;
          handle(fd, cmd, args);
        }
        if (clients_.count(fd)) buf.erase(buf.begin(), buf.begin() + long(pos));
      }
    }
  }

  void drop(int fd) {
    ::close(fd);
    clients_.erase(fd);
    waiters_.erase(fd);
  }

  void reply(int fd, const std::vector<Bytes>& args) {
    try {
      send_all(fd, encode(args));
    } catch (const Error&) {
      // The client went away; poll reports it next.
    }
  }

  bool has_all(const std::vector<std::string>& keys) const {
    for (auto& k : keys)
      if (!data_.count(k)) return false;
    return true;
  }

  void wake_waiters() {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      auto& pending = it->second;
      bool done = false;
      while (!pending.empty() && has_all(pending.front())) {
        pending.erase(pending.begin());
        reply(it->first, {to_bytes("ok")});
        done = true;
      }
      (void)done;
      it = pending.empty() ? waiters_.erase(it) : std::next(it);
    }
  }

  void handle(int fd, uint8_t cmd, const std::vector<Bytes>& args) {
    switch (cmd) {
      case kSet:
        data_[to_string(args.at(0))] = args.at(1);
        reply(fd, {});
        wake_waiters();
        break;
      case kGet: {
        auto it = data_.find(to_string(args.at(0)));
        if (it == data_.end())
          reply(fd, {});
        else
          reply(fd, {it->second});
        break;
      }
      case kAdd: {
        std::string key = to_string(args.at(0));
        int64_t v = std::stoll(to_string(args.at(1)));
        if (auto it = data_.find(key); it != data_.end()) v += std::stoll(to_string(it->second));
        data_[key] = to_bytes(std::to_string(v));
        reply(fd, {data_[key]});
        wake_waiters();
        break;
      }
      case kCompareSet: {
        std::string key = to_string(args.at(0));
        auto it = data_.find(key);
        if (it == data_.end()) {
          if (args.at(1).empty()) {
            data_[key] = args.at(2);
            reply(fd, {args.at(2)});
            wake_waiters();
          } else {
            reply(fd, {args.at(1)});
          }
        } else if (it->second == args.at(1)) {
          it->second = args.at(2);
          reply(fd, {args.at(2)});
          wake_waiters();
        } else {
          reply(fd, {it->second});
        }
        break;
      }
      case kCheck: {
        std::vector<std::string> keys;
        for (auto& a : args) keys.push_back(to_string(a));
        reply(fd, {to_bytes(has_all(keys) ? "1" : "0")});
        break;
      }
      case kDelete:
        reply(fd, {to_bytes(data_.erase(to_string(args.at(0))) ? "1" : "0")});
        break;
      case kNumKeys:
        reply(fd, {to_bytes(std::to_string(data_.size()))});
        break;
      case kWait: {
        std::vector<std::string> keys;
        for (auto& a : args) keys.push_back(to_string(a));
        if (has_all(keys))
          reply(fd, {to_bytes("ok")});
        else
          waiters_[fd].push_back(keys);
        break;
      }
      default:
        drop(fd);
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::map<int, Bytes> clients_;
  std::map<int, std::vector<std::vector<std::string>>> waiters_;
  std::map<std::string, Bytes> data_;
};

TCPStore::TCPStore(std::string host, int port, bool is_master, Milliseconds timeout,
                   bool wait_for_workers, int world_size)
    : Store(timeout), host_(std::move(host)), port_(port) {
  TC_CHECK(port >= 0 && port < 65536, "TCPStore: port must be in [0, 65535], got ", port);
  if (is_master) {
    server_ = std::make_unique<Server>(port);
    port_ = server_->port();
  } else {
    TC_CHECK(port > 0, "TCPStore: a client needs the master's port, got 0");
  }
  connect_client();
  if (wait_for_workers && world_size > 0) {
    add("__tcpstore_workers", 1);
    if (is_master) {
      auto deadline = std::chrono::steady_clock::now() + timeout;
      while (add("__tcpstore_workers", 0) < world_size) {
        TC_CHECK_AS(Error, std::chrono::steady_clock::now() < deadline,
                    "TCPStore: timed out after ", timeout.count(), " ms waiting for ", world_size,
                    " workers to join (", add("__tcpstore_workers", 0), " joined)");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
  server_.reset();
}

void TCPStore::connect_client() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port = std::to_string(port_);
  int rc = ::getaddrinfo(host_.c_str(), port.c_str(), &hints, &res);
  TC_CHECK_AS(Error, rc == 0, "TCPStore: cannot resolve master address '", host_,
              "': ", gai_strerror(rc));
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  std::string last_error;
  while (true) {
    for (addrinfo* a = res; a; a = a->ai_next) {
      int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        fd_ = fd;
        ::freeaddrinfo(res);
        return;
      }
      last_error = std::strerror(errno);
      ::close(fd);
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::freeaddrinfo(res);
  TC_FAIL("TCPStore: could not connect to the master at ", host_, ":", port_, " within ",
          timeout_.count(), " ms (", last_error, ")");
}

Bytes TCPStore::request(uint8_t cmd, const std::vector<Bytes>& args, Milliseconds timeout,
                        const std::vector<std::string>& waited_keys) {
  std::lock_guard<std::mutex> g(mutex_);
  if (fd_ < 0) connect_client();
  Bytes msg = encode(args);
  msg.insert(msg.begin(), cmd);
  send_all(fd_, msg);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Bytes buf;
  std::vector<Bytes> reply;
  while (true) {
    size_t pos = 0;
    if (decode(buf, pos, reply)) break;
    auto left =
        std::chrono::duration_cast<Milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    int r = left.count() > 0 ? ::poll(&p, 1, int(left.count())) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      // The reply may still come; a fresh connection keeps later requests in step.
      ::close(fd_);
      fd_ = -1;
      TC_FAIL("TCPStore: timed out after ", timeout.count(), " ms waiting for keys ",
              describe_keys(waited_keys), " (master ", host_, ":", port_, ")");
    }
    uint8_t tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof(tmp), 0);
    if (n <= 0) {
      ::close(fd_);
      fd_ = -1;
      TC_FAIL("TCPStore: the connection to the master at ", host_, ":", port_,
              " was closed (the master process exited?)");
    }
    buf.insert(buf.end(), tmp, tmp + n);
  }
  return reply.empty() ? Bytes{} : reply[0];
}

void TCPStore::set(const std::string& key, const Bytes& value) {
  request(kSet, {to_bytes(key), value}, timeout_, {key});
}

Bytes TCPStore::get(const std::string& key) {
  wait({key}, timeout_);
  return request(kGet, {to_bytes(key)}, timeout_, {key});
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  return std::stoll(
      to_string(request(kAdd, {to_bytes(key), to_bytes(std::to_string(delta))}, timeout_, {key})));
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return request(kCompareSet, {to_bytes(key), expected, desired}, timeout_, {key});
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::vector<Bytes> args;
  for (auto& k : keys) args.push_back(to_bytes(k));
  return to_string(request(kCheck, args, timeout_, keys)) == "1";
}

bool TCPStore::delete_key(const std::string& key) {
  return to_string(request(kDelete, {to_bytes(key)}, timeout_, {key})) == "1";
}

int64_t TCPStore::num_keys() { return std::stoll(to_string(request(kNumKeys, {}, timeout_, {}))); }

void TCPStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  std::vector<Bytes> args;
  for (auto& k : keys) args.push_back(to_bytes(k));
  request(kWait, args, timeout, keys);
}

}  // namespace tc::distributed
