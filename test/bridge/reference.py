"""The three-turn scenario (scenario.py) run by a fake Hermes without the plugin, the reference,
and with it (`plugged_run`), for the bridge tests split by concern (test_bridge*.py).

Job: `REFERENCE` and `REFERENCE_SNAPSHOTS` (the history after each turn) of the run without HMC;
`plugged_run` runs the same turns on a ctx the plugin registered on and asserts, after every turn,
that the live conversation is byte-identical to the reference and that what Hermes stored is raw.
Invariant: the reference is computed once, at import, by a host with no plugin at all.
"""
import copy
import json

from fake_host import FakeHermes
from scenario import TURNS


def reference_run():
    host = FakeHermes(None)
    snapshots = [copy.deepcopy(host.history)]
    for text, calls in TURNS:
        host.run_turn(text, calls)
        snapshots.append(copy.deepcopy(host.history))
    return host, snapshots


REFERENCE, REFERENCE_SNAPSHOTS = reference_run()


def plugged_run(ctx, between_calls=None, after_turn=None):
    host = FakeHermes(ctx)
    host.between_calls = between_calls
    for n, (text, calls) in enumerate(TURNS):
        host.run_turn(text, calls)
        # After every turn the live conversation is byte-identical to a run without the plugin.
        assert host.history == REFERENCE_SNAPSHOTS[n + 1]
        assert json.dumps(host.history) == json.dumps(REFERENCE_SNAPSHOTS[n + 1])
        if after_turn:
            after_turn(host, n)
    host.finalize()
    assert host.stored == REFERENCE.stored  # what Hermes persisted is raw
    return host


def tool_contents(request):
    return [m["content"] for m in request["messages"] if m.get("role") == "tool"]
