#include "arbiter/render/exact_decimal.h"

namespace arbiter::render {

void AppendExactDecimal(std::string* out, int64_t raw) {
  // Magnitude in unsigned arithmetic, so that INT64_MIN has one too.
  const uint64_t magnitude = raw < 0 ? uint64_t{0} - static_cast<uint64_t>(raw) : static_cast<uint64_t>(raw);
  if (raw < 0) out->push_back('-');
  out->append(std::to_string(magnitude >> 32));
  uint64_t fraction = magnitude & 0xFFFFFFFFu;
  if (fraction == 0) return;
  out->push_back('.');
  // Each digit: fraction * 10 < 2^36, no overflow; ends after at most 32
  // digits because 10^32 is a multiple of 2^32.
  while (fraction != 0) {
    fraction *= 10;
    out->push_back(static_cast<char>('0' + (fraction >> 32)));
    fraction &= 0xFFFFFFFFu;
  }
}

std::string ExactDecimal(int64_t raw) {
  std::string out;
  AppendExactDecimal(&out, raw);
  return out;
}

std::optional<int64_t> ParseExactDecimal(std::string_view text) {
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty() || whole.size() > 10 || (dot != std::string_view::npos && fraction.empty())) return std::nullopt;
  unsigned __int128 integer = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    integer = integer * 10 + static_cast<unsigned>(c - '0');
  }
  // fraction digits / 10^k as a Q32.32 value: (digits * 2^32 + 10^k / 2) / 10^k.
  // Digits past the 25th are ignored (10^25 * 2^32 < 2^128); they move the
  // value by less than 10^-25, far below the 2^-32 step.
  unsigned __int128 digits = 0, scale = 1;
  for (size_t i = 0; i < fraction.size(); ++i) {
    const char c = fraction[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (i < 25) {
      digits = digits * 10 + static_cast<unsigned>(c - '0');
      scale *= 10;
    }
  }
  const unsigned __int128 magnitude = (integer << 32) + (((digits << 32) + scale / 2) / scale);
  if (magnitude >= (static_cast<unsigned __int128>(1) << 63)) return std::nullopt;
  const int64_t raw = static_cast<int64_t>(magnitude);
  return negative ? -raw : raw;
}

}  // namespace arbiter::render
