#include "step_commands.h"

#include <cinttypes>
#include <cstdio>

#include "output.h"
#include "progress.h"

namespace arbiter::cli {
namespace {

std::string Ref(const v1::ShapeRef& r) {
  return "body " + std::to_string(r.body_id()) + " shape " + std::to_string(r.shape_index());
}
Json RefJson(const v1::ShapeRef& r) { return {{"body_id", r.body_id()}, {"shape_index", r.shape_index()}}; }

Json ContactsJson(const google::protobuf::RepeatedPtrField<v1::ContactEvent>& events, bool with_point) {
  Json list = Json::array();
  for (const v1::ContactEvent& e : events) {
    Json j = {{"a", RefJson(e.a())}, {"b", RefJson(e.b())}};
    if (with_point) {
      j["point"] = VecJson(e.point());
      j["normal"] = VecJson(e.normal());
      j["approach_speed"] = client::ToDouble(e.approach_speed());
    }
    list.push_back(std::move(j));
  }
  return list;
}

Json SensorsJson(const google::protobuf::RepeatedPtrField<v1::SensorEvent>& events) {
  Json list = Json::array();
  for (const v1::SensorEvent& e : events) list.push_back({{"sensor", RefJson(e.sensor())}, {"visitor", RefJson(e.visitor())}});
  return list;
}

// One tick's events: a line per pair, so the output says who touched whom.
void PrintTick(const Context& c, const v1::TickEvents& t) {
  if (c.json) {
    std::printf("%s\n", Json{{"world", c.world},
                             {"tick", t.tick()},
                             {"contact_begin", ContactsJson(t.contact_begin(), true)},
                             {"contact_end", ContactsJson(t.contact_end(), false)},
                             {"sensor_enter", SensorsJson(t.sensor_enter())},
                             {"sensor_exit", SensorsJson(t.sensor_exit())}}
                            .dump()
                            .c_str());
    return;
  }
  const int n = t.contact_begin_size() + t.contact_end_size() + t.sensor_enter_size() + t.sensor_exit_size();
  std::printf("tick %" PRId64 ": %s\n", t.tick(), n == 0 ? "no events" : (std::to_string(n) + " event(s)").c_str());
  for (const v1::ContactEvent& e : t.contact_begin()) {
    std::printf("  contact begin  %s - %s  point (%.6g, %.6g)  normal (%.6g, %.6g)  speed %.6g\n", Ref(e.a()).c_str(),
                Ref(e.b()).c_str(), client::ToDouble(e.point().x()), client::ToDouble(e.point().y()),
                client::ToDouble(e.normal().x()), client::ToDouble(e.normal().y()), client::ToDouble(e.approach_speed()));
  }
  for (const v1::ContactEvent& e : t.contact_end()) {
    std::printf("  contact end    %s - %s\n", Ref(e.a()).c_str(), Ref(e.b()).c_str());
  }
  for (const v1::SensorEvent& e : t.sensor_enter()) {
    std::printf("  sensor enter   %s <- %s\n", Ref(e.sensor()).c_str(), Ref(e.visitor()).c_str());
  }
  for (const v1::SensorEvent& e : t.sensor_exit()) {
    std::printf("  sensor exit    %s -> %s\n", Ref(e.sensor()).c_str(), Ref(e.visitor()).c_str());
  }
}

}  // namespace

int RunStep(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() > 1) return Usage(c, "unexpected argument '" + p[1] + "' (one N)");
  const std::optional<uint64_t> ticks = ParseUint(p.empty() ? "1" : p[0]);
  const std::optional<uint64_t> chunk = ParseUint(c.args->Get("chunk", "60"));
  if (!ticks || *ticks == 0) return Usage(c, "N: '" + p[0] + "' is not a positive number of ticks");
  if (!chunk || *chunk == 0 || *chunk > UINT32_MAX) return Usage(c, "--chunk: must be a positive integer");
  // Long runs go in chunks so that progress shows and no single call
  // outlives its deadline; events are counted along the way.
  uint64_t begins = 0, ends = 0, enters = 0, exits = 0;
  v1::StepResponse last;
  for (uint64_t done = 0; done < *ticks;) {
    v1::StepRequest request;
    request.set_world_id(c.world);
    request.set_ticks(static_cast<uint32_t>(std::min<uint64_t>(*chunk, *ticks - done)));
    absl::StatusOr<v1::StepResponse> reply = c.client->Step(request);
    if (!reply.ok()) return Fail(c, reply.status());
    for (const v1::TickEvents& t : reply->ticks()) {
      begins += static_cast<uint64_t>(t.contact_begin_size());
      ends += static_cast<uint64_t>(t.contact_end_size());
      enters += static_cast<uint64_t>(t.sensor_enter_size());
      exits += static_cast<uint64_t>(t.sensor_exit_size());
    }
    done += request.ticks();
    last = std::move(*reply);
    if (*ticks > *chunk) Progress("step: ticks", done, *ticks);
  }
  if (c.json) {
    PrintJson({{"world", c.world},
               {"tick", last.tick()},
               {"state_hash", Hex(last.state_hash())},
               {"events", {{"contact_begin", begins}, {"contact_end", ends}, {"sensor_enter", enters}, {"sensor_exit", exits}}}});
  } else {
    std::printf("world %s: stepped %" PRIu64 " tick(s) to tick %" PRId64 ", state hash %s\n", c.world.c_str(), *ticks,
                last.tick(), Hex(last.state_hash()).c_str());
    std::printf("  events: %" PRIu64 " contact begin, %" PRIu64 " contact end, %" PRIu64 " sensor enter, %" PRIu64
                " sensor exit (`arbiter watch` lists the pairs)\n",
                begins, ends, enters, exits);
  }
  return 0;
}

int RunWatch(const Context& c) {
  const std::optional<uint64_t> count = ParseUint(c.args->Get("count", "0"));
  if (!count) return Usage(c, "--count: must be a non-negative integer");
  // A call first: it proves the server answers and the world exists, so
  // "watching" is printed only when it is true.
  v1::GetStateHashRequest where;
  where.set_world_id(c.world);
  absl::StatusOr<v1::GetStateHashResponse> now = c.client->GetStateHash(where);
  if (!now.ok()) return Fail(c, now.status());
  std::unique_ptr<client::EventWatch> watch = c.client->WatchEvents(c.world);
  std::fprintf(stderr, "connected to %s: watching world %s from tick %" PRId64 " (events of each tick as it is stepped%s)\n",
               c.server.c_str(), c.world.c_str(), now->tick(), *count > 0 ? "" : "; Ctrl-C stops");
  uint64_t seen = 0;
  while (std::optional<v1::TickEvents> t = watch->Next()) {
    PrintTick(c, *t);
    std::fflush(stdout);
    if (*count > 0 && ++seen == *count) {
      watch->Cancel();
      watch->Finish().IgnoreError();
      return 0;
    }
  }
  const absl::Status s = watch->Finish();
  if (s.code() == absl::StatusCode::kAborted) {
    std::fprintf(stderr, "world %s was deleted; the watch ended\n", c.world.c_str());
    return 0;
  }
  return s.ok() ? 0 : Fail(c, s);
}

}  // namespace arbiter::cli
