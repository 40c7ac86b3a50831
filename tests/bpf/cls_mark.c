// Test program for the tc bpf classifier tests: marks every packet 0x2a and lets it pass
// (direct-action), so a filter that runs it shows in the packet's mark.
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

SEC("classifier")
int cls_mark(struct __sk_buff* skb) {
  skb->mark = 0x2a;
  return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
