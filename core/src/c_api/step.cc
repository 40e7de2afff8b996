// Stepping, for the C interface: the tick's events are kept in the handle
// in C layout, so a caller reads them without copying or freeing.
#include "c_world.h"
#include "convert.h"

using namespace arbiter;
using namespace arbiter::c_api;

namespace {

template <class In, class Out>
void Convert(const std::vector<In>& in, std::vector<Out>* out) {
  out->clear();
  out->reserve(in.size());
  for (const In& e : in) out->push_back(ToC(e));
}

}  // namespace

extern "C" arb_status arb_world_step(arb_world* world, arb_tick_events* events, arb_error* error) {
  return Guarded(error, [&]() -> Status {
    if (world == nullptr) return NullError("world");
    world->ForgetEvents();
    TickEvents tick;
    world->world.Step(&tick);
    Convert(tick.contact_begin, &world->contact_begin);
    Convert(tick.contact_end, &world->contact_end);
    Convert(tick.sensor_enter, &world->sensor_enter);
    Convert(tick.sensor_exit, &world->sensor_exit);
    if (events != nullptr) {
      *events = {world->contact_begin.data(),
                 world->contact_end.data(),
                 world->sensor_enter.data(),
                 world->sensor_exit.data(),
                 static_cast<uint32_t>(world->contact_begin.size()),
                 static_cast<uint32_t>(world->contact_end.size()),
                 static_cast<uint32_t>(world->sensor_enter.size()),
                 static_cast<uint32_t>(world->sensor_exit.size())};
    }
    return OkStatus();
  });
}
