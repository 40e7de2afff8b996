// File: json_reader.h
//
// A tiny pull reader for the subset of JSON the standard scene files use
// (scenes/FORMAT.md): objects, arrays, strings without escapes beyond the
// simple ones, integers and decimal numbers. It exists so that the
// determinism runner can load the standard scenes with the core alone, with
// no JSON library, so that it cross-compiles with nothing but a cross g++.
//
// Why a reader and not a build-time conversion to C++ data: the runner then
// reads the very files every other consumer reads (no generated copy that
// could drift), the build needs no Python, and the number conversion below
// is itself integer code that runs, and is checked, on every target.
//
// Numbers never pass through floating point: ParseFixed converts the
// decimal text exactly to Q32.32 (raw = value * 2^32) with integer
// arithmetic, and rejects any number that is not exactly a multiple of
// 2^-32 in range (the standard files hold multiples of 1/1024 below 2^12).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace arbiter::determinism {

/// Exact decimal-to-Q32.32 conversion of a JSON number's text
/// ("-1393.0068359375", "1", "9.765625e-4"). Returns false (and leaves *raw
/// unchanged) unless the value is exactly representable with |value| < 2^31
/// and the text has at most 19 significant digits and 27 fractional digits
/// (after dropping trailing zeros); multiples of 1/1024 need at most 10.
/// Never rounds.
bool ParseFixedRaw(std::string_view text, int64_t* raw);

/// A JSON integer's text as int64 / uint64 (no fraction, no exponent).
bool ParseInt64(std::string_view text, int64_t* out);
bool ParseUint64(std::string_view text, uint64_t* out);

/// Reads one JSON document front to back. Every method either succeeds or
/// records the first error (with its byte offset) and makes every later call
/// fail, so callers can check ok() once at the end of a block.
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void Fail(const std::string& what);

  /// Object members: BeginObject(), then while (NextKey(&key)) { read value }.
  bool BeginObject();
  bool NextKey(std::string_view* key);
  /// Array items: BeginArray(), then while (NextItem()) { read value }.
  bool BeginArray();
  bool NextItem();

  bool ReadString(std::string_view* out);  ///< the raw text between the quotes
  bool ReadNumberText(std::string_view* out);
  bool ReadFixedRaw(int64_t* raw);
  bool ReadInt64(int64_t* out);
  bool ReadUint64(uint64_t* out);
  bool ReadBool(bool* out);  ///< `true` or `false`
  /// Skips any value (used for members the runner does not need).
  bool SkipValue();
  /// True when only whitespace remains.
  bool AtEnd();

 private:
  void SkipSpace();
  bool Expect(char c);
  // Opens an object or array: the opener, then one level deeper.
  bool Begin(char opener);
  bool Peek(char* c);
  bool NextElement(char closer);

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
  // Whether the innermost open container has produced an element yet
  // (one bit per nesting level, up to 64 levels).
  uint64_t first_ = 0;
  int depth_ = 0;
};

}  // namespace arbiter::determinism
