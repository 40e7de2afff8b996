#include "access/token_store.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "ops/world_registry.h"

namespace arbiter::server {
namespace {

bool IsLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::optional<Role> ParseRole(std::string_view s) {
  if (s == "reader") return Role::kReader;
  if (s == "writer") return Role::kWriter;
  if (s == "admin") return Role::kAdmin;
  return std::nullopt;
}

}  // namespace

const char* RoleName(Role role) {
  switch (role) {
    case Role::kReader: return "reader";
    case Role::kWriter: return "writer";
    case Role::kAdmin: return "admin";
  }
  return "?";
}

std::string Sha256Hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  // EVP rather than SHA256(): the low-level digest API is deprecated in OpenSSL 3.
  if (EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

namespace {

// One `name=value` option of a token line.
absl::Status ParseOption(const std::string& field, TokenGrant* grant) {
  const size_t eq = field.find('=');
  const std::string name = field.substr(0, eq);
  const std::string value = field.substr(eq + 1);
  if (name == "max_rewind_ms") {
    uint32_t ms = 0;
    if (!absl::SimpleAtoi(value, &ms)) {
      return absl::InvalidArgumentError("max_rewind_ms: '" + value + "' is not a whole number of milliseconds");
    }
    grant->max_rewind_ms = ms;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError("option '" + name + "' is not known (known: max_rewind_ms)");
}

}  // namespace

absl::StatusOr<TokenTable> ParseTokenFile(std::string_view text, std::string_view source) {
  TokenTable table;
  int line_number = 0;
  // Debian's Abseil has its own string_view, not std's: split as std::string.
  for (absl::string_view raw : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_number;
    const std::string where = std::string(source) + ":" + std::to_string(line_number) + ": ";
    const absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> fields;
    auto grant = std::make_shared<TokenGrant>();
    for (std::string& field : std::vector<std::string>(absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty()))) {
      if (field.find('=') == std::string::npos) {
        fields.push_back(std::move(field));
      } else if (absl::Status s = ParseOption(field, grant.get()); !s.ok()) {
        return absl::InvalidArgumentError(where + std::string(s.message()));
      }
    }
    if (fields.size() < 3 || fields.size() > 4) {
      return absl::InvalidArgumentError(where + "expected '<sha256 hex> <role> <worlds> [label] [option=value ...]', got " +
                                        std::to_string(fields.size()) + " fields");
    }
    grant->hash_hex = absl::AsciiStrToLower(fields[0]);
    if (grant->hash_hex.size() != 64 || !IsLowerHex(grant->hash_hex)) {
      return absl::InvalidArgumentError(where + "hash: expected 64 hex digits (the SHA-256 of the token, not the token)");
    }
    const std::optional<Role> role = ParseRole(fields[1]);
    if (!role) {
      return absl::InvalidArgumentError(where + "role: '" + fields[1] +
                                        "' is not reader, writer or admin");
    }
    grant->role = *role;
    if (fields[2] == "*") {
      grant->all_worlds = true;
    } else {
      for (absl::string_view part : absl::StrSplit(fields[2], ',')) {
        const std::string id(part);
        if (absl::Status s = ValidateWorldId(id, "worlds"); !s.ok()) {
          return absl::InvalidArgumentError(where + std::string(s.message()) + " ('*' means every world)");
        }
        grant->worlds.emplace(id);
      }
    }
    grant->label = fields.size() == 4 ? fields[3] : "sha256:" + grant->hash_hex.substr(0, 8);
    const std::string key = grant->hash_hex;
    if (!table.emplace(key, std::move(grant)).second) {
      return absl::InvalidArgumentError(where + "the same token hash appears twice");
    }
  }
  return table;
}

absl::StatusOr<std::unique_ptr<TokenStore>> TokenStore::Load(std::string path) {
  std::unique_ptr<TokenStore> store(new TokenStore(std::move(path)));
  absl::StatusOr<size_t> loaded = store->Reload();
  if (!loaded.ok()) return loaded.status();
  return store;
}

absl::StatusOr<size_t> TokenStore::Reload() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return absl::NotFoundError("token file '" + path_ + "': cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError("token file '" + path_ + "': read error");
  absl::StatusOr<TokenTable> table = ParseTokenFile(text.str(), path_);
  if (!table.ok()) return table.status();
  const size_t size = table->size();
  auto shared = std::make_shared<const TokenTable>(std::move(*table));
  std::lock_guard<std::mutex> lock(mu_);
  table_ = std::move(shared);
  return size;
}

std::shared_ptr<const TokenTable> TokenStore::table() const {
  std::lock_guard<std::mutex> lock(mu_);
  return table_;
}

size_t TokenStore::size() const { return table()->size(); }

std::shared_ptr<const TokenGrant> TokenStore::Find(std::string_view token) const {
  if (token.empty()) return nullptr;
  return FindByHash(Sha256Hex(token));
}

std::shared_ptr<const TokenGrant> TokenStore::FindByHash(std::string_view hash_hex) const {
  const std::shared_ptr<const TokenTable> t = table();
  auto it = t->find(hash_hex);
  return it == t->end() ? nullptr : it->second;
}

}  // namespace arbiter::server
