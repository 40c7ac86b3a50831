// `fastlink conntrack ...` against conntrack-tools in a namespace of the test's own (conntrack
// tables are per namespace): entries made by `conntrack -I` (an independent creator) or by
// fastlink, read back with `conntrack -L` / `conntrack -G` as the oracle.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include <chrono>
#include <fstream>
#include <optional>
#include <regex>
#include <thread>

#include "cli_fixture.hpp"

namespace fastlink::test {
namespace {

/// Polls `ready` every 10 ms until it holds (true) or 20 s have passed (false): generous on
/// purpose (the sanitizer build on a loaded 2-core CI machine is 3-5 times slower); a ready
/// condition ends it at once.
template <class Ready>
bool waitUntil(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

using nlohmann::json;

/// Makes the kernel keep conntrack labels in namespace `netns`: it stores CTA_LABELS only once
/// something uses labels there (nf_connlabels_get), and neither nft nor iptables is installed.
/// An nftables rule `ct label set 127` in a regular chain of its own table does it, as nft
/// would add it (immediate into NFT_REG_1, ct set labels from it); the namespace's deletion
/// removes it. Sent from a child that joins the namespace. Returns "" or what failed.
std::string enableConnlabels(const std::string& netns) {
  struct Builder {
    std::vector<uint8_t> buf;
    std::vector<std::size_t> open;
    void align() { buf.resize((buf.size() + 3) & ~std::size_t{3}, 0); }
    void message(uint16_t type, uint16_t flags, uint8_t family, uint16_t resId, uint32_t seq) {
      align();
      open.push_back(buf.size());
      nlmsghdr h{0, type, static_cast<uint16_t>(NLM_F_REQUEST | flags), seq, 0};
      nfgenmsg g{family, NFNETLINK_V0, htons(resId)};
      buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&h), reinterpret_cast<uint8_t*>(&h) + sizeof h);
      buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&g), reinterpret_cast<uint8_t*>(&g) + sizeof g);
    }
    void endMessage() {
      uint32_t len = static_cast<uint32_t>(buf.size() - open.back());
      std::memcpy(buf.data() + open.back(), &len, 4);
      open.pop_back();
    }
    void attr(uint16_t type, const void* data, std::size_t size) {
      align();
      nlattr a{static_cast<uint16_t>(NLA_HDRLEN + size), type};
      buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&a), reinterpret_cast<uint8_t*>(&a) + sizeof a);
      buf.insert(buf.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
    }
    void str(uint16_t type, const char* s) { attr(type, s, std::strlen(s) + 1); }
    void be32(uint16_t type, uint32_t v) {
      v = htonl(v);
      attr(type, &v, 4);
    }
    void nest(uint16_t type) {
      align();
      open.push_back(buf.size());
      nlattr a{0, static_cast<uint16_t>(type | NLA_F_NESTED)};
      buf.insert(buf.end(), reinterpret_cast<uint8_t*>(&a), reinterpret_cast<uint8_t*>(&a) + sizeof a);
    }
    void endNest() {
      uint16_t len = static_cast<uint16_t>(buf.size() - open.back());
      std::memcpy(buf.data() + open.back(), &len, 2);
      open.pop_back();
    }
  } b;
  const char* table = "fastlink_test_labels";
  uint16_t nft = NFNL_SUBSYS_NFTABLES << 8;
  b.message(NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES, 1);
  b.endMessage();
  b.message(nft | NFT_MSG_NEWTABLE, NLM_F_CREATE | NLM_F_ACK, NFPROTO_IPV4, 0, 2);
  b.str(NFTA_TABLE_NAME, table);
  b.endMessage();
  b.message(nft | NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_ACK, NFPROTO_IPV4, 0, 3);
  b.str(NFTA_CHAIN_TABLE, table);
  b.str(NFTA_CHAIN_NAME, "labels");
  b.endMessage();
  b.message(nft | NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, NFPROTO_IPV4, 0, 4);
  b.str(NFTA_RULE_TABLE, table);
  b.str(NFTA_RULE_CHAIN, "labels");
  b.nest(NFTA_RULE_EXPRESSIONS);
  b.nest(NFTA_LIST_ELEM);
  b.str(NFTA_EXPR_NAME, "immediate");
  b.nest(NFTA_EXPR_DATA);
  b.be32(NFTA_IMMEDIATE_DREG, NFT_REG_1);
  b.nest(NFTA_IMMEDIATE_DATA);
  uint8_t bit127[16] = {};
  bit127[15] = 0x80;
  b.attr(NFTA_DATA_VALUE, bit127, sizeof bit127);
  b.endNest();
  b.endNest();
  b.endNest();
  b.nest(NFTA_LIST_ELEM);
  b.str(NFTA_EXPR_NAME, "ct");
  b.nest(NFTA_EXPR_DATA);
  b.be32(NFTA_CT_KEY, NFT_CT_LABELS);
  b.be32(NFTA_CT_SREG, NFT_REG_1);
  b.endNest();
  b.endNest();
  b.endNest();
  b.endMessage();
  b.message(NFNL_MSG_BATCH_END, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES, 5);
  b.endMessage();

  int pipeFd[2];
  if (pipe(pipeFd) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(pipeFd[0]);
    auto fail = [&](const std::string& what) {
      std::string text = what + ": " + std::strerror(errno);
      (void)!write(pipeFd[1], text.data(), text.size());
      _exit(1);
    };
    int nsFd = open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC);
    if (nsFd < 0 || setns(nsFd, CLONE_NEWNET) != 0) fail("joining the namespace");
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
    if (fd < 0) fail("socket");
    if (send(fd, b.buf.data(), b.buf.size(), 0) < 0) fail("send");
    // One ACK for each of the three messages asking for one, or the first error.
    for (int acks = 0; acks < 3;) {
      alignas(nlmsghdr) char reply[8192];
      ssize_t n = recv(fd, reply, sizeof reply, 0);
      if (n < 0) fail("recv");
      for (auto* h = reinterpret_cast<nlmsghdr*>(reply); NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
        if (h->nlmsg_type != NLMSG_ERROR) continue;
        auto* e = static_cast<nlmsgerr*>(NLMSG_DATA(h));
        errno = -e->error;
        if (e->error) fail("nftables message " + std::to_string(h->nlmsg_seq));
        ++acks;
      }
    }
    _exit(0);
  }
  close(pipeFd[1]);
  std::string said;
  char chunk[256];
  for (ssize_t n; (n = read(pipeFd[0], chunk, sizeof chunk)) > 0;) said.append(chunk, static_cast<std::size_t>(n));
  close(pipeFd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return said.empty() ? "the child failed" : said;
  return "";
}

/// /etc/xtables/connlabel.conf for this process and its children (conntrack-tools and fastlink
/// both read that path): an overlay on /etc in a mount namespace of the test process's own,
/// the host's /etc untouched; removed again by the destructor.
class ConnlabelFile {
 public:
  explicit ConnlabelFile(const std::string& text) {
    dir_ = "/tmp/fastlink-connlabel-" + std::to_string(getpid());
    std::filesystem::create_directories(dir_ + "/upper/xtables");
    std::filesystem::create_directories(dir_ + "/work");
    std::ofstream(dir_ + "/upper/xtables/connlabel.conf") << text;
    if (unshare(CLONE_NEWNS) != 0) {
      error_ = std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
      return;
    }
    mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
    std::string options = "lowerdir=/etc,upperdir=" + dir_ + "/upper,workdir=" + dir_ + "/work";
    if (mount("overlay", "/etc", "overlay", 0, options.c_str()) != 0) error_ = std::string("overlay on /etc: ") + std::strerror(errno);
    else mounted_ = true;
  }
  ~ConnlabelFile() {
    if (mounted_) umount2("/etc", MNT_DETACH);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  const std::string& error() const { return error_; }

 private:
  std::string dir_, error_;
  bool mounted_ = false;
};

bool haveConntrackTool() { return run("command -v conntrack >/dev/null 2>&1").status == 0; }

class ConntrackCliTest : public CliTest {
 protected:
  void SetUp() override {
    if (!haveConntrackTool()) GTEST_SKIP() << "tool 'conntrack' is missing (Debian package conntrack)";
  }
  /// conntrack-tools in the test's namespace.
  CommandResult tool(const std::string& args) const { return ns.exec("conntrack " + args); }
  void insert(const std::string& args) const {
    auto r = tool("-I " + args);
    ASSERT_EQ(r.status, 0) << args << ": " << r.err;
  }
  /// A table of one each: UDP replied (marked), TCP established in a zone, ICMP, IPv6 UDP.
  void populate() const {
    insert("-p udp -s 10.0.0.1 -d 10.0.0.2 --sport 1234 --dport 53 -t 100 -u SEEN_REPLY --mark 5");
    insert("-p tcp -s 10.0.0.1 -d 10.0.0.2 --sport 1000 --dport 80 -t 100 --state ESTABLISHED -u ASSURED,SEEN_REPLY --zone 3");
    insert("-p icmp -s 10.0.0.3 -d 10.0.0.2 --icmp-type 8 --icmp-code 0 --icmp-id 77 -t 100");
    insert("-p udp -s fd00::1 -d fd00::2 --sport 1 --dport 2 -t 100");
    insert("-p udp -s 10.0.0.9 -d 10.0.0.2 --sport 7 --dport 8 -t 100 --mark 6");
  }
  /// Lines of conntrack's output with the timeout (which ticks between two reads) blanked.
  static std::multiset<std::string> lines(const std::string& text) {
    std::multiset<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      // "udp      17 99 src=..." / "tcp      6 99 ESTABLISHED ...": the third word is the timeout.
      std::istringstream words(line);
      std::string w, rebuilt;
      for (int i = 0; words >> w; ++i) {
        if (i == 2 && std::all_of(w.begin(), w.end(), ::isdigit)) w = "T";
        if (i == 4 && line.starts_with("ipv") && std::all_of(w.begin(), w.end(), ::isdigit)) w = "T";
        rebuilt += (rebuilt.empty() ? "" : " ") + w;
      }
      out.insert(rebuilt);
    }
    return out;
  }
  /// Starts `fastlink -n NS ARGS` in the background, stdout and stderr into `out`; its pid.
  pid_t startCli(const std::string& args, const std::string& out) const {
    pid_t pid = fork();
    if (pid == 0) {
      std::string cmd = cliPath() + " -n " + ns.name() + " " + args + " > " + out + " 2>&1";
      execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), nullptr);
      _exit(127);
    }
    return pid;
  }
  /// What the kernel holds for the NETLINK_NETFILTER sockets (protocol 12) with groups joined
  /// in the namespace (/proc/net/netlink): bytes queued and messages dropped on overflow;
  /// nullopt when there is none.
  struct ListenerState {
    long queued = 0, drops = 0;
  };
  std::optional<ListenerState> listenerState() const {
    std::istringstream in(ns.exec("cat /proc/net/netlink").out);
    std::string line;
    std::getline(in, line);  // sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
    std::optional<ListenerState> state;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string sk, pid, groups;
      int protocol = -1;
      long rmem = 0, wmem = 0, dump = 0, locks = 0, drops = 0;
      words >> sk >> protocol >> pid >> groups >> rmem >> wmem >> dump >> locks >> drops;
      if (protocol != 12 || groups == "00000000") continue;
      if (!state) state.emplace();
      state->queued += rmem;
      state->drops += drops;
    }
    return state;
  }
  /// A NETLINK_NETFILTER socket with groups joined exists in the namespace.
  bool listening() const { return listenerState().has_value(); }
  /// The text of `file` once it holds `needle` (or after 20 s: the caller's checks say what is missing).
  static std::string textOnceItHolds(const std::string& file, const std::string& needle) {
    std::string text;
    waitUntil([&] {
      std::ifstream f(file);
      text.assign(std::istreambuf_iterator<char>(f), {});
      return text.find(needle) != std::string::npos;
    });
    return text;
  }
  void expectSameListing(const std::string& selectors) {
    auto mine = cli("conntrack -L " + selectors);
    auto theirs = tool("-L " + selectors);
    ASSERT_EQ(mine.status, 0) << mine.err;
    EXPECT_EQ(lines(mine.out), lines(theirs.out)) << "conntrack -L " << selectors;
    EXPECT_FALSE(mine.out.ends_with(" \n"));
  }
};

TEST_F(ConntrackCliTest, ListPrintsWhatConntrackPrints) {
  populate();
  expectSameListing("");
  expectSameListing("-o extended,id");
  // Selectors the kernel filters (CTA_FILTER, mark, zone, family) — each must select something.
  for (const char* sel : {"-s 10.0.0.1", "-d 10.0.0.2 -p udp", "-p tcp --dport 80", "-p udp --sport 1234",
                          "--mark 5", "--mark 4/4", "--zone 3", "-f ipv6", "-u ASSURED", "-s 10.0.0.1 -p udp --dport 53"}) {
    SCOPED_TRACE(sel);
    auto mine = cli(std::string("conntrack -L ") + sel);
    EXPECT_FALSE(mine.out.empty()) << "selects nothing: a useless check";
    expectSameListing(sel);
  }
  // Nothing matches: empty, success, like conntrack.
  auto none = cli("conntrack -L -s 10.9.9.9");
  EXPECT_EQ(none.status, 0);
  EXPECT_EQ(none.out, "");
}

TEST_F(ConntrackCliTest, JsonCarriesTheTuples) {
  populate();
  auto r = cli("-j conntrack -L -p tcp");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["protocol"], "tcp");
  EXPECT_EQ(j[0]["state"], "ESTABLISHED");
  EXPECT_EQ(j[0]["orig"]["src"], "10.0.0.1");
  EXPECT_EQ(j[0]["orig"]["dport"], 80);
  EXPECT_EQ(j[0]["reply"]["sport"], 80);
  EXPECT_EQ(j[0]["zone"], 3);
  EXPECT_EQ(j[0]["status"], json::array({"SEEN_REPLY", "ASSURED"}));
  // The same entry, as the oracle names it.
  EXPECT_NE(tool("-L -p tcp").out.find("zone=3"), std::string::npos);
}

TEST_F(ConntrackCliTest, GetCreateUpdate) {
  // fastlink creates, conntrack reads.
  auto r = cli("conntrack -I -p udp -s 10.1.0.1 -d 10.1.0.2 --sport 5000 --dport 6000 -t 77 --mark 9 -u SEEN_REPLY");
  ASSERT_EQ(r.status, 0) << r.err;
  auto got = tool("-G -p udp -s 10.1.0.1 -d 10.1.0.2 --sport 5000 --dport 6000");
  ASSERT_EQ(got.status, 0) << got.err;
  EXPECT_NE(got.out.find("mark=9"), std::string::npos) << got.out;
  EXPECT_NE(got.out.find("src=10.1.0.2 dst=10.1.0.1 sport=6000 dport=5000"), std::string::npos) << got.out;
  EXPECT_EQ(got.out.find("UNREPLIED"), std::string::npos) << got.out;
  r = cli("conntrack -I -p tcp -s 10.1.0.1 -d 10.1.0.2 --sport 1 --dport 2 -t 50 --state SYN_SENT");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(tool("-L -p tcp").out.find("SYN_SENT"), std::string::npos);
  // Twice: the kernel refuses, fastlink says so and fails.
  r = cli("conntrack -I -p tcp -s 10.1.0.1 -d 10.1.0.2 --sport 1 --dport 2 -t 50 --state SYN_SENT");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;

  // -G prints what conntrack -G prints.
  auto mine = cli("conntrack -G -p udp -s 10.1.0.1 -d 10.1.0.2 --sport 5000 --dport 6000");
  ASSERT_EQ(mine.status, 0) << mine.err;
  got = tool("-G -p udp -s 10.1.0.1 -d 10.1.0.2 --sport 5000 --dport 6000");
  EXPECT_EQ(lines(mine.out), lines(got.out));
  // A missing entry: exit 1 like conntrack, with the kernel's reason.
  mine = cli("conntrack -G -p udp -s 10.1.0.1 -d 10.1.0.2 --sport 5000 --dport 6001");
  EXPECT_EQ(mine.status, 1);
  EXPECT_EQ(mine.status, tool("-G -p udp -s 10.1.0.1 -d 10.1.0.2 --sport 5000 --dport 6001").status);
  EXPECT_NE(mine.err.find("doesn't exist"), std::string::npos) << mine.err;

  // -U with selectors changes the mark of what they select, only that.
  r = cli("conntrack -U -p udp -s 10.1.0.1 --mark 42");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("mark=42"), std::string::npos) << r.out;
  EXPECT_NE(tool("-L -p udp").out.find("mark=42"), std::string::npos);
  EXPECT_EQ(tool("-L -p tcp").out.find("mark=42"), std::string::npos);
}

TEST_F(ConntrackCliTest, NatEntriesAndSelectorsMatchConntrack) {
  // NATed entries made by fastlink; conntrack reads the reply tuples the kernel derived.
  for (const char* args : {"-p udp -s 10.2.0.3 -d 10.2.0.2 --sport 1000 --dport 53 -t 100 --src-nat 192.168.1.9:5000",
                           "-p udp -s 10.2.0.4 -d 10.2.0.2 --sport 1000 --dport 53 -t 100 --dst-nat 192.168.1.7",
                           "-p udp -s 10.2.0.5 -d 10.2.0.2 --sport 1000 --dport 53 -t 100 --src-nat 192.168.1.8 --dst-nat 192.168.1.7",
                           "-p udp -s fd00::1 -d fd00::2 --sport 1000 --dport 53 -t 100 --src-nat [fd00::9]:7000"}) {
    auto r = cli(std::string("conntrack -I ") + args);
    ASSERT_EQ(r.status, 0) << args << ": " << r.err;
  }
  // conntrack's own -I --src-nat (another port: the same reply tuple twice would clash) gives
  // a reply tuple of the same shape.
  insert("-p udp -s 10.2.0.6 -d 10.2.0.2 --sport 1000 --dport 53 -t 100 --src-nat 192.168.1.9:5001");
  std::string all = tool("-L -f ipv4").out + tool("-L -f ipv6").out;
  for (const char* reply : {"src=10.2.0.2 dst=192.168.1.9 sport=53 dport=5000", "src=10.2.0.2 dst=192.168.1.9 sport=53 dport=5001",
                            "src=192.168.1.7 dst=10.2.0.4 sport=53 dport=1000",
                            "src=192.168.1.7 dst=192.168.1.8 sport=53 dport=1000", "src=fd00::2 dst=fd00::9 sport=53 dport=7000"})
    EXPECT_NE(all.find(reply), std::string::npos) << reply << " in\n" << all;
  // A reply tuple that differs without NAT (no *_NAT_DONE status): no selector takes it.
  insert("-p udp -s 10.2.0.1 -d 10.2.0.2 --sport 1000 --dport 53 -r 10.2.0.2 -q 192.168.1.1 --reply-port-src 53 --reply-port-dst 2000 -t 100");
  populate();
  for (const char* selectors : {"-n", "-g", "-j", "-n -g", "-n 192.168.1.9", "-g 192.168.1.7", "-n 192.168.1.99", "-n -f ipv6", "-j -p udp -s 10.2.0.5"})
    expectSameListing(selectors);
  auto j = json::parse(cli("-j conntrack -L -n -g").out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["status"], json::array({"SRC_NAT", "DST_NAT"}));
  // Delete by NAT address: what conntrack -D -n ADDR would take, nothing else.
  std::size_t before = lines(tool("-L").out).size();
  auto r = cli("conntrack -D -n 192.168.1.9");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out).size(), 2u) << r.out;
  EXPECT_EQ(tool("-L -n 192.168.1.9").out, "");
  EXPECT_EQ(lines(tool("-L").out).size(), before - 2);
  // -I wants an address to NAT to; a selector-only -j makes no NAT.
  EXPECT_EQ(cli("conntrack -I -p udp -s 10.2.0.7 -d 10.2.0.2 --sport 1 --dport 2 -t 10 --src-nat").status, 2);
  EXPECT_EQ(cli("conntrack -I -p udp -s 10.2.0.7 -d 10.2.0.2 --sport 1 --dport 2 -t 10 --dst-nat fd00::1").status, 2);
  EXPECT_EQ(tool("-L -s 10.2.0.7").out, "");
}

TEST_F(ConntrackCliTest, DeleteBySelectorAndFlush) {
  populate();
  insert("-p udp -s 10.0.0.1 -d 10.0.0.7 --sport 9 --dport 9 -t 100");
  std::string before = tool("-L").out;
  auto r = cli("conntrack -D -s 10.0.0.1 -p udp");
  ASSERT_EQ(r.status, 0) << r.err;
  // It printed what it deleted (as conntrack -D does): the two UDP entries of 10.0.0.1.
  EXPECT_EQ(lines(r.out).size(), 2u) << r.out;
  std::string after = tool("-L").out;
  EXPECT_EQ(after.find("src=10.0.0.1 dst=10.0.0.2 sport=1234"), std::string::npos) << after;
  EXPECT_EQ(after.find("dst=10.0.0.7"), std::string::npos) << after;
  // Everything else stayed: the TCP entry of 10.0.0.1, and the other sources.
  EXPECT_NE(after.find("sport=1000 dport=80"), std::string::npos) << after;
  EXPECT_EQ(lines(after).size(), lines(before).size() - 2);
  // Nothing to delete: conntrack's exit status.
  EXPECT_EQ(cli("conntrack -D -s 10.9.9.9").status, tool("-D -s 10.9.9.9").status);

  r = cli("conntrack -F");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(tool("-L").out, "");
}

TEST_F(ConntrackCliTest, EventsShowNewUpdateDestroy) {
  std::string out = "/tmp/fastlink-ct-events-" + std::to_string(getpid());
  pid_t pid = startCli("conntrack -E -o timestamp", out);
  // Wait until it listens: its socket shows in the namespace's /proc/net/netlink (protocol 12).
  // (A fixed 2 s here could end before a loaded sanitizer build's CLI subscribed: NEW missed.)
  if (!waitUntil([&] { return listening(); })) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    std::remove(out.c_str());
    FAIL() << "conntrack -E did not join its groups in 20 s";
  }
  insert("-p udp -s 10.2.0.1 -d 10.2.0.2 --sport 1 --dport 2 -t 100 --mark 1");
  ASSERT_EQ(tool("-U -p udp -s 10.2.0.1 --mark 2").status, 0);
  ASSERT_EQ(tool("-D -p udp -s 10.2.0.1").status, 0);
  std::string text = textOnceItHolds(out, "[DESTROY]");
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  {
    std::ifstream f(out);  // now with the count it prints when stopped
    text.assign(std::istreambuf_iterator<char>(f), {});
  }
  std::remove(out.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "no overflow: exit 0 after SIGTERM";
  // The timeout as the event carried it: 100, or less where creating it was slow (TCG).
  EXPECT_TRUE(std::regex_search(
      text, std::regex(R"(    \[NEW\] udp      17 (100|9\d) src=10\.2\.0\.1 dst=10\.2\.0\.2 sport=1 dport=2 \[UNREPLIED\] src=10\.2\.0\.2)")))
      << text;
  EXPECT_NE(text.find(" [UPDATE] udp"), std::string::npos) << text;
  EXPECT_NE(text.find("mark=2"), std::string::npos) << text;
  EXPECT_NE(text.find("[DESTROY] udp"), std::string::npos) << text;
  EXPECT_NE(text.find("[USERSPACE] portid="), std::string::npos) << text;
  EXPECT_NE(text.find("3 flow events have been shown."), std::string::npos) << text;
  // -o timestamp: conntrack's "[1795669656.246714]\t" before each event, the wall clock now.
  std::istringstream in(text);
  int events = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("] udp") == std::string::npos) continue;
    ++events;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, std::regex(R"(^\[(\d+)\.\d{6}\]\t {0,4}\[(NEW|UPDATE|DESTROY)\] udp)"))) << line;
    EXPECT_LT(std::llabs(std::stoll(m[1].str()) - static_cast<long long>(time(nullptr))), 60) << line;
  }
  EXPECT_EQ(events, 3) << text;
}

// A listener that cannot keep up loses events: the kernel drops them (ENOBUFS). -E must say so
// and exit 1, never lose them silently. A tiny buffer (-b 4096: the kernel holds ~8 KiB, a few
// events) and a stopped listener make the loss certain; the kernel's own drop count
// (/proc/net/netlink) is the oracle: shown + dropped = the events the flush sent.
TEST_F(ConntrackCliTest, EventOverflowIsReportedNeverSilent) {
  constexpr int kEntries = 40;
  std::string out = "/tmp/fastlink-ct-overflow-" + std::to_string(getpid());
  pid_t pid = startCli("conntrack -E -b 4096", out);
  auto stop = [&] {
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    std::ifstream f(out);
    std::string text((std::istreambuf_iterator<char>(f)), {});
    std::remove(out.c_str());
    return std::pair(status, text);
  };
  if (!waitUntil([&] { return listening(); })) {
    stop();
    FAIL() << "conntrack -E did not join its groups in 20 s";
  }
  // Created while it listens: the kernel attaches event state to an entry only when a listener
  // exists (nf_conntrack_events=2), so entries made before would destroy silently.
  ASSERT_EQ(ns.exec("for i in $(seq " + std::to_string(kEntries) +
                    "); do conntrack -I -p udp -s 10.3.0.1 -d 10.3.0.2 --sport $i --dport 53 -t 100 >/dev/null 2>&1 || exit 1; done")
                .status,
            0);
  // Stopped, it reads nothing: the flush's DESTROY events meet a full buffer.
  kill(pid, SIGSTOP);
  ASSERT_EQ(tool("-F").status, 0);
  kill(pid, SIGCONT);
  std::string text;
  bool warned = waitUntil([&] {
    std::ifstream f(out);
    text.assign(std::istreambuf_iterator<char>(f), {});
    return text.find("events were lost") != std::string::npos;
  });
  // Everything the kernel kept was read (what is read is counted before SIGTERM is seen), and
  // no more events come: the drop count is final.
  std::optional<ListenerState> state;
  waitUntil([&] { return (state = listenerState()) && state->queued == 0; });
  long dropped = state ? state->drops : 0;
  auto [status, said] = stop();
  EXPECT_GT(dropped, 0) << "the kernel dropped nothing: the buffer was not small enough for this test";
  EXPECT_TRUE(warned) << said;
  EXPECT_NE(said.find("fastlink conntrack: WARNING: events were lost: the socket's receive buffer overflowed (ENOBUFS)"),
            std::string::npos)
      << said;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << "exit 1 after a loss; status " << status << "\n" << said;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(said, m, std::regex(R"((\d+) flow events have been shown\.)"))) << said;
  EXPECT_EQ(std::stol(m[1].str()) + dropped, 2 * kEntries) << "shown + dropped by the kernel = the NEW and DESTROY events\n" << said;
}

// Labels (CTA_LABELS) as conntrack 1.4.7 names, prints and selects them: names from
// /etc/xtables/connlabel.conf, `-o labels`, `-l` selecting entries with all the named labels
// (-L, -D, -E), `--label-add` on -I and -U, `--label-del` on -U; conntrack-tools is the oracle
// of every listing, and of the labels fastlink sets.
TEST_F(ConntrackCliTest, LabelsNamedPrintedAndSelectedLikeConntrack) {
  // Bit 3 twice (the first name wins), an insane name skipped, bit 127 named by the rule.
  ConnlabelFile conf("# test labels\n0 blue\n1 red\n3 green-team\n3 other\n5 bad;name\n9 spare\n127 kernel-rule\n");
  ASSERT_EQ(conf.error(), "");
  std::string enabled = enableConnlabels(ns.name());
  ASSERT_EQ(enabled, "") << "the nftables rule that makes the kernel keep labels";
  insert("-p udp -s 10.4.0.1 -d 10.4.0.2 --sport 1 --dport 2 -t 100 --label-add red");
  insert("-p udp -s 10.4.0.1 -d 10.4.0.3 --sport 1 --dport 2 -t 100 --label-add red,green-team");
  insert("-p udp -s 10.4.0.4 -d 10.4.0.2 --sport 1 --dport 2 -t 100");
  // fastlink creates one, conntrack must see its labels.
  auto made = cli("conntrack -I -p udp -s 10.4.0.5 -d 10.4.0.2 --sport 1 --dport 2 -t 100 --label-add blue,spare");
  ASSERT_EQ(made.status, 0) << made.err;
  auto theirs = tool("-L -o labels");
  ASSERT_NE(theirs.out.find("labels=red,green-team"), std::string::npos) << "the oracle prints no labels: " << theirs.out;
  ASSERT_NE(theirs.out.find("labels=blue,spare"), std::string::npos) << "labels of fastlink -I: " << theirs.out;
  expectSameListing("-o labels");
  expectSameListing("-o extended,labels");
  for (const char* sel : {"-l red", "-l red,green-team", "-l green-team -l red", "-l blue", "-l spare -o labels"}) {
    SCOPED_TRACE(sel);
    EXPECT_FALSE(cli(std::string("conntrack -L ") + sel).out.empty()) << "selects nothing: a useless check";
    expectSameListing(sel);
  }
  // Without a map asked for, no labels: as conntrack.
  EXPECT_EQ(cli("conntrack -L").out.find("labels="), std::string::npos);
  auto j = json::parse(cli("-j conntrack -L -s 10.4.0.1 -d 10.4.0.3 -o labels").out);
  ASSERT_EQ(j.size(), 1u) << j.dump();
  EXPECT_EQ(j[0]["labels"], json::parse(R"(["red","green-team"])")) << j.dump();

  // -U: add to and take from the entries a selector names; conntrack reads the result.
  ASSERT_EQ(cli("conntrack -U -s 10.4.0.4 --label-add blue").status, 0);
  EXPECT_NE(tool("-L -s 10.4.0.4 -o labels").out.find("labels=blue"), std::string::npos) << tool("-L -s 10.4.0.4 -o labels").out;
  ASSERT_EQ(cli("conntrack -U -s 10.4.0.1 -d 10.4.0.3 --label-del red").status, 0);
  EXPECT_NE(tool("-L -s 10.4.0.1 -d 10.4.0.3 -o labels").out.find("labels=green-team\n"), std::string::npos)
      << tool("-L -s 10.4.0.1 -d 10.4.0.3 -o labels").out;
  ASSERT_EQ(cli("conntrack -U -s 10.4.0.5 --label-del").status, 0);
  EXPECT_EQ(tool("-L -s 10.4.0.5 -o labels").out.find("labels="), std::string::npos) << tool("-L -s 10.4.0.5 -o labels").out;
  expectSameListing("-o labels");

  // -D -l: only entries with the label go.
  auto deleted = cli("conntrack -D -l red");
  ASSERT_EQ(deleted.status, 0) << deleted.err;
  EXPECT_NE(deleted.err.find("1 flow entries have been deleted."), std::string::npos) << deleted.err;
  EXPECT_EQ(tool("-L -s 10.4.0.1 -d 10.4.0.2").out, "") << "the entry labelled red is still there";
  EXPECT_EQ(lines(tool("-L").out).size(), 3u) << tool("-L").out;

  // An unknown label changes nothing and says which.
  auto bad = cli("conntrack -L -l purple");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown label 'purple'"), std::string::npos) << bad.err;
}

// Timestamps (net.netfilter.nf_conntrack_timestamp=1, CTA_TIMESTAMP): conntrack prints
// `delta-time=` on every listing, `[start=...]` and (on DESTROY) `[stop=...]` with -o ktimestamp.
TEST_F(ConntrackCliTest, TimestampsPrintedLikeConntrack) {
  ASSERT_EQ(ns.exec("sysctl -qw net.netfilter.nf_conntrack_timestamp=1").status, 0);
  populate();
  // delta-time is whole seconds since the entry began: the two reads may straddle a second.
  auto blankDelta = [](const std::string& text) { return std::regex_replace(text, std::regex(R"(delta-time=\d+)"), "delta-time=N"); };
  for (const char* options : {"", "-o ktimestamp", "-o extended,ktimestamp,id", "-s 10.0.0.1 -o ktimestamp"}) {
    SCOPED_TRACE(options);
    auto mine = cli(std::string("conntrack -L ") + options);
    auto theirs = tool(std::string("-L ") + options);
    ASSERT_EQ(mine.status, 0) << mine.err;
    ASSERT_NE(theirs.out.find("delta-time="), std::string::npos) << "the oracle prints no timestamps: " << theirs.out;
    EXPECT_EQ(lines(blankDelta(mine.out)), lines(blankDelta(theirs.out)));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(mine.out, m, std::regex(R"(delta-time=(\d+))"))) << mine.out;
    EXPECT_LE(std::stoi(m[1].str()), 60) << mine.out;
  }
  // DESTROY carries the stop: -E -o ktimestamp prints both, as conntrack -E does.
  std::string out = "/tmp/fastlink-ct-tstamp-" + std::to_string(getpid());
  pid_t pid = startCli("conntrack -E -e DESTROY -o ktimestamp", out);
  if (!waitUntil([&] { return listening(); })) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    std::remove(out.c_str());
    FAIL() << "conntrack -E did not join its groups in 20 s";
  }
  // Made while it listens: an entry made before any listener has no event state, no DESTROY.
  insert("-p udp -s 10.5.0.1 -d 10.5.0.2 --sport 1 --dport 2 -t 100");
  ASSERT_EQ(tool("-D -s 10.5.0.1").status, 0);
  std::string text = textOnceItHolds(out, "[DESTROY]");
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::remove(out.c_str());
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\[DESTROY\] udp      17 (\d+ )?src=10\.5\.0\.1 .* delta-time=\d+ \[start=\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\] \[stop=\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\] \[USERSPACE\])")))
      << text;
}

TEST_F(ConntrackCliTest, BadInputChangesNothing) {
  populate();
  std::string before = tool("-L").out;
  for (const char* bad : {"conntrack", "conntrack -L -D", "conntrack -L --sport 5", "conntrack -L -s 10.0.0.300",
                          "conntrack -I -p udp -s 10.0.0.1 -d 10.0.0.2 --sport 1 --dport 2",
                          "conntrack -D -s 10.0.0.1 -d fd00::1", "conntrack -L -u BOGUS", "conntrack -L --frobnicate"}) {
    auto r = cli(bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("Error:"), std::string::npos) << bad << ": " << r.err;
  }
  EXPECT_EQ(lines(tool("-L").out), lines(before));
}

}  // namespace
}  // namespace fastlink::test
