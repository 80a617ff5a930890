"""Issue 26, finding 5, through the bridge and the real sidecar: two gateway senders on one Hermes
process. Bob's `hmc_control analytics` (every period and scope) and `/hmc analytics` answer nothing
of Alice's sessions: no session id, project path, model or figure of hers."""
import json
import sqlite3
import time

from harness import BridgeCase, needs_build, needs_node
from fake_host import FakeCtx

PERIODS = ["all", "day", "week", "month", "recent", "project", "tool", "strategy", "model", "output", "work"]
ALICE = ["alice-sess", "/srv/alice", "alice-model-x", "1001"]


@needs_node
@needs_build
class GatewayOwners(BridgeCase):
    def test_bob_sees_none_of_alice_in_any_period_or_scope(self):
        _mod, bridge = self.load_bridge(FakeCtx())
        people = {"alice-sess": ("1001", "/srv/alice/payroll", "alice-model-x"), "bob-sess": ("2002", "/srv/bob/web", "bob-model-y")}
        for sid, (sender, project, model) in people.items():
            bridge.pre_llm_call(session_id=sid, conversation_history=[{"role": "user", "content": "hello from %s" % sid}], model=model,
                                platform="telegram", sender_id=sender, project_path=project, user_message="hi")
            bridge.pre_tool_call(session_id=sid, tool_name="terminal", args={"command": "ls"}, tool_call_id=sid + "-c1")
            bridge.post_tool_call(session_id=sid, tool_name="terminal", args={"command": "ls"}, tool_call_id=sid + "-c1", result="x\n" * 3000)
            bridge.on_session_end(session_id=sid, completed=True, interrupted=False)
        owners, deadline = {}, time.monotonic() + 10
        while len(owners) < 2 and time.monotonic() < deadline:  # the records are written in the background
            time.sleep(0.1)
            try:
                db = sqlite3.connect(self.home / "hmc_state" / "analytics.db")
                owners = dict(db.execute("SELECT id, owner FROM sessions").fetchall())
                db.close()
            except sqlite3.Error:
                pass
        self.assertEqual(owners, {"alice-sess": "telegram:1001", "bob-sess": "telegram:2002"})
        own = 0
        for period in PERIODS:
            for scope in ("global", "project"):
                answer = bridge.hmc_control({"action": "analytics", "period": period, "scope": scope}, session_id="bob-sess")
                self.assertNotIn("error", json.loads(answer), answer)
                for secret in ALICE:
                    self.assertNotIn(secret, answer, "%s %s" % (period, scope))
                own += "bob-sess" in answer or "/srv/bob" in answer or "bob-model-y" in answer
        self.assertGreaterEqual(own, 4)
        alice = bridge.hmc_control({"action": "analytics", "period": "recent"}, session_id="alice-sess")
        self.assertIn("alice-sess", alice)
        self.assertNotIn("bob-sess", alice)
