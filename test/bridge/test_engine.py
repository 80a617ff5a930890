"""HMC as Hermes' context engine, the bridge's side (hmc_bridge/engine.py), inside stand-ins for
Hermes' `ContextEngine` and `ContextCompressor`: registered only when the config chooses it;
safe under copy.deepcopy; which measure Hermes passed; a compaction by the real sidecar that keeps
Hermes' own messages (copied as Hermes copies them) and undoes the turn's in-place edits first;
the hand-over to the built-in compressor, with one log line, whenever the sidecar cannot answer;
nothing ever raised into Hermes."""
import abc
import copy
import json
import os
import signal
import sqlite3
import sys
import threading
import time
import types
from unittest import mock

from harness import BridgeCase, fake_sidecar_command, needs_build, needs_node
from fake_host import FakeCtx, FakeHermes

NOTE = "\n".join(["## Goal", "Read the notes", "The user wants the notes read.", "## Done", "1. Read the notes [read_file]",
                  "## Decisions", "None.", "## Files", "docs/a.md: read", "## Commands", "None.", "## Open", "None.",
                  "## Facts", "path: docs/a.md"])


class ContextEngine(abc.ABC):
    """Hermes' ABC as the bridge meets it (0.16/0.19: agent/context_engine.py), abridged."""
    last_prompt_tokens = 0
    threshold_tokens = 0
    context_length = 0
    compression_count = 0

    @property
    @abc.abstractmethod
    def name(self):
        ...

    @abc.abstractmethod
    def update_from_response(self, usage):
        ...

    @abc.abstractmethod
    def should_compress(self, prompt_tokens=None):
        ...

    @abc.abstractmethod
    def compress(self, messages, current_tokens=None, focus_topic=None, force=False, memory_context=""):
        ...


class BuiltinCompressor:
    """Hermes' ContextCompressor as the fallback: records what it is asked, compacts to the last message."""
    instances = []

    def __init__(self, model, threshold_percent=0.5, protect_first_n=3, protect_last_n=20, summary_target_ratio=0.2, quiet_mode=False,
                 base_url="", api_key="", config_context_length=None, provider="", api_mode="", abort_on_summary_failure=False):
        self.threshold_percent = max(0.75, threshold_percent)
        self.context_length = config_context_length or 128000
        self.threshold_tokens = int(self.context_length * self.threshold_percent)
        self.protect_first_n, self.protect_last_n = protect_first_n, protect_last_n
        self.compression_count = 0
        self.last_prompt_tokens = 0
        self.calls = []
        self.fail = False
        BuiltinCompressor.instances.append(self)

    def update_from_response(self, usage):
        self.calls.append(("update_from_response", usage.get("prompt_tokens")))
        self.last_prompt_tokens = usage.get("prompt_tokens", 0)

    def should_compress(self, prompt_tokens=None):
        self.calls.append(("should_compress", prompt_tokens))
        return (prompt_tokens or 0) >= self.threshold_tokens

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):
        self.calls.append(("compress", len(messages), focus_topic))
        if self.fail:
            raise RuntimeError("the aux model is down")
        self.compression_count += 1
        self._last_compression_made_progress = True
        return [{"role": "user", "content": "[builtin summary]"}] + messages[-1:]


class NoteLlm:
    def complete(self, messages, max_tokens=None, **kw):
        return types.SimpleNamespace(text=NOTE, model="aux-note")


def log_output(tag, lines=400):
    """A long passing build log in Hermes' terminal envelope: layer 0 shortens it."""
    body = "\n".join("[%s] compiling module %d of %d ... ok (%d ms)" % (tag, k, lines, 10 + k % 7) for k in range(lines))
    return json.dumps({"output": body, "exit_code": 0, "error": None})


def conversation(turns=6, reads=3):
    out = []
    for t in range(turns):
        out.append({"role": "user", "content": "L%d: read the notes" % t})
        for r in range(reads):
            cid = "c%d_%d" % (t, r)
            out.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "terminal", "arguments": json.dumps({"command": "make %s" % cid})}}]})
            out.append({"role": "tool", "tool_call_id": cid, "name": "terminal", "content": log_output(cid), "_db_persisted": True})
        out.append({"role": "assistant", "content": "done %d" % t})
    return out


class EngineCase(BridgeCase):
    def setUp(self):
        super().setUp()
        BuiltinCompressor.instances = []
        self.config = {"context": {"engine": "hmc"}, "compression": {"threshold": 0.5}}
        cfg = types.ModuleType("hermes_cli.config")
        cfg.load_config = lambda: self.config
        agent = types.ModuleType("agent")
        ce = types.ModuleType("agent.context_engine")
        ce.ContextEngine = ContextEngine
        cc = types.ModuleType("agent.context_compressor")
        cc.ContextCompressor = BuiltinCompressor
        self.hermes_cli.config = cfg
        modules = mock.patch.dict(sys.modules, {"hermes_cli.config": cfg, "agent": agent, "agent.context_engine": ce, "agent.context_compressor": cc})
        modules.start()
        self.addCleanup(modules.stop)

    def engine(self, ctx=None, **env):
        ctx = ctx or FakeCtx()
        ctx.engines = []
        ctx.register_context_engine = ctx.engines.append
        _mod, bridge = self.load_bridge(ctx, **env)
        self.assertEqual(len(ctx.engines), 1)
        engine = ctx.engines[0]
        engine.update_model(model="m", context_length=64000, base_url="http://x", provider="custom", api_mode="chat_completions")
        engine.on_session_start("S1", platform="cli")
        return engine, bridge, ctx


class Registration(EngineCase):
    def test_registered_only_when_the_config_chooses_it(self):
        engine, _bridge, _ctx = self.engine(HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.assertIsInstance(engine, ContextEngine)
        self.assertEqual(engine.name, "hmc")
        # Where Hermes' own compressor fires, from Hermes' config and its floors.
        self.assertEqual(engine.threshold_tokens, 48000)
        for other in ({"context": {"engine": "lcm"}}, {}, {"context": "hmc"}):
            self.config = other
            ctx = FakeCtx()
            ctx.engines = []
            ctx.register_context_engine = ctx.engines.append
            self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
            self.assertEqual(ctx.engines, [], other)

    def test_a_copy_shares_the_sidecar_and_holds_no_process(self):
        engine, bridge, _ctx = self.engine(HMC_SIDECAR_COMMAND=fake_sidecar_command())
        bridge.sidecar.ensure()  # threads, pipes and locks in the bridge
        clone = copy.deepcopy(engine)
        self.assertIsNot(clone, engine)
        self.assertIs(clone._bridge, bridge)
        self.assertIsNone(clone._fallback)
        clone.update_model(model="m2", context_length=128000)
        self.assertEqual((engine.model, clone.model), ("m", "m2"))
        self.assertEqual(clone.threshold_tokens, 96000)

    def test_tools_and_the_hooks_of_newer_hermes(self):
        engine, _bridge, _ctx = self.engine(HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.assertEqual([s["name"] for s in engine.get_tool_schemas()], ["hmc_control"])
        self.assertIn("Unknown context engine tool", engine.handle_tool_call("lcm_grep", {}))
        messages = conversation(1, 1)
        self.assertIsNone(engine.select_context(messages, conversation_messages=messages, budget_tokens=64000))
        self.assertEqual(engine.prune_tool_results_only(messages, 1000), (messages, 0))
        engine.on_turn_complete(messages, usage=None, interrupted=True)
        self.assertIn("engine", engine.get_status())


@needs_node
@needs_build
class WithTheSidecar(EngineCase):
    def test_the_decision_is_on_what_hmc_sends_in_hermes_units(self):
        ctx = FakeCtx()
        ctx._llm = NoteLlm()
        engine, bridge, _ = self.engine(ctx)
        host = FakeHermes(ctx, session_id="S1")
        host.run_turn("L0: build", [("terminal", {"command": "make"}, log_output("m", 1500))])
        # Hermes' rough measure (announced by should_defer_…): what HMC takes off comes off it.
        self.assertFalse(engine.should_defer_preflight_to_real_usage(50000))
        self.assertFalse(engine.should_compress(50000))
        # The provider's figure of what HMC sent is taken as it is.
        engine.update_from_response({"prompt_tokens": 50000, "completion_tokens": 5, "total_tokens": 50005, "cache_read_tokens": 40000})
        self.assertTrue(engine.should_compress(50000))
        self.assertEqual(self.hmc_logs(), [])

    def test_a_compaction_keeps_hermes_messages_and_undoes_the_in_place_edits_first(self):
        ctx = FakeCtx()
        ctx._llm = NoteLlm()
        engine, bridge, _ = self.engine(ctx)
        messages = conversation()
        live = copy.deepcopy(messages)
        bridge.pre_llm_call(session_id="S1", conversation_history=list(live), user_message="L5")
        edited = [i for i, (a, b) in enumerate(zip(live, messages)) if a != b]
        self.assertTrue(edited, "the turn's in-place edits were expected")
        out = engine.compress(live, current_tokens=60000, focus_topic="the ledger")
        self.assertEqual(live, messages)  # restored before anything was sent
        self.assertLess(len(out), len(messages))
        summaries = [m for m in out if str(m.get("content")).startswith("[Summary of earlier work")]
        self.assertTrue(summaries)
        self.assertTrue(all(m.get("_compressed_summary") for m in summaries))
        self.assertEqual(out[1], summaries[0])  # the earlier turns, right after the task
        kept = [m for m in out if m not in summaries]
        stripped = [{k: v for k, v in m.items() if k != "_db_persisted"} for m in messages]
        self.assertTrue(kept == [m for m in stripped if m in kept], "the kept messages are Hermes' own, in order")
        self.assertFalse([m for m in kept if "_db_persisted" in m])  # copied as Hermes copies at a compaction
        self.assertFalse([m for m in out if any(m is x for x in live)])
        self.assertEqual(out[0], messages[0])
        self.assertEqual(engine.compression_count, 1)
        self.assertTrue(engine._last_compression_made_progress)
        self.assertEqual(BuiltinCompressor.instances[-1].calls.count(("compress",)), 0)
        rid = summaries[0]["content"].split("recall id=")[1].split(")")[0]
        recalled = json.loads(engine.handle_tool_call("hmc_control", {"action": "recall", "id": rid}))
        self.assertEqual(recalled["messages"][0]["tool_calls"][0]["id"], "c0_0")

    def test_usage_goes_into_analytics_per_call(self):
        ctx = FakeCtx()
        engine, bridge, _ = self.engine(ctx)
        host = FakeHermes(ctx, session_id="S1")
        host.run_turn("L0: read", [("read_file", {"path": "a.py"}, "print('x')\n" * 200)])
        engine.update_from_response({"prompt_tokens": 900, "completion_tokens": 7, "total_tokens": 907, "cache_read_tokens": 600,
                                     "cache_write_tokens": 250, "reasoning_tokens": 0})
        host.finalize()
        bridge.sidecar.close()
        db = sqlite3.connect(self.home / "hmc_state" / "analytics.db")
        try:
            rows = db.execute("SELECT session_id, seq, model, prompt_tokens, cache_read_tokens, cache_write_tokens, hmc_input IS NOT NULL FROM provider_usage").fetchall()
        finally:
            db.close()
        self.assertEqual(rows, [("S1", 1, "m", 900, 600, 250, 1)])


class HandOver(EngineCase):
    def test_without_a_sidecar_hermes_compressor_decides_and_compacts_with_one_log_line(self):
        engine, _bridge, _ctx = self.engine(HMC_SIDECAR_COMMAND=json.dumps([sys.executable, "-c", "import sys; sys.exit(3)"]))
        fallback = BuiltinCompressor.instances[-1]
        self.assertFalse(engine.should_compress(1000))
        self.assertTrue(engine.should_compress(60000))
        self.assertEqual([c for c in fallback.calls if c[0] == "should_compress"], [("should_compress", 1000), ("should_compress", 60000)])
        messages = conversation(2, 1)
        out = engine.compress(messages, current_tokens=60000, focus_topic="auth")
        self.assertEqual(out[0]["content"], "[builtin summary]")
        self.assertEqual(fallback.calls[-1], ("compress", len(messages), "auth"))
        logs = [line for line in self.hmc_logs() if "built-in compressor" in line]
        self.assertEqual(len(logs), 2, logs)  # once for the decisions, once for the compaction
        self.assertTrue(engine._last_compression_made_progress)



    def test_while_another_hook_waits_for_the_start_hermes_compressor_decides_and_the_line_says_so(self):
        # Issue 19: a hook arriving during a start passes through at once; the engine hands over
        # to Hermes' compressor meanwhile, and its line names the start, not a failure that never was.
        engine, bridge, _ctx = self.engine(HMC_SIDECAR_COMMAND=fake_sidecar_command("--slow-hello", "2"))
        fallback = BuiltinCompressor.instances[-1]
        starter = threading.Thread(target=bridge.pre_llm_call, kwargs={"session_id": "S1", "conversation_history": [{"role": "user", "content": "hi"}], "model": "m"})
        starter.start()
        time.sleep(0.3)
        t = time.monotonic()
        self.assertTrue(engine.should_compress(60000))
        took = time.monotonic() - t
        starter.join(10)
        self.assertLess(took, 0.5)
        self.assertEqual(fallback.calls[-1], ("should_compress", 60000))
        logs = [line for line in self.hmc_logs() if "built-in compressor" in line]
        self.assertEqual(len(logs), 1, logs)
        self.assertIn("the sidecar is starting", logs[0])


class SlowLlm:
    def complete(self, messages, max_tokens=None, **kw):
        time.sleep(5)
        return types.SimpleNamespace(text=NOTE, model="aux-slow")


@needs_node
@needs_build
class HungSidecar(EngineCase):
    def test_a_compaction_that_outlasts_its_limit_and_a_failing_fallback_raise_nothing(self):
        ctx = FakeCtx()
        ctx._llm = SlowLlm()
        engine, _bridge, _ = self.engine(ctx)
        self.setattr(sys.modules[type(engine).__module__], "COMPRESS_TIMEOUT", 1.0)
        BuiltinCompressor.instances[-1].fail = True
        messages = conversation()
        started = time.monotonic()
        self.assertIs(engine.compress(messages), messages)  # unchanged: Hermes sees no progress and goes on
        self.assertLess(time.monotonic() - started, 10)
        self.assertTrue(engine._last_compress_aborted)
        logs = self.hmc_logs()
        self.assertTrue([line for line in logs if "did not answer compress" in line], logs)
        self.assertTrue([line for line in logs if "failed too" in line], logs)


@needs_node
@needs_build
class StoppedSidecar(EngineCase):
    """Issue 26, finding 7: a compaction through a SIGSTOPped sidecar waited the whole
    HMC_COMPRESS_TIMEOUT (180 s) before Hermes' compressor took over, while hooks passed through in
    2 s; and one None in the message list handed the whole compaction to Hermes' compressor."""

    def test_a_compaction_through_a_stopped_sidecar_falls_back_within_5_s_saying_so_once(self):
        ctx = FakeCtx()
        ctx._llm = NoteLlm()
        engine, bridge, _ = self.engine(ctx)
        self.assertEqual(sys.modules[type(engine).__module__].COMPRESS_TIMEOUT, 180.0)
        messages = conversation()
        bridge.pre_llm_call(session_id="S1", conversation_history=copy.deepcopy(messages), user_message="L5")
        proc = bridge.sidecar.proc
        os.kill(proc.pid, signal.SIGSTOP)
        self.addCleanup(lambda: proc.poll() is None and os.kill(proc.pid, signal.SIGKILL))
        started = time.monotonic()
        out = engine.compress(copy.deepcopy(messages), current_tokens=60000)
        took = time.monotonic() - started
        self.assertLessEqual(took, 5.0)
        self.assertEqual(out[0]["content"], "[builtin summary]")
        handed = [line for line in self.hmc_logs() if "built-in compressor" in line]
        self.assertEqual(len(handed), 1, self.hmc_logs())
        self.assertIn("ping", handed[0])
        print("\n[fault] engine: compaction through a stopped sidecar handed to Hermes' compressor after %.2f s (before: 180 s)" % took)

    def test_a_message_that_cannot_be_read_is_left_out_not_the_whole_compaction(self):
        ctx = FakeCtx()
        ctx._llm = NoteLlm()
        engine, bridge, _ = self.engine(ctx)
        messages = conversation()
        messages.insert(3, None)
        messages.insert(7, "not a message")
        out = engine.compress(messages, current_tokens=60000)
        self.assertLess(len(out), len(messages))
        self.assertTrue([m for m in out if str(m.get("content")).startswith("[Summary of earlier work")], out[:3])
        self.assertNotIn(None, out)
        self.assertEqual(BuiltinCompressor.instances[-1].calls.count(("compress",)), 0)
        self.assertEqual([c for c in BuiltinCompressor.instances[-1].calls if c[0] == "compress"], [])


@needs_node
@needs_build
class HostileUsage(EngineCase):
    """Issue 26, finding 9: the provider's usage figures as a host or a proxy may send them. A NaN
    made the line no JSON (the sidecar could not answer it and was restarted at the hook limit);
    a word raised inside the bridge; a negative figure was stored as 0 tokens."""

    def test_hostile_usage_figures_are_refused_with_one_line_and_never_stored(self):
        ctx = FakeCtx()
        engine, bridge, _ = self.engine(ctx)
        host = FakeHermes(ctx, session_id="S1")
        host.run_turn("L0: read", [("read_file", {"path": "a.py"}, "print('x')\n" * 200)])
        generation = bridge.sidecar.generation
        hostile = [-5, float("nan"), float("inf"), "abc", 1e300, "-3", 10.5, True, {"n": 1}, [1]]
        for value in hostile:
            engine.update_from_response({"prompt_tokens": value, "completion_tokens": 7})
            engine.update_from_response({"prompt_tokens": 900, "completion_tokens": 7, "cache_read_tokens": value})
        engine.update_from_response({"prompt_tokens": "900", "completion_tokens": 7.0, "cache_read_tokens": None})
        host.finalize()
        self.assertEqual(bridge.sidecar.generation, generation)  # never restarted
        self.assertIsNotNone(bridge.sidecar.proc)
        lines = [l for l in self.hmc_logs() if "usage" in l]
        self.assertEqual(len(lines), 1, self.hmc_logs())
        self.assertIn("not a whole number of tokens", lines[0])
        bridge.sidecar.close()
        db = sqlite3.connect(self.home / "hmc_state" / "analytics.db")
        try:
            rows = db.execute("SELECT prompt_tokens, completion_tokens, cache_read_tokens FROM provider_usage").fetchall()
        finally:
            db.close()
        self.assertEqual(rows, [(900, 7, 0)])  # the one good call; no wrong figure stored
