"""Errors: one exception class for the server's refusals and the client's own."""

import re

import grpc

# The server's messages start with the field they are about:
# "rays[12].origin: beyond +-2^29 units".
_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?)*): (.*)$", re.S)


class ArbiterError(Exception):
    """A failed call. `code` is a grpc.StatusCode; `field` the request field
    the server named (None when it named none); `reason` the rest."""

    def __init__(self, code, field, reason):
        self.code = code
        self.field = field
        self.reason = reason
        where = f"{field}: " if field else ""
        super().__init__(f"{code.name}: {where}{reason}")

    @classmethod
    def from_rpc(cls, error):
        message = error.details() or ""
        match = _FIELD.match(message)
        if match:
            return cls(error.code(), match.group(1), match.group(2))
        return cls(error.code(), None, message)


class ArbiterValueError(ArbiterError, ValueError):
    """A request the client refused before sending it (INVALID_ARGUMENT or
    OUT_OF_RANGE had it been sent)."""

    def __init__(self, field, reason, code=grpc.StatusCode.INVALID_ARGUMENT):
        super().__init__(code, field, reason)
