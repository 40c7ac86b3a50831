// Declarative apply (docs/python.md, "Declarative apply"): fastlink.apply(document, check=...,
// mode=..., netns=...) on the library's State / makePlan / applyPlan (fastlink/state.hpp), the
// plan and the batch result returned as Python objects. The document is a dict (nmstate's keys)
// or YAML/JSON text; it is parsed and planned (every request encoded once) before anything is
// sent, so a bad document raises fastlink.Error and changes nothing.
#include "binding.hpp"
#include "fastlink/state.hpp"

namespace fastlink::python {

namespace {

const char* stepActionName(fastlink::PlanStep::Action action) {
  switch (action) {
    case fastlink::PlanStep::Action::Create: return "create";
    case fastlink::PlanStep::Action::Change: return "change";
    case fastlink::PlanStep::Action::Delete: return "delete";
  }
  return "unknown";
}

fastlink::ApplyMode modeParsed(const std::string& word) {
  if (word == "merged") return fastlink::ApplyMode::Merged;
  if (word == "replaced") return fastlink::ApplyMode::Replaced;
  if (word == "overridden") return fastlink::ApplyMode::Overridden;
  throw nb::value_error(("apply(): mode must be 'merged', 'replaced' or 'overridden', not '" + word + "'").c_str());
}

/// The document's text: a dict (or list) through json.dumps (imported only here), or a str.
std::string documentText(nb::handle document) {
  if (PyUnicode_Check(document.ptr())) return nb::cast<std::string>(document);
  if (PyDict_Check(document.ptr())) return nb::cast<std::string>(nb::module_::import_("json").attr("dumps")(document));
  throw nb::type_error("apply(): the document is a dict or YAML/JSON text (str)");
}

/// What fastlink.apply returns.
struct ApplyResult {
  fastlink::Plan plan;
  std::optional<fastlink::BatchResult> result;  ///< None with check=True
  std::optional<bool> verified;                 ///< a new plan was empty after sending
};

ApplyResult applyDocument(nb::handle document, bool check, std::optional<std::string> mode,
                          std::optional<nb::object> netns, PyNetlink* netlink) {
  std::string text = documentText(document);
  if (netns && netlink) throw nb::value_error("apply(): give netns or netlink, not both");
  std::optional<fastlink::ApplyMode> wantedMode;
  if (mode) wantedMode = modeParsed(*mode);
  fastlink::NetlinkOptions options;
  if (netns) options.netns = netnsOf(*netns);
  fastlink::Netlink* shared = netlink ? &netlink->get() : nullptr;
  std::string origin = PyUnicode_Check(document.ptr()) ? "document" : "dict";
  return unlocked([&] {
    fastlink::State want = fastlink::State::parse(text, origin);
    if (wantedMode) want.mode = *wantedMode;
    std::optional<fastlink::Netlink> own;
    fastlink::Netlink& nl = shared ? *shared : own.emplace(options);
    ApplyResult out{fastlink::makePlan(nl, want, !check), std::nullopt, std::nullopt};
    if (check || out.plan.empty()) return out;
    out.result = fastlink::applyPlan(nl, out.plan);
    out.verified = out.result->ok() && fastlink::makePlan(nl, want).empty();
    return out;
  });
}

}  // namespace

void bindApply(nb::module_& m) {
  nb::class_<fastlink::PlanStep>(m, "PlanStep", "One change of a Plan.")
      .def_prop_ro("action", [](const fastlink::PlanStep& s) { return stepActionName(s.action); },
                   "'create', 'change' or 'delete'")
      .def_ro("object", &fastlink::PlanStep::object, "'interface br0', 'address 10.0.0.1/24 dev br0', ...")
      .def_ro("detail", &fastlink::PlanStep::detail, "what differs: 'mtu 1500 -> 9000'")
      .def("__repr__", [](const fastlink::PlanStep& s) {
        return std::string("PlanStep(") + stepActionName(s.action) + " " + s.object + (s.detail.empty() ? "" : ": " + s.detail) + ")";
      });

  nb::class_<fastlink::Plan>(m, "Plan", "The changes that take the host to the document, in the order sent.")
      .def_ro("steps", &fastlink::Plan::steps)
      .def_prop_ro("empty", &fastlink::Plan::empty, "nothing to change")
      .def("__len__", &fastlink::Plan::size)
      .def("__str__", &fastlink::Plan::toText, "one line per step, as `fastlink apply --check` prints")
      .def("to_json", [](const fastlink::Plan& p) { return p.toJson(); })
      .def_prop_ro("undo", [](const fastlink::Plan& p) { return p.undo ? std::optional(p.undo->toYaml()) : std::nullopt; },
                   "the YAML document that puts back what the plan changes (apply it to roll back); None "
                   "for a check or an empty plan");

  nb::class_<ApplyResult>(m, "ApplyResult", "What fastlink.apply did: the plan, and the batch result unless check=True.")
      .def_ro("plan", &ApplyResult::plan)
      .def_prop_ro("result", [](const ApplyResult& r) {
        return r.result ? std::optional(PyBatchResult{BatchOutcome::of(*r.result), {}}) : std::nullopt;
      }, "the BatchResult (per-step results), None when nothing was sent")
      .def_ro("verified", &ApplyResult::verified, "True when a new plan after sending is empty; None when nothing was sent")
      .def_prop_ro("changed", [](const ApplyResult& r) { return r.result && r.result->applied > 0; })
      .def("raise_for_error", [](const ApplyResult& r) {
        if (!r.result) return;
        if (const fastlink::Error* e = r.result->firstError()) throw *e;
        if (r.verified == false)
          throw fastlink::Error(std::make_error_code(std::errc::protocol_error), "apply: verify",
                                "the host differs from the document after applying it");
      }, "Raises the first failed step (fastlink.Error), or an error when the verification found differences.")
      .def("__repr__", [](const ApplyResult& r) {
        return "ApplyResult(steps=" + std::to_string(r.plan.size()) + ", sent=" + (r.result ? "True" : "False") +
               ", verified=" + (r.verified ? (*r.verified ? "True" : "False") : "None") + ")";
      });

  m.def("apply", &applyDocument, "document"_a, "check"_a = false, "mode"_a = nb::none(), "netns"_a = nb::none(),
        "netlink"_a.none() = nb::none(),
        "Makes the host look like the document (nmstate's keys: interfaces, routes, route-rules; a dict or "
        "YAML/JSON text), like `fastlink apply`. check=True plans only (nothing sent, `fastlink apply --check`). "
        "mode overrides the document's: 'merged', 'replaced', 'overridden'. netns: a name, path or fd; or pass "
        "an open Netlink as netlink. The document is parsed and every request encoded before anything is "
        "sent: a bad document raises fastlink.Error and changes nothing. A failed step does not raise: see "
        "ApplyResult.raise_for_error. No journal is written (the CLI's rollback/--confirm): Plan.undo is the "
        "document that undoes it.");
}

}  // namespace fastlink::python
