// nginx's consistent hash, recomputed (see fleet.h). Written from the
// behaviour of ngx_http_upstream_init_chash / find_chash_point: the same
// bytes hashed in the same order, so owners agree with the proxy's.
#include <algorithm>
#include <array>

#include "arbiter/client/fleet.h"

namespace arbiter::client {
namespace {

constexpr uint32_t kPointsPerServer = 160;  // nginx: 160 * weight

const std::array<uint32_t, 256>& CrcTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// The running (not finalised) CRC state, as ngx_crc32_update keeps it.
uint32_t CrcUpdate(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) crc = CrcTable()[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return crc;
}

// nginx splits "host:port" at the last ':' when only digits follow it.
std::pair<std::string, std::string> SplitHostPort(const std::string& server) {
  const size_t colon = server.rfind(':');
  if (colon == std::string::npos) return {server, ""};
  const std::string port = server.substr(colon + 1);
  if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) return {server, ""};
  return {server.substr(0, colon), port};
}

}  // namespace

uint32_t Crc32(const void* data, size_t size) { return CrcUpdate(0xffffffffu, data, size) ^ 0xffffffffu; }

ConsistentHashRing::ConsistentHashRing(std::vector<std::string> servers) : servers_(std::move(servers)) {
  for (size_t s = 0; s < servers_.size(); ++s) {
    const auto [host, port] = SplitHostPort(servers_[s]);
    uint32_t base = CrcUpdate(0xffffffffu, host.data(), host.size());
    base = CrcUpdate(base, "", 1);
    base = CrcUpdate(base, port.data(), port.size());
    uint32_t prev = 0;
    for (uint32_t k = 0; k < kPointsPerServer; ++k) {
      const uint8_t bytes[4] = {static_cast<uint8_t>(prev), static_cast<uint8_t>(prev >> 8),
                                static_cast<uint8_t>(prev >> 16), static_cast<uint8_t>(prev >> 24)};
      const uint32_t hash = CrcUpdate(base, bytes, 4) ^ 0xffffffffu;
      points_.emplace_back(hash, s);
      prev = hash;
    }
  }
  // nginx sorts by hash alone (qsort: equal hashes in no defined order) and
  // keeps the first of equal ones; a tie between servers is a 2^-32 event
  // per pair of points, settled here by server order.
  std::stable_sort(points_.begin(), points_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  points_.erase(std::unique(points_.begin(), points_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                points_.end());
}

size_t ConsistentHashRing::OwnerIndex(const std::string& key) const {
  if (points_.empty()) return 0;  // no servers: documented as not allowed
  const uint32_t hash = Crc32(key.data(), key.size());
  auto it = std::lower_bound(points_.begin(), points_.end(), hash,
                             [](const std::pair<uint32_t, size_t>& p, uint32_t h) { return p.first < h; });
  if (it == points_.end()) it = points_.begin();  // nginx: point index % number
  return it->second;
}

}  // namespace arbiter::client
