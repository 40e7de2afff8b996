#include "request_observer.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <nlohmann/json.hpp>

#include "arbiter/v1/arbiter.pb.h"
#include "server_log.h"

namespace arbiter::server {
namespace {

constexpr std::string_view kServicePrefix = "/arbiter.v1.Arbiter/";

// The elements of a message's top-level repeated fields.
uint64_t CountItems(const google::protobuf::Message& message) {
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const google::protobuf::Reflection* r = message.GetReflection();
  uint64_t items = 0;
  for (int i = 0; i < d->field_count(); ++i) {
    if (d->field(i)->is_repeated()) items += static_cast<uint64_t>(r->FieldSize(message, d->field(i)));
  }
  return items;
}

struct Summary {
  std::string world;
  uint64_t items = 0;
};
using Summarizer = Summary (*)(const void* message);

// gRPC hands the interceptor the request as void*; it points at the
// method's own request type, so each method gets a cast to exactly that.
template <class Request>
Summary Summarize(const void* message) {
  const auto* request = static_cast<const Request*>(message);
  return {request->world_id(), CountItems(*request)};
}

// Rays may come as columns instead (one item per row).
template <>
Summary Summarize<v1::CastRaysRequest>(const void* message) {
  const auto* request = static_cast<const v1::CastRaysRequest*>(message);
  return {request->world_id(), static_cast<uint64_t>(request->rays_size() + request->columns().origin_x_size())};
}

// ListWorlds names no world and carries no items.
template <>
Summary Summarize<v1::ListWorldsRequest>(const void*) {
  return {};
}

// A streamed import: the world named by its first message.
template <>
Summary Summarize<v1::ImportWorldChunk>(const void* message) {
  const auto* chunk = static_cast<const v1::ImportWorldChunk*>(message);
  return {chunk->request().world_id(), 0};
}

const std::map<std::string_view, Summarizer>& Summarizers() {
  static const std::map<std::string_view, Summarizer> kTable{
      {"CreateWorld", &Summarize<v1::CreateWorldRequest>},
      {"DeleteWorld", &Summarize<v1::DeleteWorldRequest>},
      {"DescribeWorld", &Summarize<v1::DescribeWorldRequest>},
      {"AddBodies", &Summarize<v1::AddBodiesRequest>},
      {"RemoveBodies", &Summarize<v1::RemoveBodiesRequest>},
      {"UpdateBodies", &Summarize<v1::UpdateBodiesRequest>},
      {"CastRays", &Summarize<v1::CastRaysRequest>},
      {"Overlap", &Summarize<v1::OverlapRequest>},
      {"CastShapes", &Summarize<v1::CastShapesRequest>},
      {"Distance", &Summarize<v1::DistanceRequest>},
      {"Step", &Summarize<v1::StepRequest>},
      {"WatchEvents", &Summarize<v1::WatchEventsRequest>},
      {"GetStateHash", &Summarize<v1::GetStateHashRequest>},
      {"GetSnapshot", &Summarize<v1::GetSnapshotRequest>},
      {"Restore", &Summarize<v1::RestoreRequest>},
      {"ValidateHit", &Summarize<v1::ValidateHitRequest>},
      {"ValidateMove", &Summarize<v1::ValidateMoveRequest>},
      {"ValidateShots", &Summarize<v1::ValidateShotsRequest>},
      {"MoveShapes", &Summarize<v1::MoveShapesRequest>},
      {"ReportHashes", &Summarize<v1::ReportHashesRequest>},
      {"ListWorlds", &Summarize<v1::ListWorldsRequest>},
      {"ExportJournal", &Summarize<v1::ExportJournalRequest>},
      {"FreezeWorld", &Summarize<v1::FreezeWorldRequest>},
      {"ImportWorld", &Summarize<v1::ImportWorldRequest>},
      {"ImportWorldStream", &Summarize<v1::ImportWorldChunk>},
      {"QueryStream", &Summarize<v1::CastRaysRequest>},
  };
  return kTable;
}

}  // namespace

// One call: created when it arrives, deleted by gRPC when it is done.
class RequestObserver::Call final : public grpc::experimental::Interceptor {
 public:
  Call(const RequestObserver* observer, grpc::experimental::ServerRpcInfo* info)
      : observer_(observer), info_(info), start_(std::chrono::steady_clock::now()) {
    const std::string_view method = info->method();
    if (method.substr(0, kServicePrefix.size()) == kServicePrefix) {
      name_ = method.substr(kServicePrefix.size());
      auto it = Summarizers().find(name_);
      if (it != Summarizers().end()) summarize_ = it->second;
    } else {
      name_ = method;
    }
    counters_ = observer->metrics_->Find(method.substr(0, kServicePrefix.size()) == kServicePrefix ? name_ : "other");
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using Hook = grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(Hook::POST_RECV_MESSAGE) && summarize_ != nullptr &&
        methods->GetRecvMessage() != nullptr) {
      Summary s = summarize_(methods->GetRecvMessage());
      if (world_.empty()) world_ = std::move(s.world);
      items_ += s.items;
      if (name_ == "ValidateHit" && observer_->hits_->Watched(world_)) {
        hit_request_ = *static_cast<const v1::ValidateHitRequest*>(methods->GetRecvMessage());
      }
    }
    if (hit_request_ && methods->QueryInterceptionHookPoint(Hook::PRE_SEND_MESSAGE) &&
        methods->GetSendMessage() != nullptr) {
      hit_reply_ = *static_cast<const v1::ValidateHitResponse*>(methods->GetSendMessage());
    }
    if (methods->QueryInterceptionHookPoint(Hook::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      if (status.ok() && hit_request_ && hit_reply_) observer_->hits_->Publish(*hit_request_, *hit_reply_);
      Finished(status);
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
  Summarizer summarize_ = nullptr;
  RpcCounters* counters_ = nullptr;
  std::string world_;
  uint64_t items_ = 0;
  // A ValidateHit someone watches, for the viewer's hit feed.
  std::optional<v1::ValidateHitRequest> hit_request_;
  std::optional<v1::ValidateHitResponse> hit_reply_;
};

grpc::experimental::Interceptor* RequestObserver::CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) {
  return new Call(this, info);
}

}  // namespace arbiter::server
