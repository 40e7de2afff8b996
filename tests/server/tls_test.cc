// TLS through gRPC's SSL credentials, with certificates made at test time
// by the openssl command: a CA, a server certificate for 127.0.0.1 and
// localhost, a client certificate, and a second CA nobody trusts. Every
// test uses a real TLS channel over loopback.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>

#include "auth_support.h"
#include "server_process.h"

namespace arbiter::testing {
namespace {

using absl::StatusCode;
using client::ArbiterClient;

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    temp_ = new TempDir("arbiter-tls-");
    dir_ = new std::string(temp_->path());
    const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    const std::string ca_ext = " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign";
    auto issue = [&](const std::string& name, const std::string& cn, const std::string& ca, const std::string& ext) {
      return "openssl req" + ec + " -keyout " + name + ".key -out " + name + ".csr -subj /CN=" + cn +
             " && printf '" + ext + "' > " + name + ".ext && openssl x509 -req -in " + name + ".csr -CA " + ca +
             ".crt -CAkey " + ca + ".key -CAcreateserial -days 2 -extfile " + name + ".ext -out " + name + ".crt";
    };
    const std::string script =
        "cd " + *dir_ + " && (" +                                                                               //
        "openssl req -x509" + ec + " -keyout ca.key -out ca.crt -days 2 -subj /CN=arbiter-test-ca" + ca_ext +  //
        " && openssl req -x509" + ec + " -keyout other-ca.key -out other-ca.crt -days 2 -subj /CN=other-ca" +
        ca_ext + " && " +
        issue("server", "localhost", "ca", "subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n") +
        " && " + issue("client", "arbiter-test-client", "ca", "extendedKeyUsage=clientAuth\\n") + " && " +
        issue("stranger", "stranger", "other-ca", "extendedKeyUsage=clientAuth\\n") + ") > openssl.log 2>&1";
    ok_ = std::system(script.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete temp_;
  }

  void SetUp() override { ASSERT_TRUE(ok_) << "openssl failed; see " << *dir_ << "/openssl.log"; }

  static std::string File(const std::string& name) { return *dir_ + "/" + name; }

  static server::ServerOptions TlsServer(bool require_client_cert = false) {
    server::ServerOptions o = TestServerOptions();
    o.tls.cert_file = File("server.crt");
    o.tls.key_file = File("server.key");
    if (require_client_cert) o.tls.client_ca_file = File("ca.crt");
    return o;
  }

  /// A client over TLS trusting `ca`, optionally with a client certificate.
  static std::unique_ptr<ArbiterClient> TlsClient(const std::string& target, const std::string& ca,
                                                  const std::string& cert = "", const std::string& token = "") {
    absl::StatusOr<client::ClientTls> tls =
        client::LoadClientTls(File(ca + ".crt"), cert.empty() ? "" : File(cert + ".crt"),
                              cert.empty() ? "" : File(cert + ".key"));
    EXPECT_THAT(tls, IsOk());
    client::ClientOptions options;
    options.timeout = std::chrono::milliseconds(20000);
    options.tls = *tls;
    options.token = token;
    return ArbiterClient::Connect(target, options);
  }

  static TempDir* temp_;
  static std::string* dir_;
  static bool ok_;
};

TempDir* TlsTest::temp_ = nullptr;
std::string* TlsTest::dir_ = nullptr;
bool TlsTest::ok_ = false;

v1::CreateWorldRequest World(const std::string& id) {
  v1::CreateWorldRequest request;
  request.set_world_id(id);
  *request.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_DYNAMIC, 0, 5, client::MakeCircle(1));
  return request;
}

TEST_F(TlsTest, TlsChannel_CarriesCalls_ByAddressAndByName) {
  LiveServer server(TlsServer());
  const std::string port = std::to_string(server.server().port());
  std::unique_ptr<ArbiterClient> by_address = TlsClient("127.0.0.1:" + port, "ca");
  ASSERT_THAT(by_address->CreateWorld(World("w")), IsOk());
  v1::StepRequest step;
  step.set_world_id("w");
  step.set_ticks(3);
  absl::StatusOr<v1::StepResponse> stepped = by_address->Step(step);
  ASSERT_THAT(stepped, IsOk());
  EXPECT_EQ(stepped->tick(), 3);
  std::unique_ptr<ArbiterClient> by_name = TlsClient("localhost:" + port, "ca");
  absl::StatusOr<v1::ListWorldsResponse> worlds = by_name->ListWorlds();
  ASSERT_THAT(worlds, IsOk());
  ASSERT_EQ(worlds->worlds_size(), 1);
  EXPECT_EQ(worlds->worlds(0).tick(), 3);
}

TEST_F(TlsTest, PlaintextClient_OfATlsServer_GetsNowhere) {
  LiveServer server(TlsServer());
  client::ClientOptions options;
  options.timeout = std::chrono::milliseconds(20000);
  std::unique_ptr<ArbiterClient> plain = ArbiterClient::Connect(server.address(), options);
  EXPECT_THAT(plain->ListWorlds(), StatusIs(StatusCode::kUnavailable, ""));
  EXPECT_THAT(plain->CheckHealth(), StatusIs(StatusCode::kUnavailable, ""));
}

TEST_F(TlsTest, ServerCertificateFromAnUntrustedCa_IsRefused) {
  LiveServer server(TlsServer());
  EXPECT_THAT(TlsClient(server.address(), "other-ca")->ListWorlds(), StatusIs(StatusCode::kUnavailable, ""));
  EXPECT_THAT(TlsClient(server.address(), "ca")->ListWorlds(), IsOk());
}

TEST_F(TlsTest, RequiredClientCertificate_IsChecked) {
  LiveServer server(TlsServer(/*require_client_cert=*/true));
  EXPECT_THAT(TlsClient(server.address(), "ca")->ListWorlds(), StatusIs(StatusCode::kUnavailable, ""));
  EXPECT_THAT(TlsClient(server.address(), "ca", "stranger")->ListWorlds(), StatusIs(StatusCode::kUnavailable, ""));
  EXPECT_THAT(TlsClient(server.address(), "ca", "client")->CreateWorld(World("w")), IsOk());
}

TEST_F(TlsTest, TokensTravelOverTls) {
  TempDir dir;
  const std::string tokens = dir.File("tokens.txt");
  WriteFile(tokens, TokenLine("tls-admin", "admin", "*"));
  server::ServerOptions options = TlsServer();
  options.access.token_file = tokens;
  LiveServer server(options);
  EXPECT_THAT(TlsClient(server.address(), "ca")->CreateWorld(World("w")),
              StatusIs(StatusCode::kUnauthenticated, "authorization: missing"));
  EXPECT_THAT(TlsClient(server.address(), "ca", "", "tls-admin")->CreateWorld(World("w")), IsOk());
}

TEST_F(TlsTest, BadTlsSettings_AreRefusedAtStart) {
  server::ServerOptions options = TestServerOptions();
  options.tls.cert_file = File("server.crt");
  EXPECT_THAT(server::ArbiterServer::Start(options), StatusIs(StatusCode::kInvalidArgument, "--tls_cert needs --tls_key"));
  options.tls.key_file = File("no-such.key");
  EXPECT_THAT(server::ArbiterServer::Start(options), StatusIs(StatusCode::kInvalidArgument, "--tls_key: cannot read"));
  options.tls = {};
  options.tls.client_ca_file = File("ca.crt");
  EXPECT_THAT(server::ArbiterServer::Start(options), StatusIs(StatusCode::kInvalidArgument, "need --tls_cert"));
  EXPECT_THAT(client::LoadClientTls(File("ca.crt"), File("client.crt"), ""),
              StatusIs(StatusCode::kInvalidArgument, "needs its key"));
  EXPECT_THAT(client::LoadClientTls(File("missing.crt"), "", ""),
              StatusIs(StatusCode::kInvalidArgument, "missing.crt"));
}

TEST_F(TlsTest, ServerProcessAndCli_WithTlsClientCertificatesAndTokens) {
  TempDir dir;
  const std::string tokens = dir.File("tokens.txt");
  WriteFile(tokens, TokenLine("cli-admin", "admin", "*"));
  const std::string token_file = dir.File("token");
  WriteFile(token_file, "cli-admin\n");
  ServerProcess server({"--token_file=" + tokens, "--tls_cert=" + File("server.crt"), "--tls_key=" + File("server.key"),
                        "--tls_client_ca=" + File("ca.crt"),
                        "--scene=" + std::string(ARBITER_SCENES_DIR) + "/demo.scene.json"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  const std::string at = " --server " + server.address() + " --timeout_ms 20000";
  const std::string tls = " --tls_ca " + File("ca.crt") + " --tls_cert " + File("client.crt") + " --tls_key " +
                          File("client.key");

  const CliResult ok = RunCli("hash --json --token_file " + token_file + tls + at, /*merge=*/true);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("\"state_hash\""), std::string::npos) << ok.output;
  EXPECT_EQ(RunCli("health" + tls + at).exit_code, 0);

  const CliResult no_token = RunCli("hash" + tls + at, /*merge=*/true);
  EXPECT_EQ(no_token.exit_code, 1);
  EXPECT_NE(no_token.output.find("UNAUTHENTICATED"), std::string::npos) << no_token.output;
  const CliResult no_cert = RunCli("hash --tls_ca " + File("ca.crt") + " --token_file " + token_file + at, true);
  EXPECT_EQ(no_cert.exit_code, 1);
  EXPECT_NE(no_cert.output.find("UNAVAILABLE"), std::string::npos) << no_cert.output;
  EXPECT_EQ(RunCli("hash --token_file " + token_file + at).exit_code, 1);  // plaintext
  EXPECT_EQ(RunCli("hash --tls_ca " + File("missing.pem") + at).exit_code, 2);

  server.Signal(SIGTERM);
  const int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace arbiter::testing
