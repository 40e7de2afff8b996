// The RPC table (server/service/rpc_table.h) against what it describes:
// the service's descriptor (every method one row, by name, in no other
// order) and the journal's record fields (a request the journal stores is
// a journaled RPC's).
#include "service/rpc_table.h"

#include <set>
#include <string>

#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include "arbiter/v1/arbiter.pb.h"
#include "arbiter/v1/journal.pb.h"

namespace arbiter::server {
namespace {

const google::protobuf::ServiceDescriptor* Service() {
  return v1::CastRaysRequest::descriptor()->file()->FindServiceByName("Arbiter");
}

TEST(RpcTable, HasARowForEveryMethodOfTheService_AndNoOther) {
  const google::protobuf::ServiceDescriptor* service = Service();
  ASSERT_NE(service, nullptr);
  std::set<std::string> methods;
  for (int i = 0; i < service->method_count(); ++i) methods.insert(service->method(i)->name());
  std::set<std::string> rows;
  for (const RpcInfo& row : Rpcs()) {
    EXPECT_TRUE(rows.insert(std::string(row.name)).second) << row.name << " has two rows";
    EXPECT_EQ(FindRpc(row.name), &row);
    EXPECT_EQ(&Describe(row.rpc), &row);
    EXPECT_NE(row.summarize, nullptr) << row.name << " is not summarized for the request log";
  }
  EXPECT_EQ(rows, methods);
  EXPECT_EQ(FindRpc("NoSuchMethod"), nullptr);
}

// A world-scoped RPC's request names its world (world_id, which the
// request log and the x-arbiter-world check read); the others' requests
// name none at the call's start (a stream's messages name theirs).
TEST(RpcTable, AWorldScopedRpcsRequestNamesItsWorld_AndNoOthersDoes) {
  const google::protobuf::ServiceDescriptor* service = Service();
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* method = service->method(i);
    const RpcInfo* row = FindRpc(method->name());
    ASSERT_NE(row, nullptr) << method->name();
    const bool names_world = method->input_type()->FindFieldByName("world_id") != nullptr;
    const bool streamed = method->client_streaming();
    EXPECT_EQ(row->world_scoped, names_world && !streamed) << method->name();
  }
}

TEST(RpcTable, ARequestTheJournalStoresBelongsToAJournaledRpc) {
  std::set<std::string> stored;
  const google::protobuf::Descriptor* record = v1::JournalRecord::descriptor();
  for (int i = 0; i < record->field_count(); ++i) {
    if (record->field(i)->message_type() != nullptr) stored.insert(record->field(i)->message_type()->full_name());
  }
  const google::protobuf::ServiceDescriptor* service = Service();
  int journaled_by_record = 0;
  for (int i = 0; i < service->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* method = service->method(i);
    const RpcInfo* row = FindRpc(method->name());
    ASSERT_NE(row, nullptr) << method->name();
    if (stored.count(method->input_type()->full_name()) != 0) {
      EXPECT_TRUE(row->journaled) << method->name() << "'s request is a journal record";
      ++journaled_by_record;
    }
  }
  EXPECT_GE(journaled_by_record, 4);  // AddBodies, RemoveBodies, UpdateBodies, Step
}

TEST(RpcTable, ChangesNeedAWriterOrAnAdmin_AndTheWorldsThemselvesAnAdmin) {
  for (const RpcInfo& row : Rpcs()) {
    if (row.journaled) EXPECT_NE(row.role, Access::kRead) << row.name;
  }
  for (Rpc rpc : {Rpc::kCreateWorld, Rpc::kDeleteWorld, Rpc::kFreezeWorld, Rpc::kImportWorld,
                  Rpc::kImportWorldStream}) {
    EXPECT_EQ(Describe(rpc).role, Access::kAdmin) << Describe(rpc).name;
  }
}

TEST(RpcTable, SummarizesARequestByItsWorldAndItems) {
  v1::AddBodiesRequest add;
  add.set_world_id("arena");
  add.add_bodies();
  add.add_bodies();
  const RequestSummary s = Describe(Rpc::kAddBodies).summarize(&add);
  EXPECT_EQ(s.world, "arena");
  EXPECT_EQ(s.items, 2u);
  v1::CastRaysRequest rays;
  rays.set_world_id("arena");
  rays.mutable_columns()->add_origin_x(0);
  rays.mutable_columns()->add_origin_x(0);
  rays.mutable_columns()->add_origin_x(0);
  EXPECT_EQ(Describe(Rpc::kCastRays).summarize(&rays).items, 3u);
  EXPECT_EQ(Describe(Rpc::kListWorlds).summarize(nullptr).world, "");
}

}  // namespace
}  // namespace arbiter::server
