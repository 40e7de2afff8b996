#include "access/access.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace arbiter::server {
namespace {

// The token of an "authorization: Bearer <token>" value (scheme matched
// without regard to case); nullopt for any other form.
std::optional<std::string_view> BearerToken(std::string_view authorization) {
  // Debian's Abseil has its own string_view, not std's.
  absl::string_view value = absl::StripAsciiWhitespace(absl::string_view(authorization.data(), authorization.size()));
  constexpr absl::string_view kScheme = "bearer ";
  if (value.size() <= kScheme.size() || !absl::StartsWithIgnoreCase(value, kScheme)) return std::nullopt;
  value = absl::StripLeadingAsciiWhitespace(value.substr(kScheme.size()));
  return std::string_view(value.data(), value.size());
}

const char* AccessVerb(Access access) {
  switch (access) {
    case Access::kRead: return "read";
    case Access::kWrite: return "write";
    case Access::kAdmin: return "administer";
  }
  return "?";
}

Role NeededRole(Access access) {
  switch (access) {
    case Access::kRead: return Role::kReader;
    case Access::kWrite: return Role::kWriter;
    case Access::kAdmin: return Role::kAdmin;
  }
  return Role::kAdmin;
}

}  // namespace

struct Permit::State {
  AccessControl* control = nullptr;
  std::shared_ptr<const TokenGrant> grant;  // null under open access
  std::string key;                          // the caller, for the rate limiter
  std::string who;                          // the caller, for messages
  bool holds_slot = false;
};

std::optional<uint32_t> Permit::max_rewind_ms() const {
  if (state_->grant == nullptr) return std::nullopt;
  return state_->grant->max_rewind_ms;
}

bool Permit::Allows(Access access, std::string_view world_id) const {
  return state_->control->Authorize(state_->grant.get(), access, world_id).ok();
}

absl::Status Permit::Recheck(Access access, std::string_view world_id) const {
  AccessControl* control = state_->control;
  if (state_->grant != nullptr) {
    // The token file may have been reloaded since the stream opened.
    const std::shared_ptr<const TokenGrant> now = control->tokens_->FindByHash(state_->grant->hash_hex);
    if (now == nullptr) return absl::UnauthenticatedError("authorization: token no longer accepted (token file reloaded)");
    if (absl::Status s = control->Authorize(now.get(), access, world_id); !s.ok()) return s;
  }
  return control->TakeRequest(state_->key, state_->who);
}

absl::StatusOr<std::unique_ptr<AccessControl>> AccessControl::Create(const AccessOptions& options) {
  // Written so that NaN fails too.
  if (!(options.limits.requests_per_second >= 0) || !(options.limits.burst >= 0)) {
    return absl::InvalidArgumentError("--rate_limit_rps and --rate_limit_burst must be >= 0");
  }
  std::unique_ptr<AccessControl> control(new AccessControl(options.limits));
  if (!options.token_file.empty()) {
    absl::StatusOr<std::unique_ptr<TokenStore>> tokens = TokenStore::Load(options.token_file);
    if (!tokens.ok()) return tokens.status();
    control->tokens_ = std::move(*tokens);
  }
  return control;
}

AccessControl::~AccessControl() = default;

absl::StatusOr<size_t> AccessControl::ReloadTokens() {
  if (tokens_ == nullptr) return absl::FailedPreconditionError("no token file (--token_file): open access, nothing to reload");
  return tokens_->Reload();
}

absl::Status AccessControl::Authorize(const TokenGrant* grant, Access access, std::string_view world_id) const {
  if (grant == nullptr) return absl::OkStatus();  // open access
  const Role needed = NeededRole(access);
  if (static_cast<int>(grant->role) < static_cast<int>(needed)) {
    return absl::PermissionDeniedError("token '" + grant->label + "' has role " + RoleName(grant->role) +
                                       "; this call needs role " + RoleName(needed));
  }
  // An empty id names no world (ListWorlds); requests that must name one
  // are rejected by validation after this.
  if (!world_id.empty() && !grant->CoversWorld(world_id)) {
    return absl::PermissionDeniedError("token '" + grant->label + "' may not " + AccessVerb(access) + " world '" +
                                       std::string(world_id) + "'");
  }
  return absl::OkStatus();
}

std::string AccessControl::CallerLabel(std::optional<std::string_view> authorization, std::string_view peer) const {
  if (tokens_ == nullptr) return "connection " + std::string(peer);
  if (!authorization) return "no token";
  std::optional<std::string_view> token = BearerToken(*authorization);
  std::shared_ptr<const TokenGrant> grant = token ? tokens_->Find(*token) : nullptr;
  return grant == nullptr ? "unknown token" : "token '" + grant->label + "'";
}

absl::Status AccessControl::TakeRequest(const std::string& key, const std::string& who) {
  if (limiter_.TryTakeRequest(key)) return absl::OkStatus();
  rate_limited_.fetch_add(1, std::memory_order_relaxed);
  const RateLimits& l = limiter_.limits();
  return absl::ResourceExhaustedError(absl::StrCat("rate limit: ", who, " made more than ", l.requests_per_second,
                                                   " requests/s (burst ", limiter_.burst(),
                                                   "); slow down (server flags --rate_limit_rps, --rate_limit_burst)"));
}

absl::StatusOr<Permit> AccessControl::Admit(const grpc::ServerContextBase& context, Access access,
                                            std::string_view world_id) {
  std::optional<std::string_view> authorization;
  const auto& metadata = context.client_metadata();
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    authorization = std::string_view(it->second.data(), it->second.size());
  }
  return Admit(authorization, context.peer(), access, world_id);
}

absl::StatusOr<Permit> AccessControl::Admit(std::optional<std::string_view> authorization, std::string_view peer,
                                            Access access, std::string_view world_id) {
  // The deleter returns the slot: the last copy of the Permit ends the call.
  std::shared_ptr<Permit::State> state(new Permit::State, [this](Permit::State* p) {
    if (p->holds_slot) limiter_.ExitCall(p->key);
    delete p;
  });
  state->control = this;
  if (tokens_ == nullptr) {
    state->key = "peer:" + std::string(peer);
    state->who = "connection " + std::string(peer);
  } else {
    if (!authorization) {
      return absl::UnauthenticatedError("authorization: missing; send metadata \"authorization: Bearer <token>\"");
    }
    std::optional<std::string_view> token = BearerToken(*authorization);
    if (!token) return absl::UnauthenticatedError("authorization: expected \"Bearer <token>\"");
    state->grant = tokens_->Find(*token);
    if (state->grant == nullptr) return absl::UnauthenticatedError("authorization: unknown token");
    if (absl::Status s = Authorize(state->grant.get(), access, world_id); !s.ok()) return s;
    state->key = "token:" + state->grant->hash_hex;
    state->who = "token '" + state->grant->label + "'";
  }
  if (absl::Status s = TakeRequest(state->key, state->who); !s.ok()) return s;
  if (!limiter_.TryEnterCall(state->key)) {
    in_flight_rejected_.fetch_add(1, std::memory_order_relaxed);
    return absl::ResourceExhaustedError("concurrency limit: " + state->who + " already has " +
                                        std::to_string(limiter_.limits().max_calls_in_flight) +
                                        " calls in flight (server flag --max_calls_in_flight)");
  }
  state->holds_slot = true;
  return Permit(std::move(state));
}

}  // namespace arbiter::server
