// `fastlink netns` against `ip netns` as the oracle: the same namespaces, ids, text, JSON and
// exit statuses. Named namespaces live in /run/netns, which these tests must only ever see as
// scripts/sandbox's private tmpfs: every test checks that first (NetnsCliTest::SetUp), creates
// names of its own (fl-nsid-PID-N) and removes them in TearDown, also when it fails.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"

namespace fastlink::test {
namespace {

using json = nlohmann::json;

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The mount namespace we run in is not the machine's (pid 1's): scripts/sandbox, or the VM,
/// whose whole system is thrown away. Anything else would put namespaces on the host.
bool privateRunNetns() {
  // scripts/sandbox mounts a tmpfs named fastlink-netns on /run/netns in its own mount namespace.
  std::istringstream mounts(readFile("/proc/self/mountinfo"));
  for (std::string line; std::getline(mounts, line);)
    if (line.find(" /run/netns ") != std::string::npos && line.find(" - tmpfs fastlink-netns ") != std::string::npos)
      return true;
  return std::getenv("FASTLINK_REQUIRE_KINDS") != nullptr;  // tests/vm's guest (its own machine)
}

class NetnsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!privateRunNetns()) GTEST_SKIP() << "netns tests run only inside scripts/sandbox (a private /run/netns)";
  }
  void TearDown() override {
    for (const std::string& name : names_) run("ip netns del " + name + " 2>/dev/null");
    for (pid_t pid : pids_) kill(pid, SIGKILL);
  }

  /// A fresh name, removed in TearDown whatever happens.
  std::string name() {
    names_.push_back("fl-nsid-" + std::to_string(getpid()) + "-" + std::to_string(names_.size()));
    return names_.back();
  }
  /// A process in a network namespace of its own (unshare -n sleep), killed in TearDown.
  pid_t isolatedProcess() {
    auto r = run("unshare -n sleep 60 >/dev/null 2>&1 & echo $!");
    pid_t pid = static_cast<pid_t>(std::stol(r.out));
    pids_.push_back(pid);
    for (int i = 0; i < 100; ++i) {  // until sleep runs in its namespace (unshare has exec'd)
      if (readFile("/proc/" + std::to_string(pid) + "/comm") == "sleep\n") break;
      usleep(10000);
    }
    return pid;
  }
  static CommandResult fl(const std::string& args) { return run(cliPath() + " " + args); }
  /// fastlink's output and status are ip's. Other test binaries of the sandbox add and delete
  /// namespaces meanwhile: ip is asked before and after, and only a stable answer is compared.
  static void sameAsIp(const std::string& words) {
    for (int attempt = 0;; ++attempt) {
      auto before = ip(words), mine = fl(words), after = ip(words);
      if ((before.out != after.out || before.status != after.status) && attempt < 5) continue;
      EXPECT_EQ(mine.status, after.status) << words << "\n" << mine.err;
      EXPECT_EQ(mine.out, after.out) << words;
      return;
    }
  }
  static CommandResult ip(const std::string& args) { return run("ip " + args); }
  static bool exists(const std::string& name) {
    struct stat st {};
    return stat(("/run/netns/" + name).c_str(), &st) == 0;
  }
  static bool mounted(const std::string& name) {
    return readFile("/proc/self/mountinfo").find(" /run/netns/" + name + " ") != std::string::npos;
  }

  std::vector<std::string> names_;
  std::vector<pid_t> pids_;
};

TEST_F(NetnsCliTest, AddMakesANamespaceIpSeesAndDeleteRemovesItsMountAndFile) {
  std::string a = name();
  auto add = fl("netns add " + a);
  ASSERT_EQ(add.status, 0) << add.err;
  EXPECT_TRUE(exists(a));
  EXPECT_TRUE(mounted(a)) << "no namespace bind-mounted on /run/netns/" << a;
  // A namespace of its own: ip can enter it, and it has nothing but lo.
  auto links = run("ip -n " + a + " -j link show");
  ASSERT_EQ(links.status, 0) << links.err;
  json j = json::parse(links.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["ifname"], "lo");
  // /run/netns is made a shared mount point, as ip makes it (mount --make-shared).
  // The mount on top (the last listed for /run/netns: the host may have its own underneath).
  std::string top;
  std::istringstream lines(readFile("/proc/self/mountinfo"));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    fields >> id >> parent >> dev >> root >> point;
    if (point == "/run/netns") top = line;
  }
  ASSERT_FALSE(top.empty());
  EXPECT_NE(top.find(" shared:"), std::string::npos) << top;

  auto del = fl("netns del " + a);
  ASSERT_EQ(del.status, 0) << del.err;
  EXPECT_FALSE(exists(a));
  EXPECT_FALSE(mounted(a));
}

TEST_F(NetnsCliTest, ListAndListIdPrintWhatIpPrints) {
  std::string a = name(), b = name();
  ASSERT_EQ(fl("netns add " + a).status, 0);
  ASSERT_EQ(ip("netns add " + b).status, 0);
  auto set = fl("netns set " + a + " 99");
  ASSERT_EQ(set.status, 0) << set.err;
  EXPECT_EQ(ip("netns list-id nsid 99").out, "nsid 99 (iproute2 netns name: " + a + ")\n");
  // `b` gets its id from inside `a` (auto: the kernel picks), so a target-nsid dump has one.
  ASSERT_EQ(fl("-n " + a + " netns set " + b + " auto").status, 0);
  for (const std::string& words : std::vector<std::string>{"netns", "netns list", "netns show", "netns l", "netns list-id", "netns list-id nsid 99",
        "netns list-id target-nsid 99", "netns list-id target-nsid 99 nsid 0", "-n " + a + " netns list-id",
        "-n " + a + " netns list"}) {
    sameAsIp(words);
    sameAsIp("-j " + words);
  }
  EXPECT_NE(fl("netns list").out.find(a + " (id: 99)\n"), std::string::npos);
}

TEST_F(NetnsCliTest, FailuresHaveIpsExitStatusesAndChangeNothing) {
  std::string a = name(), missing = name();
  ASSERT_EQ(fl("netns add " + a).status, 0);
  ASSERT_EQ(fl("netns set " + a + " 5").status, 0);
  for (const std::string& words : std::vector<std::string>{
           "netns add " + a,                // the name is taken: 1
        "netns set " + a + " 6",         // the namespace has an id: 2 (the kernel's EEXIST)
        "netns set " + a + " -1",        // 255
        "netns set " + a + " x",         // 255
        "netns set " + a,                // No nsid specified: 1
        "netns set " + missing + " 7",   // Cannot open network namespace: 1
        "netns del " + missing,          // 1
        "netns add",                     // No netns name specified: 1
        "netns add a/b",                 // Invalid netns name: 255
        "netns bogus",                   // 255
        "netns list-id nsid 77",         // no such id: 2
        "netns list-id nsid -1",         // 255
        "netns list-id nsid 1 nsid 2",   // duplicate: 255
        "netns identify x1",             // not a pid: 1
        "netns identify 1 2",            // 1
        "netns pids",                    // 1
        "netns pids " + missing,         // 1
        "netns attach " + missing,       // No netns name and PID specified: 1
        "netns attach " + missing + " 0",  // Invalid PID: 1
        "netns exec " + a}) {            // No command specified: 1
    auto mine = fl(words), theirs = ip(words);
    EXPECT_EQ(mine.status, theirs.status) << words << "\nfastlink: " << mine.err << "ip: " << theirs.err;
    EXPECT_FALSE(mine.err.empty()) << words << ": no message";
  }
  EXPECT_EQ(ip("netns list-id nsid 5").out, "nsid 5 (iproute2 netns name: " + a + ")\n");
  EXPECT_NE(ip("netns list-id nsid 6").status, 0);
  EXPECT_FALSE(exists(missing));
  EXPECT_FALSE(exists("a"));
}

TEST_F(NetnsCliTest, BatchRunsEachLineAtItsTurnAsSetNsidBatchDoes) {
  // iproute2's testsuite, tests/ip/netns/set_nsid_batch.t.
  std::string a = name();
  std::string path = "/tmp/fastlink-netns-batch-" + std::to_string(getpid());
  {
    std::ofstream f(path);
    f << "netns add " << a << "\nnetns set " << a << " 99\nnetns list-id\n";
  }
  auto r = fl("-b " + path);
  std::remove(path.c_str());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("nsid 99 (iproute2 netns name: " + a + ")"), std::string::npos) << r.out;
  EXPECT_EQ(ip("netns list-id nsid 99").status, 0);
}

TEST_F(NetnsCliTest, ABadBatchLineRunsNothingAndAFailedOneStopsTheRest) {
  std::string a = name(), b = name();
  std::string path = "/tmp/fastlink-netns-batch-" + std::to_string(getpid());
  auto batch = [&](const std::string& text) {
    std::ofstream(path) << text;
    auto r = fl("-b " + path);
    std::remove(path.c_str());
    return r;
  };
  auto bad = batch("netns add " + a + "\nnetns set " + a + " x\n");
  EXPECT_EQ(bad.status, 255) << bad.err;
  EXPECT_FALSE(exists(a)) << "a line was run before the bad one was found";
  auto failed = batch("netns add " + a + "\nnetns add " + a + "\nnetns add " + b + "\n");
  EXPECT_EQ(failed.status, 1) << failed.err;
  EXPECT_NE(failed.err.find("line 2"), std::string::npos) << failed.err;
  EXPECT_TRUE(exists(a));
  EXPECT_FALSE(exists(b));
}

TEST_F(NetnsCliTest, AttachIdentifyAndPidsAgreeWithIp) {
  std::string a = name();
  pid_t pid = isolatedProcess();
  std::string p = std::to_string(pid);
  auto attach = fl("netns attach " + a + " " + p);
  ASSERT_EQ(attach.status, 0) << attach.err;
  EXPECT_EQ(ip("netns identify " + p).out, a + "\n");
  EXPECT_EQ(fl("netns identify " + p).out, a + "\n");
  EXPECT_EQ(fl("netns identify").out, ip("netns identify").out);  // ours: none, an empty line
  auto pids = fl("netns pids " + a);
  EXPECT_EQ(pids.status, 0) << pids.err;
  EXPECT_EQ(pids.out, ip("netns pids " + a).out);
  EXPECT_EQ(pids.out, p + "\n");
}

TEST_F(NetnsCliTest, ExecRunsInTheNamespaceWithItsSysAndReturnsTheProgramsStatus) {
  std::string a = name();
  ASSERT_EQ(fl("netns add " + a).status, 0);
  ASSERT_EQ(ip("-n " + a + " link add fl-dummy0 type veth peer name fl-dummy1").status, 0);
  // /sys is the namespace's: its devices, not ours.
  auto sys = fl("netns exec " + a + " ls /sys/class/net");
  EXPECT_EQ(sys.status, 0) << sys.err;
  EXPECT_EQ(sys.out, ip("netns exec " + a + " ls /sys/class/net").out);
  EXPECT_NE(sys.out.find("fl-dummy0"), std::string::npos) << sys.out;
  EXPECT_EQ(fl("netns exec " + a + " sh -c 'exit 7'").status, 7);
  auto missing = fl("netns exec " + a + " /nonexistent/program");
  EXPECT_EQ(missing.status, ip("netns exec " + a + " /nonexistent/program").status);
  EXPECT_NE(missing.err.find("exec of \"/nonexistent/program\" failed"), std::string::npos) << missing.err;
  // The mount namespace exec made stays its own: nothing of it is left in ours.
  EXPECT_EQ(run("ls /sys/class/net").out.find("fl-dummy0"), std::string::npos);
}

TEST_F(NetnsCliTest, AllDeletesEveryNameAndAllExecVisitsEach) {
  // -all acts on every name in /run/netns: in a mount namespace of this test's own, with a
  // /run/netns of its own, so that other test binaries' namespaces are not touched.
  std::string fastlink = cliPath();  // inside sh -c '...': a path without quotes
  // By path: the VM's busybox unshare would run its own ash, whose `ip` is busybox's applet.
  std::string ipPath = run("command -v ip").out, shell = access("/bin/dash", X_OK) == 0 ? "/bin/dash" : "sh";
  while (!ipPath.empty() && ipPath.back() == '\n') ipPath.pop_back();
  auto r = run("unshare -m --propagation private " + shell + " -c '"
               "mount -t tmpfs fl-netns-all /run/netns && " + fastlink + " netns add fl-all-a && " + fastlink +
               " netns add fl-all-b && echo == && " + fastlink + " -all netns exec echo hi && echo == && " +
               ipPath + " -all netns exec echo hi && echo == && " + fastlink + " -all netns delete && echo $? && ls /run/netns'");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> parts;
  for (std::size_t at = 0;;) {
    std::size_t next = r.out.find("==\n", at);
    parts.push_back(r.out.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 3;
  }
  ASSERT_EQ(parts.size(), 4u) << r.out;
  EXPECT_EQ(parts[1], parts[2]) << "fastlink -all netns exec differs from ip's";
  EXPECT_NE(parts[1].find("\nnetns: fl-all-a\nhi\n"), std::string::npos) << parts[1];
  EXPECT_NE(parts[1].find("\nnetns: fl-all-b\nhi\n"), std::string::npos) << parts[1];
  EXPECT_EQ(parts[3], "0\n") << "-all netns delete left: " << parts[3];
}

TEST_F(NetnsCliTest, MonitorPrintsAddsAndDeletesAsTheyHappen) {
  std::string a = name();
  std::string out = "/tmp/fastlink-netns-monitor-" + std::to_string(getpid());
  auto started = run("timeout 20 " + cliPath() + " netns monitor >" + out + " 2>&1 & echo $!");
  // Until the watch is set up (slow under the VM's TCG): a file of our own comes and goes until
  // the monitor has seen it.
  std::string warm = "/run/netns/fl-warm-" + std::to_string(getpid());
  for (int i = 0; i < 100 && readFile(out).find("add fl-warm-") == std::string::npos; ++i) {
    std::ofstream(warm).put('x');
    std::remove(warm.c_str());
    usleep(100000);
  }
  ASSERT_EQ(fl("netns add " + a).status, 0);
  ASSERT_EQ(fl("netns del " + a).status, 0);
  usleep(300000);
  kill(static_cast<pid_t>(std::stol(started.out)), SIGTERM);
  usleep(100000);
  // Other test binaries' namespaces come and go meanwhile: only this test's lines are compared.
  std::string text, line;
  std::istringstream lines(readFile(out));
  while (std::getline(lines, line))
    if (line.find(a) != std::string::npos) text += line + "\n";
  std::remove(out.c_str());
  EXPECT_EQ(text, "add " + a + "\ndelete " + a + "\n");
}

}  // namespace
}  // namespace fastlink::test
