#include "service/request_observer.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "arbiter/v1/arbiter.pb.h"
#include "ops/server_log.h"
#include "service/rpc_table.h"

namespace arbiter::server {
namespace {

constexpr std::string_view kServicePrefix = "/arbiter.v1.Arbiter/";

}  // namespace

// One call: created when it arrives, deleted by gRPC when it is done.
class RequestObserver::Call final : public grpc::experimental::Interceptor {
 public:
  Call(const RequestObserver* observer, grpc::experimental::ServerRpcInfo* info)
      : observer_(observer), info_(info), start_(std::chrono::steady_clock::now()) {
    const std::string_view method = info->method();
    if (method.substr(0, kServicePrefix.size()) == kServicePrefix) {
      name_ = method.substr(kServicePrefix.size());
      if (const RpcInfo* rpc = FindRpc(name_); rpc != nullptr) summarize_ = rpc->summarize;
    } else {
      name_ = method;
    }
    counters_ = observer->metrics_->Find(method.substr(0, kServicePrefix.size()) == kServicePrefix ? name_ : "other");
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using Hook = grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(Hook::POST_RECV_MESSAGE) && summarize_ != nullptr &&
        methods->GetRecvMessage() != nullptr) {
      RequestSummary s = summarize_(methods->GetRecvMessage());
      if (world_.empty()) world_ = std::move(s.world);
      items_ += s.items;
    }
    if (methods->QueryInterceptionHookPoint(Hook::PRE_SEND_STATUS)) {
      Finished(methods->GetSendStatus());
    }
    methods->Proceed();
  }

 private:
  void Finished(const grpc::Status& status) {
    const uint64_t micros = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                                      std::chrono::steady_clock::now() - start_)
                                                      .count());
    const int code = static_cast<int>(status.error_code());
    counters_->by_code[code >= 0 && code < RpcCounters::kCodes ? code : 2].fetch_add(1, std::memory_order_relaxed);
    counters_->latency.Observe(micros);
    if (observer_->log_requests_) Log(code, micros);
  }

  void Log(int code, uint64_t micros) {
    grpc::ServerContextBase* context = info_->server_context();
    std::optional<std::string_view> authorization;
    const auto& metadata = context->client_metadata();
    if (auto it = metadata.find("authorization"); it != metadata.end()) {
      authorization = std::string_view(it->second.data(), it->second.size());
    }
    nlohmann::ordered_json line = {{"time", LogTimestamp()},
                                   {"method", std::string(name_)},
                                   {"world", world_},
                                   {"caller", observer_->access_->CallerLabel(authorization, context->peer())},
                                   {"code", StatusCodeName(code)},
                                   {"latency_us", micros},
                                   {"items", items_}};
    // Replace, not throw, on bytes that are not UTF-8 (a hostile world id).
    LogLine(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }

  const RequestObserver* observer_;
  grpc::experimental::ServerRpcInfo* info_;
  const std::chrono::steady_clock::time_point start_;
  std::string_view name_;  // points into info_->method(), alive for the call
  RequestSummary (*summarize_)(const void*) = nullptr;
  RpcCounters* counters_ = nullptr;
  std::string world_;
  uint64_t items_ = 0;
};

grpc::experimental::Interceptor* RequestObserver::CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) {
  return new Call(this, info);
}

}  // namespace arbiter::server
