// The x-arbiter-world routing metadata (issue 16): a call routed for one
// world that names another is refused, naming the metadata; matching or
// absent metadata changes nothing; a query stream routed for one world
// cannot ask another.
#include <grpcpp/grpcpp.h>

#include "auth_support.h"
#include "test_support.h"

namespace arbiter::testing {
namespace {

using absl::StatusCode;

class WorldMetadataTest : public ::testing::Test {
 protected:
  WorldMetadataTest() {
    EXPECT_THAT(server_.client().CreateWorld(SmallWorld("a")), IsOk());
    EXPECT_THAT(server_.client().CreateWorld(SmallWorld("b")), IsOk());
    stub_ = v1::Arbiter::NewStub(grpc::CreateChannel(server_.address(), grpc::InsecureChannelCredentials()));
  }

  // A one-tick Step of `world` sent with `routed` as x-arbiter-world (none
  // when empty).
  grpc::Status StepRouted(const std::string& routed, const std::string& world) {
    grpc::ClientContext context;
    if (!routed.empty()) context.AddMetadata("x-arbiter-world", routed);
    v1::StepResponse reply;
    return stub_->Step(&context, OneTick(world), &reply);
  }

  int64_t Tick(const std::string& world) {
    v1::GetStateHashRequest r;
    r.set_world_id(world);
    absl::StatusOr<v1::GetStateHashResponse> hash = server_.client().GetStateHash(r);
    EXPECT_THAT(hash, IsOk());
    return hash.ok() ? hash->tick() : -1;
  }

  LiveServer server_;
  std::unique_ptr<v1::Arbiter::Stub> stub_;
};

TEST_F(WorldMetadataTest, MismatchIsRefusedAndChangesNothing) {
  const grpc::Status refused = StepRouted("b", "a");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(refused.error_message(),
            "x-arbiter-world: the call was routed for world 'b' but names world_id 'a'; send the world id the "
            "request names");
  EXPECT_EQ(Tick("a"), 0);
  EXPECT_TRUE(StepRouted("a", "a").ok());
  EXPECT_TRUE(StepRouted("", "a").ok());
  EXPECT_EQ(Tick("a"), 2);
  EXPECT_EQ(Tick("b"), 0);
}

TEST_F(WorldMetadataTest, CallsThatNameNoWorldIgnoreIt) {
  grpc::ClientContext context;
  context.AddMetadata("x-arbiter-world", "a");
  v1::ListWorldsResponse reply;
  EXPECT_TRUE(stub_->ListWorlds(&context, v1::ListWorldsRequest(), &reply).ok());
  EXPECT_EQ(reply.worlds_size(), 2);
}

TEST_F(WorldMetadataTest, QueryStreamRoutedForOneWorldCannotAskAnother) {
  grpc::ClientContext context;
  context.AddMetadata("x-arbiter-world", "a");
  auto stream = stub_->QueryStream(&context);
  v1::CastRaysRequest ray;
  ray.set_mode(v1::CAST_MODE_CLOSEST);
  *ray.add_rays() = client::MakeRay(0, 10, 0, -20);
  ray.set_world_id("a");
  ASSERT_TRUE(stream->Write(ray));
  v1::CastRaysResponse reply;
  ASSERT_TRUE(stream->Read(&reply));
  ray.set_world_id("b");
  ASSERT_TRUE(stream->Write(ray));
  EXPECT_FALSE(stream->Read(&reply));
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("x-arbiter-world"), std::string::npos) << status.error_message();
}

}  // namespace
}  // namespace arbiter::testing
