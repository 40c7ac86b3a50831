// Test program for the XDP tests: counts every packet into slot 0 of the array map `packets`
// and passes it on. Built with clang -target bpf (tests/bpf/CMakeLists.txt).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} packets SEC(".maps");

SEC("xdp")
int xdp_count(struct xdp_md* ctx) {
  (void)ctx;
  __u32 key = 0;
  __u64* count = bpf_map_lookup_elem(&packets, &key);
  if (count) __sync_fetch_and_add(count, 1);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
