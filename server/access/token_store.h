// File: token_store.h
//
// The bearer tokens a server accepts, loaded from a token file that holds
// only SHA-256 hashes of the tokens (a leaked file grants nothing).
//
// Token file format, one token per line; blank lines and lines starting
// with '#' are ignored; fields are separated by spaces or tabs:
//
//   <sha256 hex of the token> <role> <worlds> [label] [option=value ...]
//
//   role    reader | writer | admin
//   worlds  '*' (every world, including worlds created later) or a
//           comma-separated list of world ids
//   label   optional name shown in error messages and logs (never the token)
//   options max_rewind_ms=N: the furthest back (milliseconds) ValidateShots
//           judges this caller's shots; older shots are TOO_OLD
//
// e.g. `printf '%s' "$TOKEN" | sha256sum` gives the hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace arbiter::server {

enum class Role { kReader = 0, kWriter = 1, kAdmin = 2 };

const char* RoleName(Role role);

/// What one token may do.
struct TokenGrant {
  std::string hash_hex;  ///< SHA-256 of the token, lowercase hex
  Role role = Role::kReader;
  bool all_worlds = false;
  std::set<std::string, std::less<>> worlds;  ///< when !all_worlds
  std::string label;                          ///< for messages; the hash prefix when none given
  std::optional<uint32_t> max_rewind_ms;      ///< ValidateShots rewind cap of this caller

  bool CoversWorld(std::string_view world_id) const { return all_worlds || worlds.count(world_id) > 0; }
};

/// Token hash -> grant; immutable once built.
using TokenTable = std::map<std::string, std::shared_ptr<const TokenGrant>, std::less<>>;

/// SHA-256 of `data` as 64 lowercase hex digits (OpenSSL libcrypto).
std::string Sha256Hex(std::string_view data);

/// Parses a token file's text; errors name `source` and the line.
absl::StatusOr<TokenTable> ParseTokenFile(std::string_view text, std::string_view source);

/// The current token table, replaceable at run time (SIGHUP). Thread-safe.
class TokenStore {
 public:
  /// Loads `path`; fails (naming the file and line) if it cannot be read or parsed.
  static absl::StatusOr<std::unique_ptr<TokenStore>> Load(std::string path);

  /// The grant of `token` (the bearer token as sent), or null if unknown.
  std::shared_ptr<const TokenGrant> Find(std::string_view token) const;
  /// The grant whose token hashes to `hash_hex`, or null if it is gone.
  std::shared_ptr<const TokenGrant> FindByHash(std::string_view hash_hex) const;
  /// Reads the file again. On success the new table replaces the old and
  /// the number of tokens is returned; on any error the old table stays.
  absl::StatusOr<size_t> Reload();

  const std::string& path() const { return path_; }
  size_t size() const;

 private:
  explicit TokenStore(std::string path) : path_(std::move(path)) {}
  std::shared_ptr<const TokenTable> table() const;

  const std::string path_;
  mutable std::mutex mu_;
  std::shared_ptr<const TokenTable> table_;
};

}  // namespace arbiter::server
