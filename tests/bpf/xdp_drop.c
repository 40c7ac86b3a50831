// Test program for the XDP tests: drops every packet (to see that attaching changes the data
// path and detaching restores it) and counts them into `dropped`.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} dropped SEC(".maps");

SEC("xdp")
int xdp_drop(struct xdp_md* ctx) {
  (void)ctx;
  __u32 key = 0;
  __u64* count = bpf_map_lookup_elem(&dropped, &key);
  if (count) __sync_fetch_and_add(count, 1);
  return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
