#!/usr/bin/python
# fastlink.network.state: makes a host's network what a state document says, with `fastlink apply`
# (docs/cli/apply.md). The module is a thin layer: it hands the document to fastlink on standard
# input and reads fastlink's -j plan back; planning, ordering, verification, the journal and the
# rollback are fastlink's. Check mode is `fastlink apply --check` (nothing is ever sent).

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: state
short_description: Apply a declarative network state document with fastlink
description:
  - Runs C(fastlink apply) with the document given inline (I(state)) or in a file (I(src)),
    which makes one dump per object class, a plan of the differences, pipelined batches and a verification.
  - The document has nmstate's keys (C(interfaces), C(routes), C(route-rules)); see fastlink's
    docs/cli/apply.md.
  - C(changed) is true when the plan had steps; C(diff) holds the objects touched, before and after.
  - Check mode runs C(fastlink apply --check) and sends nothing.
  - With I(confirm), the change is rolled back after that many seconds unless a later task
    commits it (I(action=commit)), after the play's own connectivity check.
options:
  state:
    description: The state document (a mapping, or YAML/JSON text). Mutually exclusive with I(src).
    type: raw
  src:
    description: A state document file on the managed host.
    type: path
  mode:
    description:
      - merged (only what the document names), replaced (a named interface is exactly as written),
        overridden (what fastlink owns and the document does not name is removed).
      - Sets the document's C(fastlink-apply.mode); needs I(state) as a mapping or JSON text (or PyYAML on the host).
    type: str
    choices: [merged, replaced, overridden]
  netns:
    description: The network namespace (C(fastlink -n NETNS)); checkpoints are per namespace.
    type: str
  confirm:
    description: Seconds after which fastlink rolls the change back unless it is committed (C(apply --confirm)).
    type: int
  action:
    description: apply the document; commit the pending I(confirm) apply; rollback the last apply.
    type: str
    choices: [apply, commit, rollback]
    default: apply
  fastlink:
    description: The fastlink binary (default, C(fastlink) found on PATH).
    type: path
"""

EXAMPLES = r"""
- name: Bridge with a port, committed after a ping
  fastlink.network.state:
    netns: "{{ inventory_hostname }}"
    confirm: 60
    state:
      interfaces:
        - name: br0
          type: linux-bridge
          ipv4: {enabled: true, address: [{ip: 192.0.2.1, prefix-length: 24}]}
- ansible.builtin.command: ping -c1 -W1 192.0.2.254
- fastlink.network.state:
    netns: "{{ inventory_hostname }}"
    action: commit
"""

RETURN = r"""
steps:
  description: The plan fastlink sent (fastlink -j apply), each step with its result.
  type: list
  returned: always
  sample: [{"action": "change", "object": "interface v0", "detail": "mtu 1500 -> 9000", "result": "applied"}]
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule

# fastlink apply's exit statuses (docs/cli/apply.md): 2 is "the host differs" for --check and
# "bad input, nothing sent" otherwise; --check tells them apart by the plan it prints.
EXIT_OK = 0
EXIT_DIFFERS = 2


def document_text(module):
    """The document as fastlink reads it (JSON is YAML), with the mode set when one is given."""
    params = module.params
    if params["src"] is not None:
        try:
            with open(params["src"]) as f:
                text = f.read()
        except (IOError, OSError) as e:
            module.fail_json(msg="src: %s" % e)
        document = text
    else:
        document = params["state"]
    if params["mode"] is None:
        return document if isinstance(document, str) else json.dumps(document)
    if isinstance(document, str):
        document = parse_text(module, document)
    if not isinstance(document, dict):
        module.fail_json(msg="state: expected a mapping (a state document)")
    document = dict(document)
    options = dict(document.get("fastlink-apply") or {})
    options["mode"] = params["mode"]
    document["fastlink-apply"] = options
    return json.dumps(document)


def parse_text(module, text):
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml  # only for mode with YAML text: a mapping or JSON needs nothing
    except ImportError:
        module.fail_json(msg="mode with a YAML document needs PyYAML on the host; give state as a mapping")
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        module.fail_json(msg="state: %s" % e)


def fastlink_command(module, *words):
    binary = module.params["fastlink"] or module.get_bin_path("fastlink", required=True)
    command = [binary]
    if module.params["netns"]:
        command += ["-n", module.params["netns"]]
    return command + list(words)


def parse_plan(text):
    """fastlink -j apply's steps, or None when stdout holds none (an error was printed instead)."""
    try:
        steps = json.loads(text)
    except ValueError:
        return None
    return steps if isinstance(steps, list) else None


def split_detail(detail):
    """'mtu 1500 -> 9000, state down -> up' -> (['mtu 1500', 'state down'], ['mtu 9000', 'state up'])."""
    before, after = [], []
    for part in [p for p in detail.split(", ") if p]:
        if " -> " in part:
            old, new = part.split(" -> ", 1)
            field, _, old_value = old.partition(" ")
            before.append("%s %s" % (field, old_value) if old_value else field)
            after.append("%s %s" % (field, new))
        else:
            after.append(part)
    return before, after


def diff_of(steps):
    """Ansible's diff: the objects the plan touches, one line each, as they are and as they will be.
    An object created is only in after, one deleted only in before (a device deleted and created
    again is in both)."""
    objects = {}
    for step in steps:
        entry = objects.setdefault(step.get("object", ""), {"created": False, "deleted": False, "before": [], "after": []})
        detail, action = step.get("detail", ""), step.get("action")
        if action == "create":
            entry["created"] = True
            entry["after"] += [p for p in detail.split(", ") if p]
        elif action == "delete":
            entry["deleted"] = True
            entry["before"] += [p for p in detail.split(", ") if p]
        else:
            old, new = split_detail(detail)
            entry["before"] += old
            entry["after"] += new
    before, after = [], []
    for name, entry in objects.items():
        line = lambda fields: "%s: %s" % (name, ", ".join(fields)) if fields else name
        if entry["deleted"] or not entry["created"]:
            before.append(line(entry["before"]))
        if entry["created"] or not entry["deleted"]:
            after.append(line(entry["after"]))
    return {"before": "\n".join(before) + "\n" if before else "", "after": "\n".join(after) + "\n" if after else ""}


def fail(module, rc, out, err, steps=None):
    module.fail_json(msg=err.strip() or out.strip() or "fastlink exited %d" % rc, rc=rc, stdout=out, stderr=err, steps=steps or [])


def run_apply(module):
    text = document_text(module)
    if module.check_mode:
        rc, out, err = module.run_command(fastlink_command(module, "-j", "apply", "--check", "-"), data=text, binary_data=True)
        steps = parse_plan(out)
        if steps is None or rc not in (EXIT_OK, EXIT_DIFFERS):
            fail(module, rc, out, err)
        module.exit_json(changed=bool(steps), steps=steps, diff=diff_of(steps))
    words = ["-j", "apply"]
    if module.params["confirm"] is not None:
        words += ["--confirm", str(module.params["confirm"])]
    rc, out, err = module.run_command(fastlink_command(module, *(words + ["-"])), data=text, binary_data=True)
    steps = parse_plan(out)
    if rc != EXIT_OK:
        fail(module, rc, out, err, steps)
    steps = steps or []
    module.exit_json(changed=bool(steps), steps=steps, diff=diff_of(steps))


def run_journal_command(module, action):
    """commit or rollback. fastlink exits 2 when there is no journal: nothing to do, no change."""
    if module.check_mode:
        module.exit_json(changed=False, skipped_in_check_mode=True)
    rc, out, err = module.run_command(fastlink_command(module, "-j", action) if action == "rollback" else fastlink_command(module, action))
    if rc == 2 and "no apply journal" in err:
        module.exit_json(changed=False, msg=err.strip())
    if rc != EXIT_OK:
        fail(module, rc, out, err)
    steps = parse_plan(out) if action == "rollback" else None
    module.exit_json(changed=True, steps=steps or [], diff=diff_of(steps or []))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="raw"),
            src=dict(type="path"),
            mode=dict(type="str", choices=["merged", "replaced", "overridden"]),
            netns=dict(type="str"),
            confirm=dict(type="int"),
            action=dict(type="str", choices=["apply", "commit", "rollback"], default="apply"),
            fastlink=dict(type="path"),
        ),
        mutually_exclusive=[["state", "src"]],
        required_if=[["action", "apply", ["state", "src"], True]],
        supports_check_mode=True,
    )
    if module.params["confirm"] is not None and not 1 <= module.params["confirm"] <= 86400:
        module.fail_json(msg="confirm: %d is not in 1-86400" % module.params["confirm"])
    os.environ.setdefault("LC_ALL", "C")
    if module.params["action"] == "apply":
        run_apply(module)
    run_journal_command(module, module.params["action"])


if __name__ == "__main__":
    main()
