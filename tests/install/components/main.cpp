// Calls into both components: WireGuard keys (libsodium) and XDP program loading (libbpf).
#include <fastlink/fastlink.hpp>
#include <fastlink/wireguard.hpp>
#include <fastlink/xdp.hpp>

#include <cstdio>
#include <string>

int main() {
  // RFC 7748 6.1: Alice's private key and its X25519 public key.
  auto key = fastlink::WgKey::fromBase64("dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=");
  if (key.publicKey().toBase64() != "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=") return 1;
  try {
    fastlink::XdpProgram::load("/nonexistent/prog.o");
    return 1;
  } catch (const fastlink::Error& e) {
    if (e.code() != std::errc::no_such_file_or_directory) return 1;
  }
  std::printf("components: wireguard key and xdp load ran\n");
  return 0;
}
