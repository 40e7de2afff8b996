// Status codes and messages of the C interface.
#include <algorithm>
#include <cstring>
#include <string>

#include "c_world.h"

namespace arbiter::c_api {

arb_status Report(const Status& status, arb_error* error) {
  const arb_status code = static_cast<arb_status>(status.code());
  if (error != nullptr) {
    error->code = code;
    // Cut to the buffer, always NUL-terminated.
    const size_t n = std::min(status.message().size(), sizeof error->message - 1);
    std::memcpy(error->message, status.message().data(), n);
    error->message[n] = '\0';
  }
  return code;
}

Status NullError(const char* field) { return InvalidArgumentError(std::string(field) + ": NULL"); }

Status ShapeStatus(ShapeError e, const char* field) {
  if (e == ShapeError::kOk) return OkStatus();
  const std::string message = std::string(field) + ": " + ShapeErrorMessage(e);
  return e == ShapeError::kOutOfRange ? OutOfRangeError(message) : InvalidArgumentError(message);
}

Status BufferTooSmall(const char* field, size_t needed, size_t capacity) {
  return Status(static_cast<StatusCode>(ARB_BUFFER_TOO_SMALL),
                std::string(field) + ": " + std::to_string(needed) + " needed, capacity " + std::to_string(capacity));
}

}  // namespace arbiter::c_api

void arb_world::ForgetEvents() {
  contact_begin.clear();
  contact_end.clear();
  sensor_enter.clear();
  sensor_exit.clear();
}

extern "C" const char* arb_status_name(arb_status code) {
  switch (code) {
    case ARB_OK: return "OK";
    case ARB_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case ARB_NOT_FOUND: return "NOT_FOUND";
    case ARB_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case ARB_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case ARB_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case ARB_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case ARB_INTERNAL: return "INTERNAL";
    case ARB_BUFFER_TOO_SMALL: return "BUFFER_TOO_SMALL";
    default: return "UNKNOWN";
  }
}
