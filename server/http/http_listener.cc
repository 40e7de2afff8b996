#include "http/http_listener.h"

#include <charconv>
#include <chrono>
#include <optional>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "http/viewer_api.h"
#include "http/viewer_assets.h"
#include "http/viewer_stream.h"
#include "ops/metrics.h"

namespace arbiter::server {
namespace {

constexpr const char* kJson = "application/json";
constexpr const char* kWorldPattern = "([A-Za-z0-9._-]{1,64})";

int HttpStatus(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kUnauthenticated: return 401;
    case absl::StatusCode::kPermissionDenied: return 403;
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kResourceExhausted: return 429;
    case absl::StatusCode::kUnavailable: return 503;
    default: return 500;
  }
}

void Fail(httplib::Response& res, const absl::Status& status) {
  res.status = HttpStatus(status.code());
  const nlohmann::json body = {{"code", StatusCodeName(static_cast<int>(status.code()))},
                               {"error", std::string(status.message())}};
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", kJson);
}

// The token of the "arbiter_token" cookie, if the request has one.
std::optional<std::string> CookieToken(const httplib::Request& req) {
  if (!req.has_header("Cookie")) return std::nullopt;
  for (absl::string_view part : absl::StrSplit(req.get_header_value("Cookie"), ';')) {
    part = absl::StripAsciiWhitespace(part);
    constexpr absl::string_view kName = "arbiter_token=";
    if (part.substr(0, kName.size()) == kName) return std::string(part.substr(kName.size()));
  }
  return std::nullopt;
}

// ?at=T: nullopt when absent; INVALID_ARGUMENT when not an integer.
absl::StatusOr<std::optional<int64_t>> AtParam(const httplib::Request& req) {
  if (!req.has_param("at")) return std::optional<int64_t>();
  const std::string text = req.get_param_value("at");
  int64_t tick = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), tick);
  if (error != std::errc() || end != text.data() + text.size()) {
    return absl::InvalidArgumentError("at: '" + text + "' is not a tick (an integer)");
  }
  return std::optional<int64_t>(tick);
}

// host:port -> (host, port); the host may be [v6] bracketed.
absl::StatusOr<std::pair<std::string, int>> SplitListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError("--http_listen: '" + listen + "' is not host:port");
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = -1;
  const char* first = listen.data() + colon + 1;
  const char* last = listen.data() + listen.size();
  const auto [end, error] = std::from_chars(first, last, port);
  if (error != std::errc() || end != last || port < 0 || port > 65535) {
    return absl::InvalidArgumentError("--http_listen: '" + listen + "' has no port number 0..65535");
  }
  return std::make_pair(host, port);
}

absl::StatusOr<std::unique_ptr<httplib::Server>> MakeServer(const TlsOptions& tls) {
  if (tls.cert_file.empty()) return std::make_unique<httplib::Server>();
  auto server = std::make_unique<httplib::SSLServer>(tls.cert_file.c_str(), tls.key_file.c_str(),
                                                     tls.client_ca_file.empty() ? nullptr : tls.client_ca_file.c_str());
  if (!server->is_valid()) {
    return absl::InvalidArgumentError("--http_listen: cannot serve TLS with --tls_cert '" + tls.cert_file +
                                      "' and --tls_key '" + tls.key_file + "'" +
                                      (tls.client_ca_file.empty() ? "" : " and --tls_client_ca '" + tls.client_ca_file + "'") +
                                      " (unreadable, or the key does not match the certificate)");
  }
  return std::unique_ptr<httplib::Server>(std::move(server));
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpListener>> HttpListener::Start(const std::string& listen, const TlsOptions& tls,
                                                                  const HttpSources& sources) {
  absl::StatusOr<std::pair<std::string, int>> address = SplitListen(listen);
  if (!address.ok()) return address.status();
  std::unique_ptr<HttpListener> l(new HttpListener(sources));
  absl::StatusOr<std::unique_ptr<httplib::Server>> server = MakeServer(tls);
  if (!server.ok()) return server.status();
  l->server_ = std::move(*server);
  // Room for the event streams and as many short requests.
  l->server_->new_task_queue = [] { return new httplib::ThreadPool(2 * kMaxStreams); };
  l->Route();
  const auto& [host, port] = *address;
  const bool bound = port == 0 ? (l->port_ = l->server_->bind_to_any_port(host)) > 0
                               : (l->port_ = port, l->server_->bind_to_port(host, port));
  if (!bound) {
    return absl::UnavailableError("--http_listen: cannot listen on '" + listen +
                                  "' (is another process using the port?)");
  }
  l->thread_ = std::thread([server = l->server_.get()] { server->listen_after_bind(); });
  return l;
}

HttpListener::HttpListener(const HttpSources& sources) : sources_(sources) {}

HttpListener::~HttpListener() { Stop(); }

void HttpListener::Stop() {
  std::call_once(stop_once_, [&] {
    {
      std::lock_guard<std::mutex> lock(streams_mu_);
      stopping_ = true;
      for (ViewerStream* stream : streams_) stream->Stop();
    }
    if (server_ != nullptr) server_->stop();  // null when Start failed early
    if (thread_.joinable()) thread_.join();
  });
}

absl::StatusOr<Permit> HttpListener::Admit(const httplib::Request& req, std::string_view world_id) {
  std::optional<std::string> authorization;
  if (req.has_header("Authorization")) {
    authorization = req.get_header_value("Authorization");
  } else if (std::optional<std::string> token = CookieToken(req)) {
    authorization = "Bearer " + *token;
  }
  const std::string peer = req.remote_addr + ":" + std::to_string(req.remote_port);
  return sources_.access->Admit(authorization ? std::optional<std::string_view>(*authorization) : std::nullopt, peer,
                                Access::kRead, world_id);
}

void HttpListener::Route() {
  server_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(ViewerPage()), "text/html; charset=utf-8");
  });
  server_->Get("/viewer.js", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(ViewerScript()), "text/javascript; charset=utf-8");
  });
  server_->Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<Permit> permit = Admit(req, "");
    if (!permit.ok()) return Fail(res, permit.status());
    res.set_content(RenderMetrics(sources_.metrics,
                                  [&](std::string_view world) { return permit->Allows(Access::kRead, world); }),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/api/worlds", [this](const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<Permit> permit = Admit(req, "");
    if (!permit.ok()) return Fail(res, permit.status());
    res.set_content(WorldsJson(*sources_.registry,
                               [&](std::string_view world) { return permit->Allows(Access::kRead, world); }),
                    kJson);
  });
  server_->Get(std::string("/api/worlds/") + kWorldPattern, [this](const httplib::Request& req, httplib::Response& res) {
    const std::string world = req.matches[1];
    absl::StatusOr<Permit> permit = Admit(req, world);
    if (!permit.ok()) return Fail(res, permit.status());
    absl::StatusOr<std::optional<int64_t>> at = AtParam(req);
    if (!at.ok()) return Fail(res, at.status());
    absl::StatusOr<std::string> json = WorldJson(*sources_.registry, world, *at);
    if (!json.ok()) return Fail(res, json.status());
    res.set_content(*json, kJson);
  });
  server_->Get(std::string("/api/worlds/") + kWorldPattern + "/events",
               [this](const httplib::Request& req, httplib::Response& res) { ServeEvents(req.matches[1], req, res); });
}

void HttpListener::ServeEvents(const std::string& world_id, const httplib::Request& req, httplib::Response& res) {
  absl::StatusOr<Permit> permit = Admit(req, world_id);
  if (!permit.ok()) return Fail(res, permit.status());
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = sources_.registry->Find(world_id);
  if (!entry.ok()) return Fail(res, entry.status());
  absl::StatusOr<std::unique_ptr<ViewerStream>> opened = ViewerStream::Open(*entry, sources_.hits);
  if (!opened.ok()) return Fail(res, opened.status());
  std::shared_ptr<ViewerStream> stream = std::move(*opened);
  {
    std::lock_guard<std::mutex> lock(streams_mu_);
    if (stopping_) return Fail(res, absl::UnavailableError("server shutting down"));
    if (streams_.size() >= kMaxStreams) {
      return Fail(res, absl::UnavailableError("too many viewer streams open (" + std::to_string(kMaxStreams) +
                                              "); close a viewer"));
    }
    streams_.insert(stream.get());
  }
  res.set_header("Cache-Control", "no-store");
  // The permit rides with the provider: the stream holds its caller's slot.
  res.set_chunked_content_provider(
      "text/event-stream",
      [stream, permit = *std::move(permit)](size_t, httplib::DataSink& sink) {
        std::optional<std::string> message = stream->Next(std::chrono::seconds(1));
        if (!message) {
          sink.done();
          return true;
        }
        return sink.write(message->data(), message->size());
      },
      [this, stream](bool) {
        std::lock_guard<std::mutex> lock(streams_mu_);
        streams_.erase(stream.get());
      });
}

}  // namespace arbiter::server
