#include "json_reader.h"

namespace arbiter::determinism {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

// value = N * 10^-k with N the significant digits; raw = N * 2^32 / 10^k
// = (N / 5^k) * 2^(32 - k), exact iff 5^k divides N (after dropping
// trailing zeros, which lowers k) and k <= 32.
bool ParseFixedRaw(std::string_view text, int64_t* raw) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  std::string digits;  // integer and fraction digits, no point
  int64_t k = 0;       // value = digits * 10^-k
  const size_t int_start = i;
  while (i < text.size() && IsDigit(text[i])) digits.push_back(text[i++]);
  if (i == int_start) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const size_t frac_start = i;
    while (i < text.size() && IsDigit(text[i])) {
      digits.push_back(text[i++]);
      ++k;
    }
    if (i == frac_start) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    const size_t exp_start = i;
    int64_t exponent = 0;
    while (i < text.size() && IsDigit(text[i])) {
      if (exponent > 100000) return false;
      exponent = exponent * 10 + (text[i++] - '0');
    }
    if (i == exp_start) return false;
    k += exp_negative ? exponent : -exponent;
  }
  if (i != text.size()) return false;

  // Canonicalise: no leading zeros, no trailing zeros while k > 0.
  size_t lead = 0;
  while (lead < digits.size() && digits[lead] == '0') ++lead;
  digits.erase(0, lead);
  if (digits.empty()) {
    *raw = 0;
    return true;
  }
  while (k > 0 && digits.back() == '0') {
    digits.pop_back();
    --k;
  }
  while (k < 0) {
    digits.push_back('0');
    ++k;
  }
  if (digits.size() > 19 || k > 27) return false;  // |value| >= 2^31 or not a multiple of 2^-32
  uint64_t n = 0;
  for (char c : digits) n = n * 10 + static_cast<uint64_t>(c - '0');
  uint64_t pow5 = 1;
  for (int64_t j = 0; j < k; ++j) pow5 *= 5;
  if (n % pow5 != 0) return false;
  const uint64_t q = n / pow5;
  const int shift = static_cast<int>(32 - k);
  if (q >= (uint64_t{1} << (63 - shift))) return false;  // |value| >= 2^31
  const uint64_t magnitude = q << shift;
  *raw = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool ParseUint64(std::string_view text, uint64_t* out) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (!IsDigit(c)) return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (~uint64_t{0} - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool ParseInt64(std::string_view text, int64_t* out) {
  const bool negative = !text.empty() && text[0] == '-';
  uint64_t magnitude = 0;
  if (!ParseUint64(negative ? text.substr(1) : text, &magnitude)) return false;
  if (magnitude > (negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1)) return false;
  *out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

void JsonReader::Fail(const std::string& what) {
  if (error_.empty()) error_ = "byte " + std::to_string(pos_) + ": " + what;
}

void JsonReader::SkipSpace() {
  while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
}

bool JsonReader::Peek(char* c) {
  if (!ok()) return false;
  SkipSpace();
  if (pos_ >= text_.size()) {
    Fail("unexpected end of input");
    return false;
  }
  *c = text_[pos_];
  return true;
}

bool JsonReader::Expect(char want) {
  char c;
  if (!Peek(&c)) return false;
  if (c != want) {
    Fail(std::string("expected '") + want + "', found '" + c + "'");
    return false;
  }
  ++pos_;
  return true;
}

bool JsonReader::BeginObject() { return Begin('{'); }
bool JsonReader::BeginArray() { return Begin('['); }

bool JsonReader::Begin(char opener) {
  if (!Expect(opener)) return false;
  if (depth_ >= 64) {
    Fail("nesting too deep");
    return false;
  }
  first_ |= uint64_t{1} << depth_;
  ++depth_;
  return true;
}

// Consumes the closer of the innermost container (false: it ended) or,
// after its first element, the separating comma (true: an element follows).
bool JsonReader::NextElement(char closer) {
  char c;
  if (depth_ == 0 || !Peek(&c)) return false;
  const uint64_t bit = uint64_t{1} << (depth_ - 1);
  if (c == closer) {
    ++pos_;
    --depth_;
    return false;
  }
  if ((first_ & bit) != 0) {
    first_ &= ~bit;
    return true;
  }
  return Expect(',');
}

bool JsonReader::NextKey(std::string_view* key) { return NextElement('}') && ReadString(key) && Expect(':'); }

bool JsonReader::NextItem() { return NextElement(']'); }

bool JsonReader::ReadString(std::string_view* out) {
  if (!Expect('"')) return false;
  const size_t start = pos_;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\\') ++pos_;  // skip the escaped character
    ++pos_;
  }
  if (pos_ >= text_.size()) {
    Fail("unterminated string");
    return false;
  }
  *out = text_.substr(start, pos_ - start);
  ++pos_;
  return true;
}

bool JsonReader::ReadNumberText(std::string_view* out) {
  char c;
  if (!Peek(&c)) return false;
  const size_t start = pos_;
  while (pos_ < text_.size()) {
    c = text_[pos_];
    if (!(IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) break;
    ++pos_;
  }
  if (pos_ == start) {
    Fail("expected a number");
    return false;
  }
  *out = text_.substr(start, pos_ - start);
  return true;
}

bool JsonReader::ReadFixedRaw(int64_t* raw) {
  std::string_view text;
  if (!ReadNumberText(&text)) return false;
  if (!ParseFixedRaw(text, raw)) {
    Fail("number " + std::string(text) + " is not exactly representable in Q32.32");
    return false;
  }
  return true;
}

bool JsonReader::ReadInt64(int64_t* out) {
  std::string_view text;
  if (!ReadNumberText(&text)) return false;
  if (!ParseInt64(text, out)) {
    Fail("expected an integer, found " + std::string(text));
    return false;
  }
  return true;
}

bool JsonReader::ReadUint64(uint64_t* out) {
  std::string_view text;
  if (!ReadNumberText(&text)) return false;
  if (!ParseUint64(text, out)) {
    Fail("expected a non-negative integer, found " + std::string(text));
    return false;
  }
  return true;
}

bool JsonReader::ReadBool(bool* out) {
  char c;
  if (!Peek(&c)) return false;
  for (const bool value : {true, false}) {
    const std::string_view word = value ? "true" : "false";
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      *out = value;
      return true;
    }
  }
  Fail("expected true or false");
  return false;
}

bool JsonReader::SkipValue() {
  char c;
  if (!Peek(&c)) return false;
  if (c == '{') {
    BeginObject();
    std::string_view key;
    while (NextKey(&key)) SkipValue();
    return ok();
  }
  if (c == '[') {
    BeginArray();
    while (NextItem()) SkipValue();
    return ok();
  }
  if (c == '"') {
    std::string_view s;
    return ReadString(&s);
  }
  for (std::string_view word : {std::string_view("true"), std::string_view("false"), std::string_view("null")}) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
  }
  std::string_view number;
  return ReadNumberText(&number);
}

bool JsonReader::AtEnd() {
  SkipSpace();
  return pos_ == text_.size();
}

}  // namespace arbiter::determinism
