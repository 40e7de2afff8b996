// File: access.h
//
// Who may make a call: every ArbiterService handler first calls
// AccessControl::Admit, which in this order
//   1. authenticates: the "authorization: Bearer <token>" metadata against
//      the token file (UNAUTHENTICATED when missing or unknown);
//   2. authorizes: the token's role and worlds against what the call needs
//      (PERMISSION_DENIED);
//   3. applies the caller's limits: its request rate, then its calls in
//      flight (RESOURCE_EXHAUSTED, naming the limit and its flag).
// All of this happens before the request is validated or any world is
// touched, so a refused call changes nothing and learns nothing.
//
// With no token file (open access) step 1 and 2 admit everyone as an admin
// of every world and the caller for step 3 is the connection (the peer
// address and port); with tokens it is the token, across connections.
//
// Admit returns a Permit, which holds the caller's call-in-flight slot
// until the last copy of it is gone: handlers keep it with the work (the
// pool task, the stream's reactor) so the slot is held while the call runs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <grpcpp/server_context.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "access/rate_limiter.h"
#include "access/token_store.h"

namespace arbiter::server {

/// What a call needs. Each level includes the ones before it.
enum class Access {
  kRead,   ///< queries, hashes, watch, list, describe (role reader)
  kWrite,  ///< bodies, steps, snapshots, restore (role writer)
  kAdmin,  ///< create and delete worlds (role admin)
};

struct AccessOptions {
  /// The token file (token_store.h); empty: open access.
  std::string token_file;
  RateLimits limits;
};

class AccessControl;

/// An admitted call. Copies share one call-in-flight slot, returned when
/// the last copy is destroyed.
class Permit {
 public:
  /// Whether this caller may do `access` on `world_id` (ListWorlds shows
  /// only the worlds its caller may read).
  bool Allows(Access access, std::string_view world_id) const;
  /// For each further request on an open stream (QueryStream): the token
  /// must still be in the token file, may do `access` on `world_id`, and
  /// takes one request from its rate limit.
  absl::Status Recheck(Access access, std::string_view world_id) const;
  /// The caller's ValidateShots rewind cap (its token's max_rewind_ms), if any.
  std::optional<uint32_t> max_rewind_ms() const;

 private:
  friend class AccessControl;
  struct State;
  explicit Permit(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

class AccessControl {
 public:
  /// Loads the token file, if any.
  static absl::StatusOr<std::unique_ptr<AccessControl>> Create(const AccessOptions& options);
  ~AccessControl();

  /// See the file comment. `world_id` is the world the call names; empty
  /// for calls on no single world (ListWorlds, QueryStream's opening).
  absl::StatusOr<Permit> Admit(const grpc::ServerContextBase& context, Access access, std::string_view world_id);
  /// The same, from the call's "authorization" metadata (nullopt: absent)
  /// and its peer address.
  absl::StatusOr<Permit> Admit(std::optional<std::string_view> authorization, std::string_view peer, Access access,
                               std::string_view world_id);

  /// Re-reads the token file (SIGHUP): the number of tokens now in force, or
  /// why the file was rejected (then the old tokens stay). New calls, and
  /// further messages of open QueryStreams, see the new tokens.
  absl::StatusOr<size_t> ReloadTokens();

  /// Who is calling, for request logs: the token's label ("token 'x'"),
  /// "unknown token" / "no token", or under open access the connection.
  /// Never the token itself.
  std::string CallerLabel(std::optional<std::string_view> authorization, std::string_view peer) const;

  /// Calls refused by the rate limit and by the calls-in-flight limit
  /// since start (for /metrics).
  uint64_t rate_limited() const { return rate_limited_.load(std::memory_order_relaxed); }
  uint64_t in_flight_rejected() const { return in_flight_rejected_.load(std::memory_order_relaxed); }

  size_t token_count() const { return tokens_ == nullptr ? 0 : tokens_->size(); }
  const RateLimits& limits() const { return limiter_.limits(); }

 private:
  friend class Permit;
  explicit AccessControl(const RateLimits& limits) : limiter_(limits) {}
  absl::Status Authorize(const TokenGrant* grant, Access access, std::string_view world_id) const;
  absl::Status TakeRequest(const std::string& key, const std::string& who);

  std::unique_ptr<TokenStore> tokens_;
  RateLimiter limiter_;
  std::atomic<uint64_t> rate_limited_{0};
  std::atomic<uint64_t> in_flight_rejected_{0};
};

}  // namespace arbiter::server
