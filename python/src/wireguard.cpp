// WireGuard (`wg`): WgDevice and WgPeer with keys as base64 str, and nl.wireguard (the kernel
// module over generic netlink, or a userspace implementation over its UAPI socket, chosen per
// device as wg does). Secrets never reach a repr or an error text: the key parser names what is
// wrong, never the text, and the private and preshared keys print as '<hidden>'.
#include "binding.hpp"
#include "fastlink/wireguard.hpp"

namespace fastlink::python {

namespace {

struct PyWireGuard {
  PyNetlink* owner;
  fastlink::WireGuardApi& api() { return owner->get().wireguard(); }
};

std::optional<std::string> keyText(const std::optional<fastlink::WgKey>& key) {
  return key ? std::optional(key->toBase64()) : std::nullopt;
}
std::optional<fastlink::WgKey> keyParsed(const std::optional<std::string>& text) {
  return text ? std::optional(fastlink::WgKey::fromBase64(*text)) : std::nullopt;
}

void bindWireGuardTypes(nb::module_& m) {
  using fastlink::WgPeer;
  Fields<WgPeer> peer(m, "WgPeer", "A WireGuard peer (`wg set DEV peer KEY ...`); keys are base64 str.");
  peer.prop<std::string>(
          "public_key", [](const WgPeer& p) { return p.publicKey.toBase64(); },
          [](WgPeer& p, std::string v) { p.publicKey = fastlink::WgKey::fromBase64(v); }, "identifies the peer (required)")
      .prop<std::optional<std::string>>(
          "preshared_key", [](const WgPeer& p) { return keyText(p.presharedKey); },
          [](WgPeer& p, std::optional<std::string> v) { p.presharedKey = keyParsed(v); },
          "an all-zero key removes it; never printed")
      .hide("preshared_key")
      .prop<std::optional<std::string>>(
          "endpoint", [](const WgPeer& p) { return p.endpoint ? std::optional(p.endpoint->toString()) : std::nullopt; },
          [](WgPeer& p, std::optional<std::string> v) {
            p.endpoint = v ? std::optional(fastlink::WgEndpoint::parse(*v)) : std::nullopt;
          },
          "'192.0.2.1:51820', '[2001:db8::1]:51820'")
      .rw("persistent_keepalive", &WgPeer::persistentKeepalive, "seconds; 0 turns it off")
      .prop<std::vector<std::string>>(
          "allowed_ips",
          [](const WgPeer& p) {
            std::vector<std::string> out;
            for (const auto& a : p.allowedIps) out.push_back(a.toString());
            return out;
          },
          [](WgPeer& p, std::vector<std::string> v) {
            p.allowedIps.clear();
            for (const auto& text : v) p.allowedIps.push_back(fastlink::WgAllowedIp::parse(text));
          },
          "['10.0.0.2/32', ...]")
      .rw("remove", &WgPeer::remove, "remove this peer")
      .rw("update_only", &WgPeer::updateOnly, "change the peer only if it exists")
      .rw("replace_allowed_ips", &WgPeer::replaceAllowedIps, "allowed_ips replace the peer's list")
      .prop<std::optional<double>>(
          "last_handshake",
          [](const WgPeer& p) {
            if (!p.lastHandshake || p.lastHandshake->never()) return std::optional<double>();
            return std::optional(static_cast<double>(p.lastHandshake->seconds) + p.lastHandshake->nanoseconds * 1e-9);
          },
          [](WgPeer&, std::optional<double>) { throw nb::attribute_error("last_handshake is reported, not set"); },
          "Unix time (reported); None: never")
      .ro("rx_bytes", &WgPeer::rxBytes)
      .ro("tx_bytes", &WgPeer::txBytes)
      .done();

  using fastlink::WgDevice;
  Fields<WgDevice> device(m, "WgDevice", "A WireGuard device (`wg show DEV` / `wg set DEV ...`).");
  device.rw("name", &WgDevice::name)
      .prop<std::optional<std::string>>(
          "private_key", [](const WgDevice& d) { return keyText(d.privateKey); },
          [](WgDevice& d, std::optional<std::string> v) { d.privateKey = keyParsed(v); },
          "base64; an all-zero key removes it; never printed")
      .hide("private_key")
      .rw("listen_port", &WgDevice::listenPort, "0 picks a random port")
      .rw("fwmark", &WgDevice::fwmark, "0 removes the mark")
      .rw("replace_peers", &WgDevice::replacePeers, "peers replace the device's list")
      .rw("peers", &WgDevice::peers)
      .ro("index", &WgDevice::index, "ifindex (reported, kernel devices)")
      .prop<std::optional<std::string>>(
          "public_key", [](const WgDevice& d) { return keyText(d.publicKey); },
          [](WgDevice&, std::optional<std::string>) { throw nb::attribute_error("public_key is derived from private_key"); },
          "derived from the private key (reported)")
      .done();
}

}  // namespace

void bindWireGuard(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  bindWireGuardTypes(m);
  m.def("generate_private_key", [] { return fastlink::WgKey::generatePrivate().toBase64(); }, "`wg genkey`");
  m.def("generate_preshared_key", [] { return fastlink::WgKey::generatePreshared().toBase64(); }, "`wg genpsk`");
  m.def("public_key", [](const std::string& privateKey) { return fastlink::WgKey::fromBase64(privateKey).publicKey().toBase64(); },
        "private_key"_a, "`wg pubkey`");

  nb::class_<PyWireGuard>(m, "WireGuard", "WireGuard devices (`wg`): Netlink.wireguard.")
      .def("list", [](PyWireGuard& s) { return unlocked([&] { return s.api().list(); }); }, "wg show interfaces")
      .def("get", [](PyWireGuard& s, const std::string& name) { return unlocked([&] { return s.api().get(name); }); },
           "name"_a, "wg show NAME (fastlink.Error ENODEV if it is not a WireGuard device)")
      .def("set", [](PyWireGuard& s, const fastlink::WgDevice& change) { unlocked([&] { s.api().set(change); }); },
           "device"_a, "wg set NAME ... (only the fields set are sent)")
      .def("backend", [](PyWireGuard& s, const std::string& name) {
        fastlink::WgBackendKind kind = unlocked([&] { return s.api().backendOf(name); });
        return kind == fastlink::WgBackendKind::Kernel ? "kernel" : "userspace";
      }, "name"_a, "'kernel' (the module) or 'userspace' (a UAPI socket, e.g. wireguard-go)");
  netlink.def_prop_ro("wireguard", [](PyNetlink& n) { n.get(); return PyWireGuard{&n}; }, nb::keep_alive<0, 1>());
}

}  // namespace fastlink::python
