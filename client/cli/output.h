// How server commands print: results on stdout (text, or JSON with
// --json), errors on stderr with what to do about them.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "arbiter/v1/arbiter.pb.h"
#include "command.h"

namespace arbiter::cli {

using Json = nlohmann::ordered_json;

/// Prints "arbiter: NAME: message" and returns 2 (bad usage).
int Usage(const Context& c, const std::string& message);
/// Prints the status the server (or the channel) gave, a hint on what to do
/// for the common cases, and returns 1.
int Fail(const Context& c, const absl::Status& status);
/// A local file could not be read or written: names the file and the
/// system's reason (errno), says it is local, returns 1.
int FileError(const Context& c, const std::string& verb, const std::string& path);

void PrintJson(const Json& j);
std::string Hex(uint64_t v);
Json VecJson(const v1::Vec2& v);
/// The raw Q32.32 values [x, y] (for --json's "raw" members).
Json VecRaw(const v1::Vec2& v);
/// "(x, y)" in world units, 10 significant digits.
std::string VecText(const v1::Vec2& v);
Json HitJson(const v1::Hit& h);
/// "body 3 shape 0  t=0.5  point (x, y)  normal (x, y)" (no newline).
std::string HitText(const v1::Hit& h);
/// "tick 120" or "tick 120 + 0.25" (a past tick's fraction).
std::string TickText(int64_t tick, int64_t fraction_raw);

}  // namespace arbiter::cli
