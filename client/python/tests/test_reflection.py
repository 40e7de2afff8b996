"""Server reflection as grpcurl uses it (docs/clients.md, "grpcurl"): list
the services, describe grpc.health.v1.Health and arbiter.v1.Arbiter from the
descriptors the server sends, and call Health/Check and GetServerInfo with
messages built only from those descriptors."""

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

import server_reflection_pb2 as refl
import server_reflection_pb2_grpc as refl_grpc


def reflect(address, *requests):
    with grpc.insecure_channel(address) as channel:
        stub = refl_grpc.ServerReflectionStub(channel)
        return list(stub.ServerReflectionInfo(iter(requests)))


def pool_for(address, symbol):
    """A descriptor pool holding `symbol`'s file and its dependencies, as sent."""
    (reply,) = reflect(address, refl.ServerReflectionRequest(file_containing_symbol=symbol))
    assert reply.WhichOneof("message_response") == "file_descriptor_response", reply.error_response
    files = [descriptor_pb2.FileDescriptorProto.FromString(b)
             for b in reply.file_descriptor_response.file_descriptor_proto]
    pool = descriptor_pool.DescriptorPool()
    added = set()
    while len(added) < len(files):  # dependencies first
        for f in files:
            if f.name not in added and all(d in added for d in f.dependency):
                pool.Add(f)
                added.add(f.name)
    return pool


def call(address, pool, method_name, fields=None, json_text=None):
    """Calls a unary method known only from `pool`, with the request given
    as keyword fields or as JSON (as grpcurl -d takes it)."""
    method = pool.FindMethodByName(method_name)
    factory = message_factory.MessageFactory(pool)  # protobuf 3.21 (Debian 12)
    request_class = factory.GetPrototype(method.input_type)
    reply_class = factory.GetPrototype(method.output_type)
    path = f"/{method.containing_service.full_name}/{method.name}"
    with grpc.insecure_channel(address) as channel:
        rpc = channel.unary_unary(path, request_serializer=lambda m: m.SerializeToString(),
                                  response_deserializer=reply_class.FromString)
        request = request_class(**(fields or {}))
        if json_text is not None:
            json_format.Parse(json_text, request)
        return rpc(request, timeout=10)


def test_list_services(server):
    (reply,) = reflect(server.address, refl.ServerReflectionRequest(list_services=""))
    names = {s.name for s in reply.list_services_response.service}
    assert {"arbiter.v1.Arbiter", "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= names


def test_describe_and_call_health(server):
    pool = pool_for(server.address, "grpc.health.v1.Health")
    health = pool.FindServiceByName("grpc.health.v1.Health")
    assert {m.name for m in health.methods} == {"Check", "Watch"}
    reply = call(server.address, pool, "grpc.health.v1.Health.Check", {"service": ""})
    assert reply.DESCRIPTOR.fields_by_name["status"].enum_type.values_by_number[reply.status].name == "SERVING"


def test_describe_and_call_get_server_info(server):
    pool = pool_for(server.address, "arbiter.v1.Arbiter")
    arbiter = pool.FindServiceByName("arbiter.v1.Arbiter")
    assert "GetServerInfo" in {m.name for m in arbiter.methods}
    reply = call(server.address, pool, "arbiter.v1.Arbiter.GetServerInfo", {})
    assert reply.limits.max_batch == 100
