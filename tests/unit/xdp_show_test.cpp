// The XDP parts of `fastlink link show` (cli/xdp/xdp_show.cpp) against text and JSON written out
// from what iproute2 6.1 prints (ip/iplink_xdp.c, lib/bpf_legacy.c). The single-mode cases were
// checked against `ip link show` on kernel 6.18 (tests/cli/link_xdp_cli_test.cpp does that on
// every run); multi mode (generic + offload) needs a NIC with offload, so its layout is written
// from iproute2's code: `xdpmulti` on the first line, one `prog/xdp<mode>` line per mode, no
// top-level "prog" in JSON.
#include <gtest/gtest.h>

#include "cli/xdp/xdp_show.hpp"

namespace fastlink::cli {
namespace {

BpfProgramInfo program(uint32_t id, std::string name, bool jited = true) {
  return {.id = id, .name = std::move(name), .tag = "0afa56fcd9325709", .jited = jited,
          .loadTime = 27203706555727, .createdByUid = 0, .btfId = 655};
}

std::optional<BpfProgramInfo> known(uint32_t id) {
  if (id == 548) return program(548, "xdp_count");
  if (id == 9) return program(9, "xdp_drop", false);
  return std::nullopt;  // gone, or no CAP_SYS_ADMIN
}

const XdpStatus kGeneric{.genericProgId = 548, .nativeProgId = 0, .offloadProgId = 0, .progId = 548};
const XdpStatus kNative{.genericProgId = 0, .nativeProgId = 548, .offloadProgId = 0, .progId = 548};
const XdpStatus kOffload{.genericProgId = 0, .nativeProgId = 0, .offloadProgId = 548, .progId = 548};
const XdpStatus kMulti{.genericProgId = 548, .nativeProgId = 0, .offloadProgId = 9, .progId = 0};

TEST(XdpShow, ModeWordOfTheFirstLine) {
  EXPECT_EQ(xdpModeWord(kGeneric), "xdpgeneric");
  EXPECT_EQ(xdpModeWord(kNative), "xdp");
  EXPECT_EQ(xdpModeWord(kOffload), "xdpoffload");
  EXPECT_EQ(xdpModeWord(kMulti), "xdpmulti");
  EXPECT_EQ(xdpModeWord(XdpStatus{}), "");
}

TEST(XdpShow, ProgramLineAsIpPrintsIt) {
  EXPECT_EQ(xdpProgramLines(kGeneric, false, known), "    prog/xdp id 548 name xdp_count tag 0afa56fcd9325709 jited \n");
  EXPECT_EQ(xdpProgramLines(kNative, true, known),
            "    prog/xdp id 548 name xdp_count tag 0afa56fcd9325709 jited load_time 27203706555727 created_by_uid 0 btf_id 655 \n");
  EXPECT_EQ(xdpProgramLines(XdpStatus{}, true, known), "");
}

TEST(XdpShow, UnreadableProgramShowsItsIdOnly) {
  XdpStatus s{.genericProgId = 77, .nativeProgId = 0, .offloadProgId = 0, .progId = 77};
  EXPECT_EQ(xdpProgramLines(s, true, known), "    prog/xdp id 77 \n");
  EXPECT_EQ(xdpJson(s, true, known).dump(), R"({"mode":2,"prog":{"id":77},"attached":[{"mode":2,"prog":{"id":77}}]})");
}

TEST(XdpShow, DetailsWithoutLoadTimeOrBtf) {
  XdpStatus s{.genericProgId = 9, .nativeProgId = 0, .offloadProgId = 0, .progId = 9};
  auto bare = [](uint32_t id) -> std::optional<BpfProgramInfo> {
    BpfProgramInfo p = program(id, "old", false);
    p.loadTime = 0, p.createdByUid = 1000, p.btfId = 0;
    return p;
  };
  EXPECT_EQ(xdpProgramLines(s, true, bare), "    prog/xdp id 9 name old tag 0afa56fcd9325709 \n");
  EXPECT_EQ(xdpJson(s, true, bare).dump(),
            R"({"mode":2,"prog":{"id":9,"name":"old","tag":"0afa56fcd9325709","jited":0},"attached":[{"mode":2,"prog":{"id":9,"name":"old","tag":"0afa56fcd9325709","jited":0}}]})");
}

TEST(XdpShow, MultiModePrintsOneLinePerMode) {
  EXPECT_EQ(xdpProgramLines(kMulti, false, known),
            "    prog/xdpgeneric id 548 name xdp_count tag 0afa56fcd9325709 jited \n"
            "    prog/xdpoffload id 9 name xdp_drop tag 0afa56fcd9325709 \n");
  EXPECT_EQ(xdpJson(kMulti, false, known).dump(),
            R"({"mode":4,"attached":[{"mode":2,"prog":{"id":548,"name":"xdp_count","tag":"0afa56fcd9325709","jited":1}},)"
            R"({"mode":3,"prog":{"id":9,"name":"xdp_drop","tag":"0afa56fcd9325709","jited":0}}]})");
}

TEST(XdpShow, JsonOfEachSingleMode) {
  const char* prog = R"({"id":548,"name":"xdp_count","tag":"0afa56fcd9325709","jited":1})";
  auto expected = [&](int mode) {
    return "{\"mode\":" + std::to_string(mode) + ",\"prog\":" + prog + ",\"attached\":[{\"mode\":" + std::to_string(mode) + ",\"prog\":" + prog + "}]}";
  };
  EXPECT_EQ(xdpJson(kGeneric, false, known).dump(), expected(2));
  EXPECT_EQ(xdpJson(kNative, false, known).dump(), expected(1));
  EXPECT_EQ(xdpJson(kOffload, false, known).dump(), expected(3));
  EXPECT_TRUE(xdpJson(XdpStatus{}, false, known).is_null());
}

TEST(XdpShow, EachProgramIsLookedUpOnce) {
  int calls = 0;
  auto counting = [&](uint32_t id) { ++calls; return known(id); };
  xdpJson(kGeneric, true, counting);
  EXPECT_EQ(calls, 1) << "the top-level prog and attached[0] are the same program";
}

}  // namespace
}  // namespace fastlink::cli
