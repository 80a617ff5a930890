"""Issue 11, fault 4, in the bridge: big first calls and lines over the sidecar's limit. A resumed
long session's first pre_llm_call took 7.4 s at 100 K messages, over the 2 s hook limit, so the
bridge killed the sidecar on every try; a line over the sidecar's limit got an `id: null` answer,
a timeout, and a restart, every time. Also: the sidecar killed, hung and restarted, with the time
the bridge takes to be back (figures in docs/faults.md)."""
import copy
import json
import os
import signal
import threading
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
        self.assertGreater(len([s for s in sizes if s[1]]), 3, self.hmc_logs())
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
        # The default hook limit: what is tested is the line limit, and a 1 s limit of the test's own
        # made it fail on a loaded machine (a fake sidecar's answer alone took longer; issue 19).
        mod, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command("--max-line", "25000"))
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


def recovered_after(case, bridge, deadline=10.0):
    """Seconds until a hook is answered again (the bridge passes through meanwhile)."""
    start = time.monotonic()
    while time.monotonic() - start < deadline:
        answer = bridge.sidecar.call("pre_tool_call", {"session_id": "r", "tool_name": "t", "args": {}})
        if answer is not None and "result" in answer:
            return time.monotonic() - start
        time.sleep(0.02)
    case.fail("the sidecar did not come back")


class RecoveryTimes(BridgeCase):
    """How long the bridge passes through after a sidecar fault before it compresses again."""

    def test_killed_sidecar_is_back_after_the_backoff(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.assertIsNotNone(bridge.sidecar.call("pre_tool_call", {"session_id": "r", "tool_name": "t", "args": {}}))
        bridge.sidecar.proc.kill()
        bridge.sidecar.proc.wait()
        took = recovered_after(self, bridge)
        self.assertLess(took, mod.hmc_bridge.sidecar.BACKOFF_MAX)
        self.assertEqual(bridge.sidecar.generation, 2)
        print("\n[fault] bridge: sidecar killed -> compressing again after %.2f s" % took)

    def test_hung_sidecar_is_replaced_after_the_timeout_and_the_backoff(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--hang", "pre_llm_call"))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", 0.5)
        self.setattr(mod.hmc_bridge.sidecar, "STUCK_LIMIT", 1.0)  # silent this long after a late answer, ping included: hung
        self.assertTrue(bridge.sidecar.ensure())  # started first: the start is not what is timed (issue 19, flaky under load)
        started = time.monotonic()
        bridge.pre_llm_call(session_id="r", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        hung = time.monotonic() - started
        self.assertLess(hung, 1.5)
        took = recovered_after(self, bridge)
        self.assertEqual(bridge.sidecar.generation, 2)
        print("\n[fault] bridge: sidecar hung -> hook passed through after %.2f s, compressing again %.2f s later" % (hung, took))


class StartAndFailureLineTests(BridgeCase):
    """Issue 19: a start held the sidecar lock while it waited for hello (up to 15 s), so every other
    hook (a gateway's other users) waited behind it; and a failure line quoted the sidecar's last
    stderr line, most often only that it had started."""

    def test_hooks_pass_through_at_once_while_another_waits_for_the_start(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--slow-hello", "3"))
        first = {}

        def start():
            t = time.monotonic()
            bridge.pre_llm_call(session_id="a", conversation_history=[{"role": "user", "content": "hi"}], model="m")
            first["took"] = time.monotonic() - t

        starter = threading.Thread(target=start)
        starter.start()
        time.sleep(0.3)
        waits = []
        for i in range(3):
            t = time.monotonic()
            bridge.pre_tool_call(session_id="b", tool_name="terminal", args={"command": "ls"}, tool_call_id="c%d" % i)
            bridge.post_tool_call(session_id="b", tool_name="terminal", args={}, result="x" * 500, tool_call_id="c%d" % i)
            waits.append(time.monotonic() - t)
        starter.join(10)
        self.assertLess(max(waits), 0.5, waits)  # they waited the whole start (about 2.7 s) before
        self.assertGreater(first["took"], 2.5)  # the hook that started it waited for hello
        self.assertEqual(bridge.sidecar.generation, 1)
        self.assertEqual(self.hmc_logs(), [])
        self.assertIsNotNone(bridge.sidecar.call("pre_tool_call", {"session_id": "b", "tool_name": "t", "args": {}}))
        print("\n[fault] bridge: hooks during a 3 s start passed through in %.3f s at most" % max(waits))

    def test_a_hung_sidecar_line_says_what_failed_not_that_it_started(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--started-line", "--hang", "pre_llm_call"))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", 0.5)
        bridge.pre_llm_call(session_id="r", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        lines = [l for l in self.hmc_logs() if "did not answer" in l]
        self.assertEqual(len(lines), 1, self.hmc_logs())
        self.assertIn("did not answer pre_llm_call", lines[0])
        self.assertIn("busy or hung", lines[0])
        self.assertNotIn("started", lines[0])

    def test_a_crashed_sidecar_line_quotes_its_error(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--started-line", "--crash-on", "pre_llm_call"))
        bridge.pre_llm_call(session_id="r", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        deadline = time.monotonic() + 5
        while not any("exited" in l for l in self.hmc_logs()) and time.monotonic() < deadline:
            time.sleep(0.02)
        lines = [l for l in self.hmc_logs() if "exited" in l]
        self.assertEqual(len(lines), 1, self.hmc_logs())
        self.assertIn("exited (code 1)", lines[0])
        self.assertIn("TypeError: boom in pre_llm_call", lines[0])

    def test_a_killed_sidecar_line_names_the_signal(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--started-line"))
        self.assertIsNotNone(bridge.sidecar.call("pre_tool_call", {"session_id": "r", "tool_name": "t", "args": {}}))
        bridge.sidecar.proc.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 5
        while not any("killed" in l for l in self.hmc_logs()) and time.monotonic() < deadline:
            time.sleep(0.02)
        lines = [l for l in self.hmc_logs() if "sidecar" in l]
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("was killed by SIGKILL", lines[0])
        self.assertNotIn("started", lines[0])


class StoppedReadingTests(BridgeCase):
    """Issue 19, finding 1: the bridge wrote a request before its timed wait began, so a sidecar
    that stopped reading blocked the hook for as long as it stayed stopped once the request was
    bigger than the pipe (64 KiB): 200 KB to a stopped sidecar was still blocked after 30 s. Every
    hook must pass through within the limit, whatever the size, and later hooks work again."""

    SIZES = (1_000, 60_000, 200_000, 4_000_000)
    MARGIN = 0.5

    def timed(self, fn, limit, **kw):
        """How long `fn(**kw)` took; fails (instead of hanging) when it is still running well past the limit."""
        started = time.monotonic()
        worker = threading.Thread(target=fn, kwargs=kw, daemon=True)
        worker.start()
        worker.join(limit + 10)
        self.assertFalse(worker.is_alive(), "the hook is still blocked %.0f s after it began" % (time.monotonic() - started))
        return time.monotonic() - started

    def writers(self):
        return [t for t in threading.enumerate() if t.name == "hmc-sidecar-writer"]

    def stall(self, size, limit, stop, *fake_args):
        """One hook carrying `size` bytes to a sidecar that `stop` made stop reading: (seconds, log lines)."""
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command(*fake_args))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", limit)
        self.setattr(mod.hmc_bridge.sidecar, "STUCK_LIMIT", 1.0)
        self.assertTrue(bridge.sidecar.ensure())  # started: hello answered
        stop(bridge.sidecar.proc)
        took = self.timed(bridge.post_tool_call, limit, session_id="s", tool_name="terminal", args={}, tool_call_id="c", result="x" * size)
        return bridge, took, self.hmc_logs()

    def sigstop(self, proc):
        os.kill(proc.pid, signal.SIGSTOP)
        self.addCleanup(lambda: proc.poll() is None and os.kill(proc.pid, signal.SIGKILL))

    def test_a_stopped_sidecar_holds_no_hook_past_the_limit_whatever_the_size(self):
        figures = []
        for size in self.SIZES:
            with self.subTest(size=size):
                self._records.records.clear()
                bridge, took, logs = self.stall(size, 1.0, self.sigstop)
                self.assertLessEqual(took, 1.0 + self.MARGIN)
                self.assertEqual(len(logs), 1, logs)  # one line, and the late broken pipe adds none
                self.assertIn("stopped reading" if size > 100_000 else "did not answer", logs[0])
                # Kept while it may only be busy (issue 26, finding 8); silent STUCK_LIMIT, ping
                # included: killed (a second line) and restarted after the backoff.
                self.assertIsNotNone(bridge.sidecar.proc)
                back = recovered_after(self, bridge)
                figures.append("%d B: through after %.2f s, compressing again %.2f s later" % (size, took, back))
                self.assertEqual(bridge.sidecar.generation, 2)
                self.assertEqual(len(self.hmc_logs()), 2, self.hmc_logs())
                self.assertIn("not even to a ping: hung", self.hmc_logs()[1])
                bridge.post_tool_call(session_id="s", tool_name="terminal", args={}, tool_call_id="c2", result="y" * size)
                self.assertEqual(len(self.hmc_logs()), 2, self.hmc_logs())
                bridge.sidecar.close()
        time.sleep(0.2)
        self.assertEqual(self.writers(), [])  # each stopped sidecar's writer thread ended with its pipe
        print("\n[fault] bridge: sidecar stopped (SIGSTOP), hook limit 1 s: " + "; ".join(figures))

    def test_the_default_2s_limit_holds_for_a_200kb_pre_llm_call_to_a_stopped_sidecar(self):
        ctx = FakeCtx()
        mod, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.assertEqual(mod.hmc_bridge.sidecar.HOOK_TIMEOUT, 2.0)
        host = FakeHermes(ctx)
        host.history.append({"role": "user", "content": "z" * 200_000})
        host.history.append({"role": "assistant", "content": "noted"})
        before = copy.deepcopy(host.history)
        host.run_turn(*TURNS[0])  # the sidecar is up and holds the session
        self.sigstop(bridge.sidecar.proc)
        took = self.timed(bridge.pre_llm_call, 2.0, session_id=host.session_id, conversation_history=list(host.history) + [{"role": "user", "content": "more"}], model="m")
        self.assertLessEqual(took, 2.0 + self.MARGIN)
        self.assertEqual(host.history[:len(before)], before)
        print("\n[fault] bridge: sidecar stopped, 200 KB pre_llm_call at the default limit: passed through after %.2f s" % took)

    def test_a_sidecar_that_never_reads_again_is_treated_as_hung(self):
        for size in self.SIZES:
            with self.subTest(size=size):
                self._records.records.clear()
                bridge, took, logs = self.stall(size, 1.0, lambda proc: None, "--deaf")
                self.assertLessEqual(took, 1.0 + self.MARGIN)
                self.assertEqual(len(logs), 1, logs)
                self.assertIn("passed through", logs[0])
                time.sleep(1.1)  # silent past STUCK_LIMIT, ping included: the next call finds it hung
                self.assertIsNone(bridge.sidecar.call("pre_tool_call", {"session_id": "s", "tool_name": "t", "args": {}}))
                self.assertEqual(len(self.hmc_logs()), 2, self.hmc_logs())
                self.assertIn("restart in", self.hmc_logs()[1])
                self.assertIsNone(bridge.sidecar.proc)
                bridge.sidecar.close()


if __name__ == "__main__":
    unittest.main()


class DeepArgumentsTests(BridgeCase):
    """Issue 26, finding 8: tool arguments nested 10 K levels deep: the RecursionError was caught but
    logged at every hook (8 lines for 4 turns); once per session is enough."""

    def test_tool_arguments_nested_10k_deep_log_once_per_session(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        deep = {}
        inner = deep
        for _ in range(10_000):
            inner["a"] = {}
            inner = inner["a"]
        for sid in ("s1", "s2"):
            for turn in range(4):
                cid = "%s-c%d" % (sid, turn)
                bridge.pre_tool_call(session_id=sid, tool_name="terminal", args=deep, tool_call_id=cid)
                bridge.post_tool_call(session_id=sid, tool_name="terminal", args=deep, result="ok", tool_call_id=cid)
        lines = [l for l in self.hmc_logs() if "RecursionError" in l]
        self.assertEqual(len(lines), 2, self.hmc_logs())  # one per session (before: 16, one per hook)
        # The sidecar still answers ordinary calls.
        self.assertIsNotNone(bridge.sidecar.call("pre_tool_call", {"session_id": "s1", "tool_name": "t", "args": {}}))
        print("\n[fault] bridge: tool arguments 10 K levels deep, 2 sessions x 4 turns: %d log lines" % len(lines))


class SlowAnswerTests(BridgeCase):
    """Issue 26, finding 8: a 12.9 MB pre_llm_call went past the 2 s hook limit and the sidecar was
    killed and restarted, losing what it held. A hook that cannot finish in time passes through and
    abandons its answer by id; a sidecar still alive and answering is kept."""

    def test_one_slow_answer_costs_the_hook_not_the_sidecar(self):
        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--slow-on", "pre_llm_call", "1.5"))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", 0.5)
        self.assertTrue(bridge.sidecar.ensure())
        proc = bridge.sidecar.proc
        started = time.monotonic()
        bridge.pre_llm_call(session_id="r", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        took = time.monotonic() - started
        self.assertLess(took, 1.0)
        # While it is busy, other hooks pass through at once instead of queueing behind it.
        t = time.monotonic()
        self.assertIsNone(bridge.sidecar.call("pre_tool_call", {"session_id": "r", "tool_name": "t", "args": {}}))
        self.assertLess(time.monotonic() - t, 0.2)
        back = recovered_after(self, bridge)
        self.assertIs(bridge.sidecar.proc, proc)  # the same process: never killed
        self.assertEqual(bridge.sidecar.generation, 1)
        lines = self.hmc_logs()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("its late answer is dropped", lines[0])
        print("\n[fault] bridge: one answer 1.5 s late at a 0.5 s limit: passed through after %.2f s, answered again %.2f s later, same sidecar" % (took, back))
