"""A session's life in a real Hermes, as a user lives it (issue 17, findings 1, 2 and 4): two
`hermes chat -q` turns, then `hermes chat --resume` in a pseudo-terminal, once per Hermes install
(hermes_runs.py).

- Recall through Hermes' own tool call: the model asks `hmc_control action=recall` for lines of a
  log HMC cut, and the next request carries the answer byte for byte as Hermes stored it, never
  compressed and never counted as a saving.
- Between processes the session is idle, not ended: no `session_end` event and no `ended_at` after
  each `-q` process, one `session_idle` event per process.
- `/hmc` right after a restart: `--resume ID`, then before any message `/hmc status`, `/hmc stats`
  and `/hmc recall id=…` answer about that session, with its figures.
- One end per real end: `/new` ends the session (one `session_end` event, `ended_at` set).
"""
import json
import re
import time
import unittest

from hermes_runs import INSTALLS, Sandbox, needs_hermes

TESTS = "\n".join(["import unittest", "", "class T(unittest.TestCase):"]
                  + ["    def test_%03d(self):\n        self.assertEqual(%d, %d)" % (i, i, i) for i in range(150)]
                  + ["", "if __name__ == '__main__':", "    unittest.main()", ""])
RUN = "python3 -m unittest -v test_mod"
SCRIPT = {"T1": [("terminal", {"command": RUN})]}  # T2's recall is scripted once T1 printed its id
RECALL_ID = re.compile(r"recall id=(r[0-9a-f]{10})")


def _short(n):
    """The status line's rounding (src/engine/control/control.ts fmt)."""
    return "%.1fK" % (n / 1000) if n >= 1000 else str(n)


@needs_hermes
class SessionLifeInHermes(unittest.TestCase):
    def test_recall_resume_and_one_end(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                self.live(Sandbox(self, install, dict(SCRIPT), {"test_mod.py": TESTS}))

    def live(self, box):
        held = []
        server = box.server

        # Turn 1 (its own process): a long test log, cut with a recall id in its marker.
        rc, out, err, session = box.run_q("T1: run the tests")
        self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
        (log_id, (_, log_row)), = box.stored_tools(session).items()
        last = [r for r in server.requests if r["user"].startswith("T1")][-1]
        sent_log = next(m["content"] for m in last["body"]["messages"] if m.get("tool_call_id") == log_id)
        found = RECALL_ID.search(sent_log)
        self.assertTrue(found and len(sent_log) < len(log_row), "the log must go out cut, with a recall id: %r" % sent_log[:600])
        recall_id = found.group(1)

        # Turn 2 (a new process): the model recalls lines 1-20 through Hermes' own tool call.
        server.script["T2"] = [("hmc_control", {"action": "recall", "id": recall_id, "lines": "1-20"})]
        rc, out, err, _ = box.run_q("T2: show me the first lines", session)
        self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
        stored = box.stored_tools(session)
        (call_id, (_, answer_row)), = [(cid, row) for cid, row in stored.items() if row[0] == "hmc_control"]
        answer = json.loads(answer_row)
        raw_lines = json.loads(log_row)["output"].split("\n")
        self.assertEqual(answer.get("content"), "\n".join(raw_lines[:20]), answer)
        after = [r for r in server.requests if r["user"].startswith("T2") and r["step"] == 1]
        self.assertTrue(after, "no model call after the recall")
        got = next(m["content"] for m in after[0]["body"]["messages"] if m.get("tool_call_id") == call_id)
        self.assertEqual(got, answer_row, "the model must get the recall exactly as Hermes stored it")
        held.append("recall byte-exact through Hermes' tool call (%d chars)" % len(answer_row))
        own = [e for e in box.events(session, "tool") if e["tool_name"] == "hmc_control"]
        self.assertTrue(own and all(e["strategies"] == [] and e["tokens_after"] == e["tokens_before"] for e in own), own)
        ledger = box.hmc_session(session)["ledger"]
        self.assertNotIn("hmc_control", ledger.get("byTool", {}))
        held.append("hmc_control never counted as saved")

        # Between the two processes and after them: idle, never ended.
        self.assertEqual(box.events(session, "session_end"), [], "a -q process exit is not the session's end")
        self.assertEqual(len(box.events(session, "session_idle")), 2, "one session_idle per -q process")
        self.assertIsNone(box.analytics_session(session)["ended_at"])
        self.assertIsNone(box.hmc_session(session)["ended_at"])
        held.append("idle between -q processes (2 session_idle, 0 session_end)")

        # --resume, and /hmc before any message: that session's figures and recall.
        saved = ledger["inputRaw"] - ledger["inputHmc"]
        hermes = box.interactive("--resume", session)
        try:
            hermes.wait_for("❯", 120)
            status = hermes.say("/hmc status", r"input saved by strategy:[^\n]*\n|no model call[^\n]*\n|Could not[^\n]*\n")
            self.assertIn("saved: %s tokens" % _short(saved), status)
            held.append("/hmc status after --resume: saved %s" % _short(saved))
            # Text for a person (issue 27, finding 3), the tool's JSON with --json.
            stats = hermes.say("/hmc stats", r"cache breaks +\d+[^\n]*\n|hmc: [^\n]*\n")
            self.assertIn("HMC stats, session %s" % session, stats)
            self.assertRegex(stats, r"input saved +[\d,]+ +[\d.]+%")
            held.append("/hmc stats after --resume, as text")
            recalled = hermes.say("/hmc recall id=%s lines=1-3 --json" % recall_id, r"\n\}\s*\n|hmc: [^\n]*\n")
            self.assertIn(json.dumps(raw_lines[0])[1:-1], recalled)
            held.append("/hmc recall after --resume")
            hermes.say("T3: thanks", lambda: any(e["turn"] == 3 for e in box.events(session, "turn")), 240)
            # 0.19 asks before it discards the conversation (Approve Once is 1); 0.16 does not ask.
            if "Approve Once" in hermes.say("/new", r"New session started|Approve Once"):
                hermes.say("1", r"New session started")
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not box.events(session, "session_end"):
                time.sleep(0.3)
            hermes.quit()
        finally:
            hermes.close()
        self.assertEqual(len(box.events(session, "session_end")), 1, "/new ends the session once")
        self.assertIsNotNone(box.analytics_session(session)["ended_at"])
        self.assertEqual(len(box.events(session, "session_idle")), 2, "the real end is no idle")
        held.append("/new: one session_end, ended_at set")
        print("\nLifecycle (Hermes %s) held: %s" % (box.install["version"], "; ".join(held)))


if __name__ == "__main__":
    unittest.main()
