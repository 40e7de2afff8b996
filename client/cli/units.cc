#include "units.h"

#include <cstdio>

#include "absl/status/statusor.h"
#include "arbiter/client/client.h"
#include "arbiter/core/fixed.h"
#include "args.h"

namespace arbiter::cli {

std::optional<std::string> ParseUnits(const std::string& name, const std::string& text, UnitRange range,
                                      double* out) {
  const std::optional<double> v = ParseDouble(text);
  if (!v) return name + ": '" + text + "' is not a number (world units, e.g. 12.5 or -3e2)";
  // Checked on the converted raw value, so the bound is exactly the
  // service's (a double just past 2^29 that rounds onto it is accepted, as
  // the server would).
  const int64_t limit_raw = int64_t{1} << (range.log2 + Fixed::kFractionBits);
  if (Fixed::IsRepresentable(*v)) {
    const int64_t raw = Fixed::FromDouble(*v).raw();
    if (raw >= -limit_raw && raw <= limit_raw) {
      *out = *v;
      return std::nullopt;
    }
  }
  const long long bound = 1LL << range.log2;
  return name + ": " + text + " is outside the world-unit range for " + range.kind + ": [-" +
         std::to_string(bound) + ", " + std::to_string(bound) + "] (+-2^" + std::to_string(range.log2) + ")";
}

std::optional<std::string> ParsePair(const std::string& name, const std::string& text, UnitRange range,
                                     double* x, double* y) {
  const size_t comma = text.find(',');
  if (comma == std::string::npos) return name + ": expected X,Y (two numbers and a comma), got '" + text + "'";
  if (auto e = ParseUnits(name + " (x)", text.substr(0, comma), range, x)) return e;
  return ParseUnits(name + " (y)", text.substr(comma + 1), range, y);
}

std::optional<std::string> ParseAt(const std::string& text, v1::PastTick* out) {
  const size_t colon = text.find(':');
  const std::string tick_text = text.substr(0, colon);
  const std::optional<uint64_t> tick = ParseUint(tick_text);
  if (!tick || *tick > static_cast<uint64_t>(INT64_MAX)) {
    return "--at: tick '" + tick_text + "' is not a tick number (a non-negative integer; see `arbiter describe`)";
  }
  double fraction = 0;
  if (colon != std::string::npos) {
    const std::string f = text.substr(colon + 1);
    const std::optional<double> v = ParseDouble(f);
    if (!v) return "--at: FRACTION '" + f + "' is not a number (expected TICK:FRACTION, e.g. 120:0.25)";
    fraction = *v;
  }
  absl::StatusOr<v1::PastTick> at = client::MakePastTick(static_cast<int64_t>(*tick), fraction);
  if (!at.ok()) return "--at: " + std::string(at.status().message());
  *out = *at;
  return std::nullopt;
}

}  // namespace arbiter::cli
