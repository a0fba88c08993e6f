// The reference-implementation interop client: Cap'n Proto's own C++ RPC
// (kj-http's WebSocket client, capnp::WebSocketMessageStream and
// TwoPartyVatNetwork, as in Debian's libcapnp-dev 0.9.2) redeems a sharevat
// token, appends a batch and reads it back — the same checks as client.mjs.
// interop_test.go generates the C++ code for schema/sharevat.capnp, builds
// this file and runs it; see README.md.
//
//   SHAREVAT_TOKEN=svt1_... ./client HOST:PORT [PREFIX]
//
// Exit 0 when every check passed (one JSON line on stdout), 1 otherwise
// (the failed check on stderr), 2 on a usage error.

#include "sharevat.capnp.h"

#include <capnp/compat/websocket-rpc.h>
#include <capnp/message.h>
#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>
#include <kj/compat/http.h>
#include <kj/debug.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

// The schema's $Cxx.namespace("sharevat") puts the generated types in
// namespace sharevat.
using sharevat::Batch;
using sharevat::OpStatus;
using sharevat::Reason;
using sharevat::Vault;

// kj's WebSocket client needs entropy for the frame masks.
class RandomDevice final : public kj::EntropySource {
public:
  void generate(kj::ArrayPtr<kj::byte> buffer) override {
    for (auto& b : buffer) b = static_cast<kj::byte>(rd());
  }

private:
  std::random_device rd;
};

struct TestOp {
  std::string opId, kind, key, body;
  std::vector<std::string> dependsOn;
  bool del;
};

// The same ops as client.mjs, with this client's prefix.
std::vector<TestOp> makeOps(const std::string& p) {
  return {
      {p + "-s1", "session", p + "-ses", R"({"title":"interop"})", {}, false},
      {p + "-m1", "message", p + "-msg1", R"({"role":"user","text":"héllo ✓"})", {p + "-s1"}, false},
      {p + "-e1", "event", "", R"({"type":"session.idle"})", {}, false},
      {p + "-m1-del", "message", p + "-msg1", "", {p + "-m1"}, true},
  };
}

void fillBatch(Batch::Builder batch, const std::string& batchId, uint64_t epoch,
               const std::vector<TestOp>& ops, uint64_t head) {
  batch.setBatchId(batchId);
  batch.setEpoch(epoch);
  auto list = batch.initOps(ops.size());
  for (uint i = 0; i < ops.size(); i++) {
    auto op = list[i];
    const auto& o = ops[i];
    op.setOpId(o.opId);
    op.setSeq(i);
    if (!o.dependsOn.empty()) {
      auto deps = op.initDependsOn(o.dependsOn.size());
      for (uint j = 0; j < o.dependsOn.size(); j++) deps.set(j, o.dependsOn[j]);
    }
    // The first op states the head it expects; the others say none.
    if (i == 0) {
      op.getExpected().setCursor(head);
    } else {
      op.getExpected().setNone();
    }
    op.setKind(o.kind);
    if (!o.key.empty()) op.setKey(o.key);
    if (!o.body.empty()) {
      op.setBody(kj::arrayPtr(reinterpret_cast<const kj::byte*>(o.body.data()), o.body.size()));
    }
    op.setDelete(o.del);
  }
}

std::string str(capnp::Text::Reader t) { return std::string(t.cStr(), t.size()); }

int run(kj::StringPtr hostPort, kj::StringPtr token, const std::string& prefix) {
  auto io = kj::setupAsyncIo();
  auto& ws = io.waitScope;
  auto& timer = io.provider->getTimer();
  auto deadline = [&](auto&& promise) {
    return timer.timeoutAfter(30 * kj::SECONDS, kj::mv(promise)).wait(ws);
  };
  auto step = [](const std::string& s) { std::cerr << "interop c++ client: " << s << std::endl; };

  kj::HttpHeaderTable table;
  RandomDevice entropy;
  kj::HttpClientSettings settings;
  settings.entropySource = entropy;
  auto addr = io.provider->getNetwork().parseAddress(hostPort).wait(ws);
  auto http = kj::newHttpClient(timer, table, *addr, settings);
  kj::HttpHeaders headers(table);
  headers.set(kj::HttpHeaderId::HOST, hostPort);
  auto resp = deadline(http->openWebSocket("/rpc", headers));
  KJ_REQUIRE(resp.statusCode == 101, "WebSocket upgrade refused", resp.statusCode, resp.statusText);
  auto socket = kj::mv(resp.webSocketOrBody.get<kj::Own<kj::WebSocket>>());

  std::string result;
  {
    capnp::WebSocketMessageStream stream(*socket);
    capnp::TwoPartyVatNetwork network(stream, capnp::rpc::twoparty::Side::CLIENT);
    auto rpc = capnp::makeRpcClient(network);
    capnp::MallocMessageBuilder vatIdMsg;
    auto vatId = vatIdMsg.initRoot<capnp::rpc::twoparty::VatId>();
    vatId.setSide(capnp::rpc::twoparty::Side::SERVER);
    auto vault = rpc.bootstrap(vatId).castAs<Vault>();

    deadline(vault.pingRequest().send());
    step("ping ok");

    // A bad token: a remote exception whose reason starts with
    // "unauthorized: " (C++ prefixes remote reasons with "remote exception: ").
    {
      auto req = vault.restoreRequest();
      std::string bad = "svt1_AAAAAAAAAAAAAAAAAAAAAAAA_" + std::string(43, 'A');
      req.setToken(bad);
      auto refused = deadline(req.send().then(
          [](auto&&) -> kj::Maybe<kj::Exception> { return nullptr; },
          [](kj::Exception&& e) -> kj::Maybe<kj::Exception> { return kj::mv(e); }));
      KJ_IF_MAYBE(e, refused) {
        kj::StringPtr d = e->getDescription();
        KJ_REQUIRE(d.startsWith("remote exception: unauthorized: "), "bad token: wrong reason", d);
        KJ_REQUIRE(std::string(d.cStr()).find(bad) == std::string::npos, "the refusal echoes the token");
        step(std::string("bad token refused: ") + d.cStr());
      } else {
        KJ_FAIL_REQUIRE("restore(bad token) succeeded");
      }
    }

    // restore, with appender() and reader() pipelined on its promised share.
    auto restoreReq = vault.restoreRequest();
    restoreReq.setToken(token);
    auto restored = restoreReq.send();
    auto appender = restored.getShare().appenderRequest().send().getAppender();
    auto reader = restored.getShare().readerRequest().send().getReader();
    auto r = deadline(kj::mv(restored));
    auto access = r.getAccess();
    uint64_t epoch = access.getEpoch();
    uint64_t head0 = r.getInfo().getHead();
    std::string shareId = str(r.getInfo().getId());
    KJ_REQUIRE(access.getScope().getRead() && access.getScope().getAppend(), "owner token lacks read or append");
    KJ_REQUIRE(epoch >= 1, epoch);
    step("restored share " + shareId + " (epoch " + std::to_string(epoch) + ", head " + std::to_string(head0) + ")");

    auto ops = makeOps(prefix);
    std::string batchId = prefix + "-batch-1";
    auto append = [&](uint64_t ep, const std::string& id, const std::vector<TestOp>& batchOps, uint64_t head) {
      auto req = appender.appendRequest();
      fillBatch(req.initBatch(), id, ep, batchOps, head);
      return deadline(req.send());
    };

    auto first = append(epoch, batchId, ops, head0);
    auto ack = first.getAck();
    KJ_REQUIRE(ack.getApplied() == ops.size(), ack.getApplied());
    KJ_REQUIRE(ack.getDuplicates() == 0 && ack.getRejected() == 0, ack.getDuplicates(), ack.getRejected());
    KJ_REQUIRE(ack.getHead() == head0 + ops.size(), ack.getHead());
    KJ_REQUIRE(ack.getResults().size() == ops.size());
    std::vector<uint64_t> cursors;
    for (uint i = 0; i < ops.size(); i++) {
      auto res = ack.getResults()[i];
      KJ_REQUIRE(str(res.getOpId()) == ops[i].opId, i);
      KJ_REQUIRE(res.getStatus() == OpStatus::APPLIED, i);
      KJ_REQUIRE(res.getCursor() == head0 + i + 1, i, res.getCursor());
      cursors.push_back(res.getCursor());
    }
    step("appended " + std::to_string(ops.size()) + " ops, head " + std::to_string(ack.getHead()));

    // The same batch again: every op a duplicate at its first cursor.
    auto again = append(epoch, batchId, ops, head0);
    KJ_REQUIRE(again.getAck().getApplied() == 0 && again.getAck().getDuplicates() == ops.size());
    for (uint i = 0; i < ops.size(); i++) {
      auto res = again.getAck().getResults()[i];
      KJ_REQUIRE(res.getStatus() == OpStatus::DUPLICATE && res.getCursor() == cursors[i], i);
    }
    step("retry answered duplicate at the same cursors");

    // A stale epoch is rejected per op, not thrown.
    auto stale = append(epoch + 1, prefix + "-batch-stale",
                        {{prefix + "-stale", "event", "", "{}", {}, false}}, ack.getHead());
    KJ_REQUIRE(stale.getAck().getRejected() == 1);
    KJ_REQUIRE(stale.getAck().getResults()[0].getReason() == Reason::STALE_EPOCH);
    step("stale epoch rejected");

    // read(0, 100) (on a share with a longer log, from just before ours).
    auto readReq = reader.readRequest();
    readReq.setFromCursor(head0 + ops.size() <= 100 ? 0 : head0);
    readReq.setLimit(100);
    auto rd = deadline(readReq.send());
    KJ_REQUIRE(rd.getHead() == ack.getHead(), rd.getHead());
    uint n = 0;
    for (auto e : rd.getOps()) {
      if (e.getCursor() <= head0) continue;
      KJ_REQUIRE(n < ops.size(), "more ops than appended");
      const auto& o = ops[n];
      KJ_REQUIRE(e.getCursor() == cursors[n], n);
      KJ_REQUIRE(str(e.getOpId()) == o.opId, n);
      KJ_REQUIRE(str(e.getBatchId()) == batchId, n);
      KJ_REQUIRE(e.getSeq() == n, n);
      KJ_REQUIRE(str(e.getKind()) == o.kind, n);
      KJ_REQUIRE(str(e.getKey()) == o.key, n);
      KJ_REQUIRE(e.getDelete() == o.del, n);
      KJ_REQUIRE(e.getAt() > 0, n);
      n++;
    }
    KJ_REQUIRE(n == ops.size(), "ops read back", n);
    step("read back " + std::to_string(n) + " ops");

    result = "{\"ok\":true,\"share\":\"" + shareId + "\",\"epoch\":" + std::to_string(epoch) +
             ",\"opIds\":[";
    for (uint i = 0; i < ops.size(); i++) result += (i ? ",\"" : "\"") + ops[i].opId + "\"";
    result += "],\"cursors\":[";
    for (uint i = 0; i < cursors.size(); i++) result += (i ? "," : "") + std::to_string(cursors[i]);
    result += "],\"head\":" + std::to_string(ack.getHead()) + "}";

    // A normal close frame while the RPC system still reads: the server
    // echoes it and the connection ends cleanly.
    timer.timeoutAfter(2 * kj::SECONDS, socket->close(1000, ""))
        .catch_([](kj::Exception&&) {})
        .wait(ws);
    timer.timeoutAfter(2 * kj::SECONDS, network.onDisconnect())
        .catch_([](kj::Exception&&) {})
        .wait(ws);
  }
  std::cout << result << std::endl;
  step("PASS");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: SHAREVAT_TOKEN=svt1_... client HOST:PORT [PREFIX]" << std::endl;
    return 2;
  }
  const char* token = std::getenv("SHAREVAT_TOKEN");
  if (token == nullptr || *token == '\0') {
    std::cerr << "interop c++ client: no token: set SHAREVAT_TOKEN" << std::endl;
    return 2;
  }
  std::string prefix = argc == 3 ? argv[2] : "cxx";
  KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() { (void)run(argv[1], token, prefix); })) {
    std::cerr << "interop c++ client: FAIL: " << e->getDescription().cStr() << std::endl;
    return 1;
  }
  return 0;
}
