"""Which session the bridge is about (split from test_bridge.py): a finalize without an id ends
every session this process touched; /hmc follows the session Hermes starts with /new or resumes
after a restart; a gateway sender owns its session."""
import json
import time
import types
import unittest

from harness import BridgeCase, fake_sidecar_command, needs_build, needs_node
from fake_host import FakeCtx, FakeHermes
from reference import REFERENCE_SNAPSHOTS
from scenario import TURNS


class SessionTests(BridgeCase):
    def test_finalize_without_a_session_id_ends_every_session_this_process_touched(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command(), HMC_FAKE_LOG=str(self.tmp / "fake.log"))
        a, b = FakeHermes(ctx, "A"), FakeHermes(ctx, "B")
        a.run_turn(*TURNS[0])
        b.run_turn(*TURNS[0])
        a.invoke("on_session_finalize", session_id=None, platform="cli", reason="shutdown")  # Hermes' CLI exit
        finals = [json.loads(line)["params"] for line in (self.tmp / "fake.log").read_text().splitlines() if '"on_session_finalize"' in line]
        assert [f["session_id"] for f in finals] == [""]
        assert bridge.sessions == {} and bridge.last_session == ""
        assert a.history == b.history == REFERENCE_SNAPSHOTS[1]

    def test_hmc_status_follows_the_session_hermes_starts_with_new(self):
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        assert bridge.last_session == ""
        host = FakeHermes(ctx, "old")
        host.run_turn(*TURNS[0])
        host.finalize()
        assert bridge.last_session == ""  # not the finalized session's figures
        host.invoke("on_session_reset", session_id="new", platform="cli", reason="new_session")
        seen = []
        real = bridge.sidecar.call
        bridge.sidecar.call = lambda method, params, timeout=None: seen.append(params) or real(method, params, timeout)
        ctx.commands["hmc"]("status")
        assert seen[-1]["session_id"] == "new"

    def test_hmc_after_a_restart_is_about_the_session_hermes_cli_resumed(self):
        # Issue 17, finding 2: `hermes chat --resume ID`, then /hmc before any message. No hook has
        # run yet; Hermes' CLI (its plugin manager's `_cli_ref`) already holds the resumed id.
        ctx = FakeCtx()
        _, bridge = self.load_bridge(ctx, HMC_SIDECAR_COMMAND=fake_sidecar_command())
        seen = []
        real = bridge.sidecar.call
        bridge.sidecar.call = lambda method, params, timeout=None: seen.append((method, params)) or real(method, params, timeout)
        cli = types.SimpleNamespace(session_id="resumed-1", agent=None)
        manager = types.SimpleNamespace(_cli_ref=cli)
        self.hermes_cli.plugins.get_plugin_manager = lambda: manager
        ctx.commands["hmc"]("status")
        bridge.hmc_control({"action": "stats"})  # a call without a session id (a plugin's dispatch_tool)
        assert [p["session_id"] for _, p in seen] == ["resumed-1", "resumed-1"]
        # Once the agent is built its id is the one hooks use (a compression may have moved it on).
        cli.agent = types.SimpleNamespace(session_id="moved-on")
        ctx.commands["hmc"]("status")
        assert seen[-1][1]["session_id"] == "moved-on"
        # Outside the CLI (gateway, -q) there is no reference: the last session a hook named.
        manager._cli_ref = None
        FakeHermes(ctx, "hooked").run_turn(*TURNS[0])
        ctx.commands["hmc"]("status")
        assert seen[-1][1]["session_id"] == "hooked"
        # A Hermes whose plugin manager cannot be asked fails open to the same.
        self.hermes_cli.plugins.get_plugin_manager = lambda: (_ for _ in ()).throw(RuntimeError("no manager"))
        ctx.commands["hmc"]("status")
        assert seen[-1][1]["session_id"] == "hooked"

    @needs_node
    @needs_build
    def test_a_gateway_sender_is_the_owner_of_its_session(self):
        # Issue 19, finding 4: Hermes names the sender with pre_llm_call (platform, sender_id); the
        # sidecar keeps it as the session's owner, so users never read each other's index.
        _, bridge = self.load_bridge(FakeCtx())
        for sid, sender in (("tg-a", "1001"), ("tg-b", "2002")):
            bridge.pre_llm_call(session_id=sid, conversation_history=[{"role": "user", "content": "hi"}], model="m", platform="telegram", sender_id=sender)
            bridge.on_session_finalize(session_id=sid, platform="telegram", reason="shutdown")
        files = [self.home / "hmc_state" / "sessions" / ("%s.json" % sid) for sid in ("tg-a", "tg-b")]
        deadline = time.time() + 10
        while not all(f.exists() for f in files) and time.time() < deadline:
            time.sleep(0.05)
        owners = [(json.loads(f.read_text())["platform"], json.loads(f.read_text())["user"]) for f in files]
        assert owners == [("telegram", "1001"), ("telegram", "2002")], owners
        answer = json.loads(bridge.hmc_control({"action": "index", "session": "tg-a"}, session_id="tg-b"))
        assert answer.get("count") == 0 and answer.get("entries") == [], answer


if __name__ == "__main__":
    unittest.main()
