// Scenario "latency": per-operation cost of one link request, exec vs library (Google Benchmark).
//   Create/<peer>: create one bridge (`ip link add latN type bridge`), a new name per iteration;
//                  the bridges are deleted after the timed loop with one `del group` request.
//   SetUp/<peer>:  set one veth up (`ip link set dev lat-a up`); it is set down again with
//                  the timer paused.
// Peers: std::system("ip ..."), popen("ip ...") + read to EOF, libnl3, fastlink. The library
// peers keep one socket open for the whole benchmark (that is how they are used).
// Run it in a scratch network namespace (bench/run does).
#include <benchmark/benchmark.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include <fastlink/fastlink.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace fastlink;

namespace {

constexpr uint32_t kGroup = 77;
int gCounter = 0;

void deleteCreated() {
  Netlink nl;
  Batch b;
  for (const auto& l : nl.links().list())
    if (l.name && l.name->rfind("latc", 0) == 0) b.add(LinkRequests::set(Ifref(*l.index), LinkInfo().setGroup(kGroup)));
  BatchOptions o;
  o.onError = OnError::Continue;
  nl.run(b, o);
  if (!b.empty()) nl.links().delGroup(kGroup);
}

std::string nextName() { return "latc" + std::to_string(gCounter++); }

void runShell(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
}

void runPopen(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("popen");
  char buf[4096];
  while (std::fread(buf, 1, sizeof buf, p) > 0) {
  }
  if (pclose(p) != 0) throw std::runtime_error("failed: " + cmd);
}

nl_sock* libnlSocket() {
  nl_sock* sk = nl_socket_alloc();
  if (nl_connect(sk, NETLINK_ROUTE) < 0) throw std::runtime_error("nl_connect");
  return sk;
}

void libnlCreate(nl_sock* sk, const std::string& name) {
  rtnl_link* l = rtnl_link_alloc();
  rtnl_link_set_name(l, name.c_str());
  rtnl_link_set_type(l, "bridge");
  int rc = rtnl_link_add(sk, l, NLM_F_CREATE | NLM_F_EXCL);
  rtnl_link_put(l);
  if (rc < 0) throw std::runtime_error(std::string("rtnl_link_add: ") + nl_geterror(rc));
}

void libnlSetUp(nl_sock* sk, int index, bool up) {
  rtnl_link* orig = rtnl_link_alloc();
  rtnl_link_set_ifindex(orig, index);
  rtnl_link* change = rtnl_link_alloc();
  if (up) rtnl_link_set_flags(change, IFF_UP);
  else rtnl_link_unset_flags(change, IFF_UP);
  int rc = rtnl_link_change(sk, orig, change, 0);
  rtnl_link_put(change);
  rtnl_link_put(orig);
  if (rc < 0) throw std::runtime_error(std::string("rtnl_link_change: ") + nl_geterror(rc));
}

// ---- Create ----

void Create_system(benchmark::State& st) {
  for (auto _ : st) runShell("ip link add " + nextName() + " type bridge");
  deleteCreated();
}
void Create_popen(benchmark::State& st) {
  for (auto _ : st) runPopen("ip link add " + nextName() + " type bridge");
  deleteCreated();
}
void Create_libnl(benchmark::State& st) {
  nl_sock* sk = libnlSocket();
  for (auto _ : st) libnlCreate(sk, nextName());
  nl_socket_free(sk);
  deleteCreated();
}
void Create_fastlink(benchmark::State& st) {
  Netlink nl;
  for (auto _ : st) nl.links().add(LinkInfo(nextName(), "bridge"));
  deleteCreated();
}

// ---- SetUp ----

Netlink& helper() {
  static Netlink nl;
  return nl;
}
void setDown() { helper().links().set(Ifref("lat-a"), LinkInfo().setAdmin(false)); }

template <class Up>
void setUpLoop(benchmark::State& st, Up up) {
  for (auto _ : st) {
    up();
    st.PauseTiming();
    setDown();
    st.ResumeTiming();
  }
}

void SetUp_system(benchmark::State& st) { setUpLoop(st, [] { runShell("ip link set dev lat-a up"); }); }
void SetUp_popen(benchmark::State& st) { setUpLoop(st, [] { runPopen("ip link set dev lat-a up"); }); }
void SetUp_libnl(benchmark::State& st) {
  nl_sock* sk = libnlSocket();
  int index = static_cast<int>(helper().links().indexOf(Ifref("lat-a")));
  setUpLoop(st, [&] { libnlSetUp(sk, index, true); });
  nl_socket_free(sk);
}
void SetUp_fastlink(benchmark::State& st) {
  Netlink nl;
  uint32_t index = nl.links().indexOf(Ifref("lat-a"));
  setUpLoop(st, [&] { nl.links().set(Ifref(index), LinkInfo().setAdmin(true)); });
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 200;
  if (const char* it = std::getenv("FL_BENCH_LAT_ITERS")) iterations = std::atoi(it);
  auto reg = [&](const char* name, void (*fn)(benchmark::State&), int div) {
    benchmark::RegisterBenchmark(name, fn)->Iterations(std::max(1, iterations / div))->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  };
  // The exec peers are ~100x slower: fewer iterations keep the run short.
  reg("Create/system", Create_system, 8);
  reg("Create/popen", Create_popen, 8);
  reg("Create/libnl", Create_libnl, 1);
  reg("Create/fastlink", Create_fastlink, 1);
  reg("SetUp/system", SetUp_system, 8);
  reg("SetUp/popen", SetUp_popen, 8);
  reg("SetUp/libnl", SetUp_libnl, 1);
  reg("SetUp/fastlink", SetUp_fastlink, 1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  try {
    helper().links().add(LinkInfo("lat-a", "veth").setVeth(VethInfo().setPeerName("lat-b")));
    benchmark::RunSpecifiedBenchmarks();
    helper().links().del(Ifref("lat-a"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "latency_bench: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
