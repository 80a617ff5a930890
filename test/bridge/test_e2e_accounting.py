"""HMC's figures against the wire, in a real Hermes (issue 9): the model server records every
request; each is re-tokenised by the engine's own rule (`requestTokens`: every message, the system
prompt included, plus the tool schemas), raw (the tool results as Hermes stored them in state.db)
and as sent. HMC's per-call figures (its session file), per-turn figures (its timeline) and turn
events (`delta_saved`, `input_tokens`) must equal them exactly: one process per turn
(`hermes chat -Q -q … --resume`) and one long interactive process driven through a pty, for each
Hermes install. Dedup and error purge apply during the session. Prints the figures per turn.
"""
import copy
import json
import unittest

from harness import REPO
from hermes_runs import INSTALLS, Sandbox, needs_hermes, wire_tokens

SOURCE = "service.py"
SERVICE = "\n".join(['"""A service module for the accounting test."""', "import json", ""] + sum(
    [["def handler_%d(request):" % i, '    """Handles request kind %d."""' % i] + ["    value_%d = request.get('k%d', %d) * %d" % (j, j, j, i) for j in range(10)]
     + ["    return json.dumps({'kind': %d, 'total': value_9})" % i, ""] for i in range(40)], [])) + "\n"
TESTS = "\n".join(["import os, unittest", "", "class T(unittest.TestCase):"]
                  + ["    def test_%03d(self):\n        self.assertEqual(%d, %d)" % (i, i, i) for i in range(120)]
                  + ["    def test_fix(self):\n        self.assertEqual(os.environ.get('FIXED', '0'), '1', 'the bug is still there')",
                     "", "if __name__ == '__main__':", "    unittest.main()", ""])
FAILING = "python3 -m unittest -v test_mod"
PASSING = "FIXED=1 python3 -m unittest -v test_mod"
READ = ("read_file", {"path": SOURCE, "limit": 2000})
SCRIPT = {
    "A1": [READ, ("terminal", {"command": FAILING}), ("terminal", {"command": PASSING})],
    # The same read and the same passing run again (dedup); the failure of A1 is now old (error purge).
    "A2": [READ, ("terminal", {"command": PASSING}), ("hmc_control", {"action": "stats"})],
    "A3": [("terminal", {"command": "ls -la"}), ("read_file", {"path": "test_mod.py"})],
    "A4": [("terminal", {"command": PASSING})],
}
TURNS = ["A1: fix the failing test", "A2: read it again and check", "A3: look around", "A4: run the tests once more"]
# Rewrites of messages already sent allowed at every call (no break budget, no price threshold),
# so dedup and error purge show in four turns.
HMC_CONFIG = ("strategies:\n  purge_errors:\n    turns: 1\ncache:\n  min_batch_tokens: 0\n  max_breaks_per_100_calls: 100\n"
              "  first_break_after: 0\n  ttl_seconds: 1\n")


def raw_request(body, raw_results):
    """The request as Hermes would send it without HMC: every tool result as state.db holds it."""
    raw = copy.deepcopy(body)
    for m in raw["messages"]:
        if m.get("role") == "tool" and m.get("tool_call_id") in raw_results:
            m["content"] = raw_results[m["tool_call_id"]].strip()
    return raw


@needs_hermes
class AccountingAgainstTheWire(unittest.TestCase):
    def test_one_process_per_turn(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                box = Sandbox(self, install, SCRIPT, {SOURCE: SERVICE, "test_mod.py": TESTS}, HMC_CONFIG)
                session = None
                for text in TURNS:
                    rc, out, err, session = box.run_q(text, session)
                    self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
                self.check(box, session, "one process per turn")

    def test_one_interactive_process(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                box = Sandbox(self, install, SCRIPT, {SOURCE: SERVICE, "test_mod.py": TESTS}, HMC_CONFIG)
                hermes = box.interactive()
                try:
                    hermes.wait_for("❯", 120)
                    status = hermes.say("/hmc status", r"HMC \[[a-z]+\][^\n]*\n")
                    # A brand-new session: no earlier session's figures (issue 9, item 5).
                    self.assertIn("no model call in this session yet", status)
                    for n, text in enumerate(TURNS, 1):
                        # The turn is over when HMC has sent its turn event (on_session_end).
                        hermes.say(text, lambda: any(e["turn"] == n for e in box.events(None, "turn")), 240)
                    status = hermes.say("/hmc status", r"input saved by strategy:[^\n]*\n")
                    session = hermes.quit()
                finally:
                    hermes.close()
                self.assertTrue(session, hermes.text()[-2000:])
                figures = self.check(box, session, "one interactive process")
                self.assertIn("saved: %s" % _short(figures["saved"]), status)
                # The two named figures (docs/glossary.md): input saved over the session's model calls, context saved now.
                self.assertIn("input saved: %s tokens over %d model calls" % (_short(figures["saved"]), len(box.hmc_session(session)["ledger"]["calls"])), status)
                self.assertIn("context saved now:", status)
                # /quit finalizes (reason "shutdown") as the process exits: the session is idle, to
                # be resumed, not ended (issue 17, finding 4).
                self.assertIsNone(box.hmc_session(session)["ended_at"])
                self.assertEqual(len(box.events(session, "session_idle")), 1, "one session_idle when the user quits")
                self.assertEqual(box.events(session, "session_end"), [], "quitting is not the session's end")

    def check(self, box, session, mode):
        requests = [r["body"] for r in box.server.requests if r["body"].get("tools")]
        stored = {cid: content for cid, (_, content) in box.stored_tools(session).items()}
        sent = wire_tokens(requests)
        raw = wire_tokens([raw_request(b, stored) for b in requests])
        turns = [sum(1 for m in b["messages"] if m.get("role") == "user") for b in requests]
        hmc = box.hmc_session(session)["ledger"]
        # Per call: HMC counted every request, the last of the session too, as the wire has it.
        self.assertEqual([(c["turn"], c["raw"], c["hmc"]) for c in hmc["calls"]], list(zip(turns, raw, sent)))
        # Per turn: the timeline and the turn events.
        wire_turns = {}
        for t, r, s in zip(turns, raw, sent):
            w = wire_turns.setdefault(t, [0, 0, 0])
            w[0], w[1], w[2] = w[0] + 1, w[1] + r, w[2] + s
        self.assertEqual({p["turn"]: (p["input_raw"], p["input_hmc"]) for p in hmc["timeline"]}, {t: (w[1], w[2]) for t, w in wire_turns.items()})
        events = {e["turn"]: e for e in box.events(session, "turn")}
        self.assertEqual({t: e["delta_saved"] for t, e in events.items()}, {t: w[1] - w[2] for t, w in wire_turns.items()})
        self.assertEqual(events[max(events)]["input_tokens"], {"raw": sum(raw), "hmc": sum(sent)})
        # Dedup and error purge applied in this session, and their savings are part of what was measured.
        self.assertGreater(hmc["byStrategy"].get("dedup", 0), 0, hmc["byStrategy"])
        self.assertGreater(hmc["byStrategy"].get("error_purge", 0), 0, hmc["byStrategy"])
        rows = ["%s, Hermes %s, session %s: per turn (calls: HMC raw/sent = wire raw/sent):" % (mode, box.install["version"], session)]
        rows += ["  turn %d (%d calls): %d/%d = %d/%d, saved %d" % (t, w[0], hmc_t[0], hmc_t[1], w[1], w[2], w[1] - w[2])
                 for t, w in sorted(wire_turns.items()) for hmc_t in [next((p["input_raw"], p["input_hmc"]) for p in hmc["timeline"] if p["turn"] == t)]]
        rows.append("  session: %d calls, %d/%d = %d/%d, saved %d (%.1f%%); by strategy %s" % (
            len(requests), hmc["inputRaw"], hmc["inputHmc"], sum(raw), sum(sent), sum(raw) - sum(sent),
            100.0 * (sum(raw) - sum(sent)) / max(1, sum(raw)), json.dumps(hmc["byStrategy"], sort_keys=True)))
        print("\n" + "\n".join(rows))
        self.assertEqual((hmc["inputRaw"], hmc["inputHmc"]), (sum(raw), sum(sent)))
        return {"saved": sum(raw) - sum(sent)}


def _short(n):
    """The status line's rounding (src/engine/control/control.ts fmt)."""
    return "%.1fK" % (n / 1000) if n >= 1000 else str(n)


if __name__ == "__main__":
    unittest.main()
