// Bearer tokens and roles against real servers on loopback: every RPC
// with every role, world-scoped tokens, refused calls changing nothing,
// token file reloads (in-process and by SIGHUP to a real arbiter-server)
// and the rule that open access stays on loopback.
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>

#include "auth_support.h"
#include "server_process.h"

namespace arbiter::testing {
namespace {

using absl::StatusCode;
using client::ArbiterClient;

// ---- The token file and the hash ---------------------------------------------------------

TEST(TokenFileTest, Sha256_MatchesKnownVectors) {
  EXPECT_EQ(server::Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(server::Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(TokenFileTest, Parse_ReadsRolesWorldsAndLabels) {
  const std::string text = "# comment\n\n" + TokenLine("t1", "reader", "*") +
                           "  " + TokenLine("t2", "writer", "a,b.c", "game-server") +
                           std::string(server::Sha256Hex("t3")).replace(0, 2, "AB") + "\tadmin\tx\n";
  absl::StatusOr<server::TokenTable> table = server::ParseTokenFile(text, "tokens");
  ASSERT_THAT(table, IsOk());
  ASSERT_EQ(table->size(), 3u);
  const server::TokenGrant& t1 = *table->at(server::Sha256Hex("t1"));
  EXPECT_EQ(t1.role, server::Role::kReader);
  EXPECT_TRUE(t1.all_worlds);
  EXPECT_TRUE(t1.CoversWorld("anything"));
  EXPECT_EQ(t1.label, "sha256:" + server::Sha256Hex("t1").substr(0, 8));
  const server::TokenGrant& t2 = *table->at(server::Sha256Hex("t2"));
  EXPECT_EQ(t2.role, server::Role::kWriter);
  EXPECT_TRUE(t2.CoversWorld("a"));
  EXPECT_TRUE(t2.CoversWorld("b.c"));
  EXPECT_FALSE(t2.CoversWorld("b"));
  EXPECT_EQ(t2.label, "game-server");
  // Upper-case hex is accepted and stored in lower case.
  const std::string h3 = std::string(server::Sha256Hex("t3")).replace(0, 2, "ab");
  ASSERT_EQ(table->count(h3), 1u);
  EXPECT_EQ(table->at(h3)->role, server::Role::kAdmin);
}

TEST(TokenFileTest, Parse_RejectsBadLines_NamingTheLine) {
  const std::string good = TokenLine("t1", "reader", "*");
  const std::string hash = server::Sha256Hex("x");
  struct Case {
    std::string line;
    std::string message;
  } cases[] = {
      {hash + " reader\n", "tokens:2: expected '<sha256 hex> <role> <worlds> [label] [option=value ...]', got 2 fields"},
      {hash + " reader * label max_rewind_ms=soon\n", "tokens:2: max_rewind_ms: 'soon' is not a whole number of milliseconds"},
      {hash + " reader * label rewind=5\n", "tokens:2: option 'rewind' is not known (known: max_rewind_ms)"},
      {hash + " reader * label extra\n", "got 5 fields"},
      {"plaintext-token reader *\n", "tokens:2: hash: expected 64 hex digits"},
      {hash.substr(1) + "g reader *\n", "hash: expected 64 hex digits"},
      {hash + " boss *\n", "tokens:2: role: 'boss' is not reader, writer or admin"},
      {hash + " writer a,,b\n", "tokens:2: worlds: must not be empty"},
      {hash + " writer a/b\n", "only [A-Za-z0-9._-] allowed"},
      {good, "tokens:2: the same token hash appears twice"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(server::ParseTokenFile(good + c.line, "tokens"), StatusIs(StatusCode::kInvalidArgument, c.message))
        << c.line;
  }
}

// Options after the label (or the worlds) set per-token limits.
TEST(TokenFileTest, Parse_TakesOptions_AfterTheFields) {
  const std::string hash = server::Sha256Hex("x");
  absl::StatusOr<server::TokenTable> table =
      server::ParseTokenFile(hash + " reader * game max_rewind_ms=250\n" + server::Sha256Hex("y") + " writer a max_rewind_ms=0\n" +
                                 server::Sha256Hex("z") + " reader *\n",
                             "tokens");
  ASSERT_THAT(table, IsOk());
  const server::TokenGrant& game = *table->at(hash);
  EXPECT_EQ(game.label, "game");
  EXPECT_EQ(game.max_rewind_ms, std::optional<uint32_t>(250));
  EXPECT_EQ(table->at(server::Sha256Hex("y"))->max_rewind_ms, std::optional<uint32_t>(0));
  EXPECT_EQ(table->at(server::Sha256Hex("y"))->label, "sha256:" + server::Sha256Hex("y").substr(0, 8));
  EXPECT_FALSE(table->at(server::Sha256Hex("z"))->max_rewind_ms.has_value());
}

TEST(TokenFileTest, IsLoopbackListen) {
  for (const char* yes : {"127.0.0.1:1", "127.1.2.3:50051", "localhost:0", "[::1]:80"}) {
    EXPECT_TRUE(server::IsLoopbackListen(yes)) << yes;
  }
  for (const char* no : {"0.0.0.0:1", "[::]:1", "10.0.0.1:1", "example.com:1", ":50051", "128.0.0.1:1"}) {
    EXPECT_FALSE(server::IsLoopbackListen(no)) << no;
  }
}

// ---- Roles against a live server -----------------------------------------------------------

constexpr const char* kAdmin = "admin-token-0123";
constexpr const char* kWriter = "writer-token-4567";  // writer of "arena" only
constexpr const char* kReader = "reader-token-89ab";  // reader of every world
constexpr const char* kArenaReader = "arena-reader-cdef";
constexpr const char* kOtherAdmin = "other-admin-fedc";  // admin of "other" only

std::string StandardTokens() {
  return TokenLine(kAdmin, "admin", "*", "ops") + TokenLine(kWriter, "writer", "arena", "game-server") +
         TokenLine(kReader, "reader", "*", "viewer") + TokenLine(kArenaReader, "reader", "arena", "arena-viewer") +
         TokenLine(kOtherAdmin, "admin", "other", "other-ops");
}


v1::CastRaysRequest OneRay(const std::string& world) {
  v1::CastRaysRequest request;
  request.set_world_id(world);
  request.set_mode(v1::CAST_MODE_CLOSEST);
  *request.add_rays() = client::MakeRay(0, 10, 0, -20);
  return request;
}


class AuthTest : public ::testing::Test {
 protected:
  AuthTest() {
    WriteFile(token_file_, StandardTokens());
    server::ServerOptions options = TestServerOptions();
    options.access.token_file = token_file_;
    options.data_dir = dir_.File("journal");  // so that ExportJournal has something to export
    server_ = std::make_unique<LiveServer>(options);
    admin_ = As(kAdmin);
    EXPECT_THAT(admin_->CreateWorld(SmallWorld("arena")), IsOk());
    EXPECT_THAT(admin_->CreateWorld(SmallWorld("other")), IsOk());
  }

  std::unique_ptr<ArbiterClient> As(const std::string& token) {
    return ClientWithToken(server_->address(), token);
  }

  /// Every world's id, tick, body count and state hash, read as admin.
  std::string Fingerprint() {
    std::string out;
    absl::StatusOr<v1::ListWorldsResponse> worlds = admin_->ListWorlds();
    EXPECT_THAT(worlds, IsOk());
    if (!worlds.ok()) return "";
    for (const v1::WorldInfo& w : worlds->worlds()) {
      v1::GetStateHashRequest request;
      request.set_world_id(w.world_id());
      absl::StatusOr<v1::GetStateHashResponse> hash = admin_->GetStateHash(request);
      EXPECT_THAT(hash, IsOk());
      out += w.world_id() + "@" + std::to_string(w.tick()) + "/" + std::to_string(w.body_count()) + "#" +
             std::to_string(hash.ok() ? hash->state_hash() : 0) + " ";
    }
    return out;
  }

  const TempDir dir_;
  const std::string token_file_ = dir_.File("tokens.txt");
  std::unique_ptr<LiveServer> server_;
  std::unique_ptr<ArbiterClient> admin_;
};

/// One RPC: the access it needs, an optional preparation by the admin
/// (so that an allowed call really changes something), and the call.
struct Rpc {
  const char* name;
  server::Access needs;
  std::function<void(ArbiterClient& admin)> prepare;
  std::function<absl::Status(ArbiterClient& as, ArbiterClient& admin)> call;
};

std::vector<Rpc> EveryRpc() {
  static std::atomic<int> serial{100};
  static std::string snapshot;  // the arena before the admin's extra tick
  using A = server::Access;
  std::vector<Rpc> rpcs;
  rpcs.push_back({"ListWorlds", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    return c.ListWorlds().status();
                  }});
  rpcs.push_back({"DescribeWorld", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::DescribeWorldRequest r;
                    r.set_world_id("arena");
                    return c.DescribeWorld(r).status();
                  }});
  rpcs.push_back({"CastRays", A::kRead, nullptr,
                  [](ArbiterClient& c, ArbiterClient&) { return c.CastRays(OneRay("arena")).status(); }});
  rpcs.push_back({"Overlap", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::OverlapRequest r;
                    r.set_world_id("arena");
                    *r.add_queries() = client::MakeAabbQuery(-5, -5, 5, 5);
                    return c.Overlap(r).status();
                  }});
  rpcs.push_back({"CastShapes", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::CastShapesRequest r;
                    r.set_world_id("arena");
                    r.set_mode(v1::CAST_MODE_CLOSEST);
                    *r.add_casts() =
                        client::MakeShapeCast(client::MakeCircle(0.5), client::MakeTransform(0, 20), 0, -30);
                    return c.CastShapes(r).status();
                  }});
  rpcs.push_back({"GetStateHash", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::GetStateHashRequest r;
                    r.set_world_id("arena");
                    return c.GetStateHash(r).status();
                  }});
  rpcs.push_back({"QueryStream", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    std::unique_ptr<client::RayStream> stream = c.OpenQueryStream();
                    if (stream->Write(OneRay("arena"))) (void)stream->Read();
                    return stream->Finish();
                  }});
  rpcs.push_back({"WatchEvents", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient& admin) {
                    // Allowed: the watch sees a tick the admin steps. Refused:
                    // it ends at once with the refusal.
                    std::unique_ptr<client::EventWatch> watch = c.WatchEvents("arena");
                    std::atomic<bool> done{false};
                    std::thread stepper([&] {
                      while (!done.load() && admin.Step(OneTick("arena")).ok()) {
                      }
                    });
                    const bool got_tick = watch->Next().has_value();
                    done = true;
                    stepper.join();
                    if (got_tick) {
                      watch->Cancel();
                      while (watch->Next().has_value()) {
                      }
                      (void)watch->Finish();
                      return absl::OkStatus();
                    }
                    return watch->Finish();
                  }});
  rpcs.push_back({"ValidateHit", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::ValidateHitRequest r;
                    r.set_world_id("arena");
                    r.set_shooter_body_id(2);
                    r.set_target_body_id(3);
                    *r.mutable_ray() = client::MakeRay(0, 5, 5, 3);
                    return c.ValidateHit(r).status();
                  }});
  rpcs.push_back({"GetServerInfo", A::kRead, nullptr,
                  [](ArbiterClient& c, ArbiterClient&) { return c.ServerInfo().status(); }});
  rpcs.push_back({"ValidateMove", A::kRead, [](ArbiterClient& admin) { (void)admin.Step(OneTick("arena")); },
                  [](ArbiterClient& c, ArbiterClient& admin) {
                    v1::GetStateHashRequest h;
                    h.set_world_id("arena");
                    absl::StatusOr<v1::GetStateHashResponse> now = admin.GetStateHash(h);
                    if (!now.ok()) return now.status();
                    v1::ValidateMoveRequest r;
                    r.set_world_id("arena");
                    r.set_max_speed(int64_t{100} << 32);
                    v1::MoveClaim* claim = r.add_claims();
                    claim->set_body_id(2);
                    claim->set_tick(now->tick() - 1);
                    claim->add_positions();
                    return c.ValidateMove(r).status();
                  }});
  rpcs.push_back({"ReportHashes", A::kRead, nullptr, [](ArbiterClient& c, ArbiterClient& admin) {
                    v1::GetStateHashRequest h;
                    h.set_world_id("arena");
                    absl::StatusOr<v1::GetStateHashResponse> now = admin.GetStateHash(h);
                    if (!now.ok()) return now.status();
                    v1::ReportHashesRequest r;
                    r.set_world_id("arena");
                    r.set_first_tick(now->tick());
                    r.add_state_hashes(now->state_hash());
                    return c.ReportHashes(r).status();
                  }});
  rpcs.push_back({"ExportJournal", A::kWrite, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::ExportJournalRequest r;
                    r.set_world_id("arena");
                    return c.ExportJournal(r).status();
                  }});
  rpcs.push_back({"GetSnapshot", A::kWrite, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::GetSnapshotRequest r;
                    r.set_world_id("arena");
                    return c.GetSnapshot(r).status();
                  }});
  rpcs.push_back({"AddBodies", A::kWrite, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::AddBodiesRequest r;
                    r.set_world_id("arena");
                    *r.add_bodies() = client::MakeBody(serial++, v1::BODY_TYPE_DYNAMIC, -20, 10, client::MakeCircle(1));
                    return c.AddBodies(r).status();
                  }});
  rpcs.push_back({"RemoveBodies", A::kWrite,
                  [](ArbiterClient& admin) {
                    v1::AddBodiesRequest r;
                    r.set_world_id("arena");
                    *r.add_bodies() = client::MakeBody(serial + 0, v1::BODY_TYPE_STATIC, 20, 10, client::MakeCircle(1));
                    ASSERT_THAT(admin.AddBodies(r), IsOk());
                  },
                  [](ArbiterClient& c, ArbiterClient&) {
                    v1::RemoveBodiesRequest r;
                    r.set_world_id("arena");
                    r.add_body_ids(serial++);
                    return c.RemoveBodies(r).status();
                  }});
  rpcs.push_back({"UpdateBodies", A::kWrite, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    v1::UpdateBodiesRequest r;
                    r.set_world_id("arena");
                    v1::BodyUpdate* u = r.add_updates();
                    u->set_body_id(3);
                    *u->mutable_transform() = client::MakeTransform(5, 10 + serial++ % 50);
                    return c.UpdateBodies(r).status();
                  }});
  rpcs.push_back({"Step", A::kWrite, nullptr,
                  [](ArbiterClient& c, ArbiterClient&) { return c.Step(OneTick("arena")).status(); }});
  rpcs.push_back({"Restore", A::kWrite,
                  [](ArbiterClient& admin) {
                    v1::GetSnapshotRequest r;
                    r.set_world_id("arena");
                    absl::StatusOr<v1::GetSnapshotResponse> s = admin.GetSnapshot(r);
                    ASSERT_THAT(s, IsOk());
                    snapshot = s->snapshot();
                    ASSERT_THAT(admin.Step(OneTick("arena")), IsOk());  // so that a restore changes the world
                  },
                  [](ArbiterClient& c, ArbiterClient&) {
                    v1::RestoreRequest r;
                    r.set_world_id("arena");
                    r.set_snapshot(snapshot);
                    return c.Restore(r).status();
                  }});
  rpcs.push_back({"CreateWorld", A::kAdmin, nullptr, [](ArbiterClient& c, ArbiterClient&) {
                    return c.CreateWorld(SmallWorld("made-" + std::to_string(serial++))).status();
                  }});
  rpcs.push_back({"DeleteWorld", A::kAdmin,
                  [](ArbiterClient& admin) {
                    ASSERT_THAT(admin.CreateWorld(SmallWorld("doomed-" + std::to_string(serial + 0))), IsOk());
                  },
                  [](ArbiterClient& c, ArbiterClient&) {
                    v1::DeleteWorldRequest r;
                    r.set_world_id("doomed-" + std::to_string(serial++));
                    return c.DeleteWorld(r).status();
                  }});
  return rpcs;
}

TEST_F(AuthTest, EveryRpc_WithEveryRole_AllowedOrRefused_AndRefusalsChangeNothing) {
  struct Caller {
    const char* name;
    std::string token;
    int rank;  // -1: not authenticated; else 0 reader, 1 writer, 2 admin
  } callers[] = {{"no token", "", -1},         {"unknown token", "not-a-token", -1}, {"reader", kReader, 0},
                 {"arena writer", kWriter, 1}, {"admin", kAdmin, 2}};
  const std::vector<Rpc> rpcs = EveryRpc();
  ASSERT_EQ(rpcs.size(), 21u);  // every RPC of arbiter.v1.Arbiter
  for (const Caller& caller : callers) {
    std::unique_ptr<ArbiterClient> c = As(caller.token);
    for (const Rpc& rpc : rpcs) {
      SCOPED_TRACE(std::string(rpc.name) + " as " + caller.name);
      // The writer may write "arena" but is no admin; CreateWorld and
      // DeleteWorld name other worlds, which only an admin of '*' may use.
      if (rpc.prepare) rpc.prepare(*admin_);
      const std::string before = Fingerprint();
      const absl::Status status = rpc.call(*c, *admin_);
      const int needs = static_cast<int>(rpc.needs);
      if (caller.rank < 0) {
        EXPECT_THAT(status, StatusIs(StatusCode::kUnauthenticated, "authorization: "));
      } else if (caller.rank < needs) {
        EXPECT_THAT(status, StatusIs(StatusCode::kPermissionDenied, "needs role"));
      } else {
        EXPECT_THAT(status, IsOk());
      }
      if (!status.ok() && rpc.needs != server::Access::kRead) {
        EXPECT_EQ(Fingerprint(), before);
      }
    }
  }
}

TEST_F(AuthTest, Messages_SayWhatIsMissing) {
  v1::StepRequest step = OneTick("arena");
  EXPECT_THAT(As("")->Step(step),
              StatusIs(StatusCode::kUnauthenticated,
                       "authorization: missing; send metadata \"authorization: Bearer <token>\""));
  EXPECT_THAT(As("nope")->Step(step), StatusIs(StatusCode::kUnauthenticated, "authorization: unknown token"));
  EXPECT_THAT(As(kReader)->Step(step),
              StatusIs(StatusCode::kPermissionDenied, "token 'viewer' has role reader; this call needs role writer"));
  EXPECT_THAT(As(kWriter)->Step(OneTick("other")),
              StatusIs(StatusCode::kPermissionDenied, "token 'game-server' may not write world 'other'"));
}

TEST_F(AuthTest, AuthorizationHeader_IsBearerCaseInsensitive_AndNothingElse) {
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::Arbiter::Stub> stub = v1::Arbiter::NewStub(channel);
  auto hash_with = [&](const std::string& header) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", header);
    v1::GetStateHashRequest request;
    request.set_world_id("arena");
    v1::GetStateHashResponse reply;
    return client::FromGrpcStatus(stub->GetStateHash(&context, request, &reply));
  };
  EXPECT_THAT(hash_with(std::string("Bearer ") + kReader), IsOk());
  EXPECT_THAT(hash_with(std::string("bearer ") + kReader), IsOk());
  EXPECT_THAT(hash_with(std::string("BEARER  ") + kReader), IsOk());
  EXPECT_THAT(hash_with(kReader), StatusIs(StatusCode::kUnauthenticated, "expected \"Bearer <token>\""));
  EXPECT_THAT(hash_with(std::string("Basic ") + kReader), StatusIs(StatusCode::kUnauthenticated, "Bearer"));
  EXPECT_THAT(hash_with("Bearer "), StatusIs(StatusCode::kUnauthenticated, ""));
  // The hash is of the token, not of the header.
  EXPECT_THAT(hash_with("Bearer " + server::Sha256Hex(kReader)), StatusIs(StatusCode::kUnauthenticated, "unknown token"));
}

TEST_F(AuthTest, Authentication_ComesBeforeValidation) {
  // An invalid request from a stranger learns nothing about what is wrong.
  v1::CastRaysRequest empty;
  EXPECT_THAT(As("")->CastRays(empty), StatusIs(StatusCode::kUnauthenticated, ""));
  EXPECT_THAT(As(kReader)->CastRays(empty), StatusIs(StatusCode::kInvalidArgument, ""));
  // Out of scope is PERMISSION_DENIED whether or not the world exists.
  EXPECT_THAT(As(kArenaReader)->CastRays(OneRay("ghost")), StatusIs(StatusCode::kPermissionDenied, "world 'ghost'"));
  EXPECT_THAT(As(kReader)->CastRays(OneRay("ghost")), StatusIs(StatusCode::kNotFound, "ghost"));
}

TEST_F(AuthTest, WorldScopedTokens_StayInTheirWorlds) {
  std::unique_ptr<ArbiterClient> writer = As(kWriter);
  std::unique_ptr<ArbiterClient> arena_reader = As(kArenaReader);
  std::unique_ptr<ArbiterClient> other_admin = As(kOtherAdmin);

  const std::string before = Fingerprint();
  EXPECT_THAT(writer->Step(OneTick("other")), StatusIs(StatusCode::kPermissionDenied, "world 'other'"));
  v1::GetStateHashRequest other_hash;
  other_hash.set_world_id("other");
  EXPECT_THAT(writer->GetStateHash(other_hash), StatusIs(StatusCode::kPermissionDenied, "may not read world 'other'"));
  EXPECT_THAT(arena_reader->GetStateHash(other_hash), StatusIs(StatusCode::kPermissionDenied, "world 'other'"));
  v1::DeleteWorldRequest delete_arena;
  delete_arena.set_world_id("arena");
  EXPECT_THAT(other_admin->DeleteWorld(delete_arena), StatusIs(StatusCode::kPermissionDenied, "world 'arena'"));
  EXPECT_THAT(other_admin->CreateWorld(SmallWorld("other2")), StatusIs(StatusCode::kPermissionDenied, "'other2'"));
  EXPECT_THAT(other_admin->Step(OneTick("arena")), StatusIs(StatusCode::kPermissionDenied, "world 'arena'"));
  EXPECT_EQ(Fingerprint(), before);

  // Inside their worlds they may.
  EXPECT_THAT(writer->Step(OneTick("arena")), IsOk());
  EXPECT_THAT(arena_reader->CastRays(OneRay("arena")), IsOk());
  v1::DeleteWorldRequest delete_other;
  delete_other.set_world_id("other");
  EXPECT_THAT(other_admin->DeleteWorld(delete_other), IsOk());
  EXPECT_THAT(other_admin->CreateWorld(SmallWorld("other")), IsOk());

  // ListWorlds shows a scoped token only its worlds.
  absl::StatusOr<v1::ListWorldsResponse> seen = arena_reader->ListWorlds();
  ASSERT_THAT(seen, IsOk());
  ASSERT_EQ(seen->worlds_size(), 1);
  EXPECT_EQ(seen->worlds(0).world_id(), "arena");
  absl::StatusOr<v1::ListWorldsResponse> all = As(kReader)->ListWorlds();
  ASSERT_THAT(all, IsOk());
  EXPECT_EQ(all->worlds_size(), 2);

  // WatchEvents on a world out of scope ends at once.
  std::unique_ptr<client::EventWatch> watch = arena_reader->WatchEvents("other");
  EXPECT_FALSE(watch->Next().has_value());
  EXPECT_THAT(watch->Finish(), StatusIs(StatusCode::kPermissionDenied, "world 'other'"));
}

TEST_F(AuthTest, QueryStream_ChecksTheWorldOfEveryMessage) {
  std::unique_ptr<client::RayStream> stream = As(kArenaReader)->OpenQueryStream();
  ASSERT_TRUE(stream->Write(OneRay("arena")));
  std::optional<v1::CastRaysResponse> reply = stream->Read();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->results_size(), 1);
  ASSERT_TRUE(stream->Write(OneRay("other")));
  EXPECT_FALSE(stream->Read().has_value());
  EXPECT_THAT(stream->Finish(), StatusIs(StatusCode::kPermissionDenied, "world 'other'"));

  std::unique_ptr<client::RayStream> anonymous = As("")->OpenQueryStream();
  (void)anonymous->Write(OneRay("arena"));
  EXPECT_FALSE(anonymous->Read().has_value());
  EXPECT_THAT(anonymous->Finish(), StatusIs(StatusCode::kUnauthenticated, "authorization: missing"));
}

TEST_F(AuthTest, HealthCheck_NeedsNoToken) {
  absl::StatusOr<bool> serving = As("")->CheckHealth();
  ASSERT_THAT(serving, IsOk());
  EXPECT_TRUE(*serving);
}

// ---- Reloading the token file ------------------------------------------------------------------

TEST_F(AuthTest, Reload_ReplacesTokens_AndABadFileKeepsTheOldOnes) {
  const std::string fresh = "fresh-token-1111";
  std::unique_ptr<ArbiterClient> reader = As(kReader);
  std::unique_ptr<ArbiterClient> newcomer = As(fresh);
  EXPECT_THAT(newcomer->CastRays(OneRay("arena")), StatusIs(StatusCode::kUnauthenticated, "unknown token"));

  // A stream opened before the reload...
  std::unique_ptr<client::RayStream> stream = reader->OpenQueryStream();
  ASSERT_TRUE(stream->Write(OneRay("arena")));
  ASSERT_TRUE(stream->Read().has_value());

  WriteFile(token_file_, TokenLine(kAdmin, "admin", "*") + TokenLine(fresh, "writer", "arena"));
  absl::StatusOr<size_t> reloaded = server_->server().ReloadTokens();
  ASSERT_THAT(reloaded, IsOk());
  EXPECT_EQ(*reloaded, 2u);
  EXPECT_THAT(newcomer->Step(OneTick("arena")), IsOk());
  EXPECT_THAT(reader->CastRays(OneRay("arena")), StatusIs(StatusCode::kUnauthenticated, "unknown token"));
  // ...loses its rights with its next message.
  ASSERT_TRUE(stream->Write(OneRay("arena")));
  EXPECT_FALSE(stream->Read().has_value());
  EXPECT_THAT(stream->Finish(), StatusIs(StatusCode::kUnauthenticated, "token no longer accepted"));

  // A broken file (here: a token written in clear) is refused as a whole.
  WriteFile(token_file_, TokenLine(kReader, "reader", "*") + "clear-text-token admin *\n");
  EXPECT_THAT(server_->server().ReloadTokens(), StatusIs(StatusCode::kInvalidArgument, ":2: hash: expected 64 hex"));
  EXPECT_THAT(newcomer->Step(OneTick("arena")), IsOk());
  EXPECT_THAT(reader->CastRays(OneRay("arena")), StatusIs(StatusCode::kUnauthenticated, "unknown token"));
  // So is a missing one.
  std::remove(token_file_.c_str());
  EXPECT_THAT(server_->server().ReloadTokens(), StatusIs(StatusCode::kNotFound, "cannot be opened"));
  EXPECT_THAT(newcomer->Step(OneTick("arena")), IsOk());
}

TEST(AuthProcessTest, Sighup_ReloadsTheTokenFile_AndABadFileIsLoggedAndIgnored) {
  TempDir dir;
  const std::string tokens = dir.File("tokens.txt");
  const std::string first = "first-token-aaaa";
  const std::string second = "second-token-bbbb";
  WriteFile(tokens, TokenLine(first, "admin", "*", "first"));
  ServerProcess server({"--token_file=" + tokens});
  ASSERT_GT(server.port(), 0) << server.first_line();
  ASSERT_TRUE(server.WaitForStderr("1 tokens from " + tokens)) << server.stderr_text();
  EXPECT_EQ(server.stderr_text().find("OPEN ACCESS"), std::string::npos) << server.stderr_text();

  std::unique_ptr<ArbiterClient> a = ClientWithToken(server.address(), first);
  std::unique_ptr<ArbiterClient> b = ClientWithToken(server.address(), second);
  ASSERT_THAT(a->CreateWorld(SmallWorld("w")), IsOk());
  EXPECT_THAT(b->Step(OneTick("w")), StatusIs(StatusCode::kUnauthenticated, "unknown token"));

  WriteFile(tokens, TokenLine(second, "writer", "w", "second"));
  size_t mark = server.stderr_text().size();
  server.Signal(SIGHUP);
  ASSERT_TRUE(server.WaitForStderr("SIGHUP: 1 tokens from " + tokens, mark)) << server.stderr_text();
  EXPECT_THAT(b->Step(OneTick("w")), IsOk());
  EXPECT_THAT(a->Step(OneTick("w")), StatusIs(StatusCode::kUnauthenticated, "unknown token"));

  WriteFile(tokens, "# half written\n" + server::Sha256Hex(first) + " admin\n");
  mark = server.stderr_text().size();
  server.Signal(SIGHUP);
  ASSERT_TRUE(server.WaitForStderr("keeping the old tokens", mark)) << server.stderr_text();
  EXPECT_NE(server.stderr_text().find(tokens + ":2: expected", mark), std::string::npos) << server.stderr_text();
  EXPECT_THAT(b->Step(OneTick("w")), IsOk());
  EXPECT_THAT(a->Step(OneTick("w")), StatusIs(StatusCode::kUnauthenticated, "unknown token"));

  a.reset();
  b.reset();
  server.Signal(SIGTERM);
  const int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// ---- Open access stays on loopback -----------------------------------------------------------

TEST(AuthProcessTest, NonLoopbackWithoutTokenFile_RefusesToStart) {
  ServerProcess server({"--listen=0.0.0.0:0"});
  EXPECT_EQ(server.port(), 0) << server.first_line();
  const int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << status;
  server.WaitForStderr("--allow_insecure_open_access");
  EXPECT_NE(server.stderr_text().find("FAILED_PRECONDITION: listen: '0.0.0.0:0' is not a loopback address and there "
                                      "is no --token_file"),
            std::string::npos)
      << server.stderr_text();
  EXPECT_NE(server.stderr_text().find("--allow_insecure_open_access"), std::string::npos) << server.stderr_text();
}

TEST(AuthProcessTest, NonLoopbackOpenAccess_WithTheFlag_StartsAndWarnsLoudly) {
  ServerProcess server({"--listen=0.0.0.0:0", "--allow_insecure_open_access"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  ASSERT_TRUE(server.WaitForStderr("PLAINTEXT")) << server.stderr_text();
  EXPECT_NE(server.stderr_text().find("*** WARNING *** OPEN ACCESS: no --token_file"), std::string::npos)
      << server.stderr_text();
  std::unique_ptr<ArbiterClient> c = client::ArbiterClient::Connect(server.address());
  EXPECT_THAT(c->CreateWorld(SmallWorld("open")), IsOk());
  c.reset();
  server.Signal(SIGTERM);
  const int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(AuthProcessTest, LoopbackOpenAccess_StartsWithAWarning) {
  ServerProcess server({});
  ASSERT_GT(server.port(), 0) << server.first_line();
  ASSERT_TRUE(server.WaitForStderr("OPEN ACCESS")) << server.stderr_text();
  EXPECT_EQ(server.stderr_text().find("PLAINTEXT"), std::string::npos) << server.stderr_text();
}

TEST(AuthServerTest, NonLoopbackWithTokenFile_Starts_WarningOnlyAboutPlaintext) {
  TempDir dir;
  const std::string tokens = dir.File("tokens.txt");
  WriteFile(tokens, TokenLine(kAdmin, "admin", "*"));
  server::ServerOptions options = TestServerOptions();
  options.listen = "0.0.0.0:0";
  options.access.token_file = tokens;
  absl::StatusOr<std::unique_ptr<server::ArbiterServer>> s = server::ArbiterServer::Start(options);
  ASSERT_THAT(s, IsOk());
  ASSERT_EQ((*s)->warnings().size(), 1u);
  EXPECT_NE((*s)->warnings()[0].find("PLAINTEXT"), std::string::npos);
  std::unique_ptr<ArbiterClient> c = ClientWithToken("127.0.0.1:" + std::to_string((*s)->port()), kAdmin);
  EXPECT_THAT(c->ListWorlds(), IsOk());
  c.reset();
  (*s)->Shutdown(std::chrono::milliseconds(1000));

  options.access.token_file = dir.File("missing.txt");
  EXPECT_THAT(server::ArbiterServer::Start(options), StatusIs(StatusCode::kNotFound, "cannot be opened"));
}

}  // namespace
}  // namespace arbiter::testing
