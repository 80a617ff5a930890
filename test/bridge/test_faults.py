"""Issue 11, fault 4, in the bridge: big first calls and lines over the sidecar's limit. A resumed
long session's first pre_llm_call took 7.4 s at 100 K messages, over the 2 s hook limit, so the
bridge killed the sidecar on every try; a line over the sidecar's limit got an `id: null` answer,
a timeout, and a restart, every time. Also: the sidecar killed, hung and restarted, with the time
the bridge takes to be back (figures in docs/faults.md)."""
import copy
import json
import time
import unittest

from harness import BridgeCase, fake_sidecar_command, needs_build, needs_node
from fake_host import FakeCtx, FakeHermes
from scenario import TURNS


def long_history(n):
    """`n` messages: turns of tool calls whose outputs are mostly short, every 25th a long log."""
    msgs = [{"role": "system", "content": "You are a coding agent."}, {"role": "user", "content": "Build the project and fix what fails."}]
    i = 0
    while len(msgs) < n:
        cid = "call_%d" % i
        msgs.append({"role": "assistant", "content": "", "tool_calls": [{"id": cid, "type": "function", "function": {"name": "terminal", "arguments": json.dumps({"command": "make step%d" % i})}}]})
        lines = 120 if i % 25 == 0 else 6
        output = "\n".join("step %d line %d: compiling module_%d.ts ok" % (i, j, j) for j in range(lines))
        msgs.append({"role": "tool", "name": "terminal", "tool_call_id": cid, "content": json.dumps({"output": output, "exit_code": 0, "error": None})})
        if i % 10 == 9:
            msgs.append({"role": "user", "content": "next %d" % i})
        i += 1
    return msgs[:n]


class BigCallTests(BridgeCase):

    @needs_node
    @needs_build
    def test_a_resumed_100k_message_session_answers_within_the_hook_budget(self):
        ctx = FakeCtx()
        mod, bridge = self.load_bridge(ctx)
        self.assertEqual(mod.hmc_bridge.sidecar.HOOK_TIMEOUT, 2.0)
        history = long_history(100_000)
        snapshot = copy.deepcopy(history)
        sizes = []
        real = mod.hmc_bridge.sidecar._dumps

        def dumps(record):
            data = real(record)
            if record.get("method") == "pre_llm_call":
                sizes.append((len(data), (record.get("params") or {}).get("partial") is True))
            return data

        self.setattr(mod.hmc_bridge.sidecar, "_dumps", dumps)
        bridge.pre_llm_call(session_id="resumed", conversation_history=list(history), user_message="go on", model="m")
        # Streamed: stretches of about STREAM_BYTES, then the real call; no line near the limit.
        self.assertGreater(len([s for s in sizes if s[1]]), 3)
        self.assertFalse(sizes[-1][1])
        self.assertLess(max(size for size, _ in sizes), 2 * bridge.stream_bytes)  # the stretch size hello told
        bridge.on_session_end(session_id="resumed", completed=True)
        # Answered within the limit: no timeout, no restart, the conversation back as it was.
        self.assertEqual([l for l in self.hmc_logs() if "did not answer" in l or "exited" in l], [])
        self.assertEqual(bridge.sidecar.generation, 1)
        self.assertEqual(history, snapshot)
        # The next turn is incremental and cheap again.
        history.append({"role": "user", "content": "and now?"})
        bridge.pre_llm_call(session_id="resumed", conversation_history=list(history), user_message="and now?", model="m")
        bridge.on_session_end(session_id="resumed", completed=True)
        self.assertEqual(self.hmc_logs(), [])
        self.assertEqual(bridge.sidecar.generation, 1)

    def test_a_line_over_the_sidecar_limit_passes_through_with_one_log_line(self):
        ctx = FakeCtx()
        mod, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command("--max-line", "25000"))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", 1.0)
        host = FakeHermes(ctx)
        # A history whose pre_llm_call line is over the limit, on every turn.
        host.history.append({"role": "user", "content": "x" * 30_000})
        host.history.append({"role": "assistant", "content": "noted"})
        before = copy.deepcopy(host.history)
        for text, calls in TURNS[:3]:
            host.run_turn(text, calls)
        logs = self.hmc_logs()
        over = [l for l in logs if "over the sidecar's line limit" in l]
        self.assertEqual(len(over), 1, logs)
        self.assertEqual([l for l in logs if "did not answer" in l or "restart" in l], [])
        self.assertEqual(bridge.sidecar.generation, 1)
        self.assertEqual(host.history[:len(before)], before)

    @needs_node
    @needs_build
    def test_the_real_sidecar_tells_its_line_limit_and_the_bridge_keeps_under_it(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_MAX_LINE_BYTES="50000")
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        self.assertEqual(bridge.sidecar.max_line_bytes, 50000)
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "y" * 80_000}], model="m")
        logs = self.hmc_logs()
        self.assertEqual(len([l for l in logs if "over the sidecar's line limit" in l]), 1, logs)
        self.assertEqual(bridge.sidecar.generation, 1)


class RecoveryTimes(BridgeCase):
    """How long the bridge passes through after a sidecar fault before it compresses again."""

    def recovered_after(self, bridge, deadline=10.0):
        start = time.monotonic()
        while time.monotonic() - start < deadline:
            answer = bridge.sidecar.call("pre_tool_call", {"session_id": "r", "tool_name": "t", "args": {}})
            if answer is not None and "result" in answer:
                return time.monotonic() - start
            time.sleep(0.02)
        self.fail("the sidecar did not come back")

    def test_killed_sidecar_is_back_after_the_backoff(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.assertIsNotNone(bridge.sidecar.call("pre_tool_call", {"session_id": "r", "tool_name": "t", "args": {}}))
        bridge.sidecar.proc.kill()
        bridge.sidecar.proc.wait()
        took = self.recovered_after(bridge)
        self.assertLess(took, mod.hmc_bridge.sidecar.BACKOFF_MAX)
        self.assertEqual(bridge.sidecar.generation, 2)
        print("\n[fault] bridge: sidecar killed -> compressing again after %.2f s" % took)

    def test_hung_sidecar_is_replaced_after_the_timeout_and_the_backoff(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--hang", "pre_llm_call"))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", 0.5)
        started = time.monotonic()
        bridge.pre_llm_call(session_id="r", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        hung = time.monotonic() - started
        self.assertLess(hung, 1.5)
        took = self.recovered_after(bridge)
        self.assertEqual(bridge.sidecar.generation, 2)
        print("\n[fault] bridge: sidecar hung -> hook passed through after %.2f s, compressing again %.2f s later" % (hung, took))


if __name__ == "__main__":
    unittest.main()
