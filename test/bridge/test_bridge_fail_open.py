"""Fail open (split from test_bridge.py): a sidecar killed mid-turn, hanging, absent or dying on a
method; no Node or too old a Node; a Hermes without request middleware or without pre_api_request;
odd messages. In every case the conversation after each turn is byte-identical to a run without
the plugin, with one clear log line."""
import copy
import json
import os
import stat
import time
import unittest

from harness import BridgeCase, fake_sidecar_command, needs_build, needs_node
from fake_host import FakeCtx, FakeHermes
from reference import REFERENCE, REFERENCE_SNAPSHOTS, plugged_run, tool_contents
from scenario import TURNS


class FailOpenTests(BridgeCase):
    def test_sidecar_killed_mid_turn_changes_nothing_and_restarts_later(self):
        ctx = FakeCtx()
        mod, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        self.setattr(mod.hmc_bridge.sidecar, "BACKOFF_MAX", 0.2)
        killed = []

        def kill_once():
            if not killed and bridge.sidecar.proc is not None:
                killed.append(bridge.sidecar.proc.pid)
                bridge.sidecar.proc.kill()
                bridge.sidecar.proc.wait()

        plugged_run(ctx, between_calls=kill_once)
        assert killed
        lines = self.hmc_logs()
        assert 1 <= len(lines) <= 2 and "sidecar" in lines[0]
        time.sleep(0.3)
        assert json.loads(bridge.hmc_control({"action": "status"}))["echo"]["args"] == {"action": "status"}
        assert bridge.sidecar.proc.pid != killed[0]

    def test_hanging_sidecar_times_out_and_the_turn_goes_on(self):
        ctx = FakeCtx()
        mod, _ = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command("--hang", "pre_llm_call"))
        self.setattr(mod.hmc_bridge.sidecar, "HOOK_TIMEOUT", 0.3)
        started = time.monotonic()
        host = FakeHermes(ctx)
        host.run_turn(*TURNS[0])
        assert time.monotonic() - started < 3
        assert host.history == REFERENCE_SNAPSHOTS[1]
        assert host.stored == REFERENCE_SNAPSHOTS[1]
        assert any("did not answer pre_llm_call" in line for line in self.hmc_logs())

    def test_absent_sidecar_logs_once_and_passes_through(self):
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=json.dumps(["/nonexistent/hmc-sidecar"]))
        host = plugged_run(ctx)
        assert host.requests == REFERENCE.requests
        lines = self.hmc_logs()
        assert len(lines) == 1 and "could not start" in lines[0]
        assert "unavailable" in json.loads(ctx.tools["hmc_control"]["handler"]({"action": "status"}))["error"]

    def test_sidecar_that_dies_on_a_method_fails_open(self):
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command("--die-on", "post_tool_call"))
        plugged_run(ctx)
        assert any("exited (code 3)" in line or "could not be written" in line for line in self.hmc_logs())

    def test_without_node_nothing_is_registered(self):
        empty = self.tmp / "empty-bin"
        empty.mkdir()
        self.setenv("PATH", str(empty))
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx)
        assert bridge is None and ctx.hooks == {} and ctx.tools == {} and ctx.commands == {}
        lines = self.hmc_logs()
        assert len(lines) == 1 and "Node.js not found" in lines[0]
        host = FakeHermes(ctx)
        host.run_turn(*TURNS[0])
        assert host.history == REFERENCE_SNAPSHOTS[1]

    def test_too_old_node_turns_hmc_off_with_one_line(self):
        bindir = self.tmp / "old-node"
        bindir.mkdir()
        node = bindir / "node"
        node.write_text("#!/bin/sh\necho v18.19.0\n")
        node.chmod(node.stat().st_mode | stat.S_IEXEC)
        self.setenv("PATH", str(bindir) + os.pathsep + "/usr/bin:/bin")
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx)
        plugged_run(ctx)
        lines = self.hmc_logs()
        assert len(lines) == 1 and "too old" in lines[0]
        assert bridge.sidecar.proc is None

    def test_host_without_request_middleware_edits_each_request_through_pre_api_request(self):
        # Hermes 0.16 has no llm_request middleware; pre_api_request gets the request's own dicts.
        self.hermes_cli.middleware.VALID_MIDDLEWARE = {"tool_request"}
        ctx = FakeCtx()
        self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert ctx.middleware == {} and "pre_api_request" in ctx.hooks
        host = plugged_run(ctx)
        assert tool_contents(host.requests[1])[0].startswith("[compressed")  # inside turn 1's tool loop
        assert all(c.startswith("[compressed") for c in tool_contents(host.requests[4]))

    def test_host_with_neither_still_restores_exactly(self):
        self.hermes_cli.middleware.VALID_MIDDLEWARE = {"tool_request"}
        self.hermes_cli.plugins.VALID_HOOKS = self.hermes_cli.plugins.VALID_HOOKS - {"pre_api_request"}
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert ctx.middleware == {} and "pre_api_request" not in ctx.hooks
        host = plugged_run(ctx)
        assert not tool_contents(host.requests[1])[0].startswith("[compressed")  # no per-request look
        assert all(c.startswith("[compressed") for c in tool_contents(host.requests[4]))  # next turn: edits
        assert "model_call" not in bridge.sidecar.hello_params["capabilities"]

    def test_odd_messages_pass_through(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        parts = [{"type": "text", "text": "x" * 500}, {"type": "image_url", "image_url": {"url": "data:..."}}]
        history = [{"role": "user", "content": parts}, {"role": "tool", "content": None, "tool_call_id": "c"},
                   {"role": "weird", "content": "y" * 300}, {"role": "tool", "content": "\ud800 lone surrogate" + "z" * 300}]
        before = copy.deepcopy(history)
        out = bridge.pre_llm_call(session_id="s", conversation_history=list(history), user_message="u", extra=object())
        assert out == {"context": "hmc: 1 edits"}
        assert history[3]["content"].startswith("[compressed")
        bridge.on_session_end(session_id="s", completed=True)
        assert history == before

    @needs_node
    @needs_build
    def test_real_sidecar_killed_mid_turn(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx)
        killed = []

        def kill_once():
            if len(REFERENCE.requests) and not killed and bridge.sidecar.proc is not None:
                killed.append(bridge.sidecar.proc.pid)
                bridge.sidecar.proc.kill()

        plugged_run(ctx, between_calls=kill_once)
        assert killed and self.hmc_logs()


if __name__ == "__main__":
    unittest.main()
