// The potential router list of an ISATAP tunnel (`ip tunnel prl`): PotentialRouter and
// nl.potential_routers (the sit driver's PRL ioctls; fastlink/tunnel_prl.hpp).
#include "binding.hpp"
#include "fastlink/tunnel_prl.hpp"

namespace fastlink::python {

namespace {

using PyPotentialRouters = PyApi<fastlink::PrlApi, &fastlink::Netlink::potentialRouters>;

}  // namespace

void bindPotentialRouters(nb::module_& m, nb::class_<PyNetlink>& netlink) {
  using fastlink::PotentialRouter;
  Fields<PotentialRouter> router(m, "PotentialRouter", "One router of an ISATAP tunnel's potential router list.");
  router
      .prop<std::string>(
          "address", [](const PotentialRouter& r) { return r.address.toString(); },
          [](PotentialRouter& r, std::string v) { r.address = fastlink::IpAddress::parse(v); }, "IPv4, as str")
      .rw("is_default", &PotentialRouter::isDefault, "a default router (prl-default), else prl-nodefault")
      .done();
  nb::class_<PyPotentialRouters>(m, "PotentialRouters",
                                 "An ISATAP (sit) tunnel's potential router list: Netlink.potential_routers.")
      .def("add", [](PyPotentialRouters& s, const Ifref& dev, const std::string& router, bool isDefault) {
        fastlink::IpAddress address = fastlink::IpAddress::parse(router);
        unlocked([&] { s.api().add(dev, address, isDefault); });
      }, "dev"_a, "router"_a, "is_default"_a = false,
           "ip tunnel prl prl-default|prl-nodefault ROUTER dev DEV (EEXIST when listed already)")
      .def("change", [](PyPotentialRouters& s, const Ifref& dev, const std::string& router, bool isDefault) {
        fastlink::IpAddress address = fastlink::IpAddress::parse(router);
        unlocked([&] { s.api().change(dev, address, isDefault); });
      }, "dev"_a, "router"_a, "is_default"_a, "changes a listed router's default flag (ENXIO when not listed)")
      .def("remove", [](PyPotentialRouters& s, const Ifref& dev, const std::string& router) {
        fastlink::IpAddress address = fastlink::IpAddress::parse(router);
        unlocked([&] { s.api().remove(dev, address); });
      }, "dev"_a, "router"_a, "ip tunnel prl prl-delete ROUTER dev DEV ('0.0.0.0': every router)")
      .def("list", [](PyPotentialRouters& s, const Ifref& dev) { return unlocked([&] { return s.api().list(dev); }); },
           "dev"_a, "the list in the kernel's order (newest first)");
  addApi<PyPotentialRouters>(netlink, "potential_routers");
}

}  // namespace fastlink::python
