// File: exact_decimal.h
//
// The exact decimal text of a Q32.32 raw value, by integer arithmetic only:
// raw / 2^32 always has a finite decimal expansion (at most 32 fraction
// digits), so the text names exactly the value the core computed and is
// the same bytes on every machine. Used wherever Arbiter writes geometry as
// text (SVG, the viewer's JSON).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::render {

/// Appends the shortest exact decimal of raw / 2^32: "-12.25", "0",
/// "0.00000000023283064365386962890625" (2^-32). Every int64 is accepted,
/// including INT64_MIN (-2147483648).
void AppendExactDecimal(std::string* out, int64_t raw);

/// The same, as a new string.
std::string ExactDecimal(int64_t raw);

/// The Q32.32 raw value nearest to a decimal written as [-]digits[.digits]
/// (ties away from zero; digits past the 25th after the point are
/// ignored), by integer arithmetic; nullopt when the text is
/// not such a number or its magnitude reaches 2^31.
std::optional<int64_t> ParseExactDecimal(std::string_view text);

}  // namespace arbiter::render
