"""Input clearing inside a real Hermes (issue 15): an answered `write_file` call, once older than
the calls kept whole, reaches the model with short arguments (its path, its size, a recall id),
while Hermes' stored history (state.db) keeps the raw arguments and the file on disk is what the
model wrote; `hmc_control action=recall` gives the exact arguments back. Once per Hermes install:
0.19 edits the request through `llm_request` middleware, 0.16 through `pre_api_request`.
"""
import json
import shutil
import sqlite3
import subprocess
import unittest

from harness import REPO
from hermes_runs import INSTALLS, Sandbox, needs_hermes

BIG = "\n".join("VALUE_%03d = %d  # a line of the generated module" % (i, i * 7) for i in range(200)) + "\n"
SCRIPT = {"W1": [("write_file", {"path": "big.py", "content": BIG}), ("terminal", {"command": "python3 big.py"}),
                 ("terminal", {"command": "wc -l big.py"}), ("terminal", {"command": "ls"}), ("terminal", {"command": "echo done"})]}
# Rewrites of messages already sent allowed at every call, so the clearing shows in one short turn.
HMC_CONFIG = "cache:\n  min_batch_tokens: 0\n  max_breaks_per_100_calls: 100\n  first_break_after: 0\n"


def write_args(request):
    """The arguments of the write_file call as this request sent them (None: not in it)."""
    for m in request["body"].get("messages") or []:
        for call in m.get("tool_calls") or []:
            if (call.get("function") or {}).get("name") == "write_file":
                return json.loads(call["function"]["arguments"])
    return None


@needs_hermes
class InputClearingInHermes(unittest.TestCase):
    def test_a_write_goes_out_short_and_is_kept_raw(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                box = Sandbox(self, install, SCRIPT, {}, HMC_CONFIG)
                rc, out, err, session = box.run_q("W1: write the module and check it")
                self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
                self.assertEqual((box.work / "big.py").read_text(), BIG)
                sent = [write_args(r) for r in box.server.requests]
                sent = [a for a in sent if a is not None]
                self.assertEqual(sent[0], {"path": "big.py", "content": BIG})  # the call's own step: whole
                short = sent[-1]
                self.assertEqual(short.get("path"), "big.py", short)
                self.assertNotIn("content", short)
                self.assertEqual(short["cleared"], {"content": "200 lines, %d characters" % len(BIG)})
                # What Hermes stored is the raw call.
                db = sqlite3.connect(box.home / "state.db")
                try:
                    rows = [r[0] for r in db.execute("SELECT tool_calls FROM messages WHERE session_id=? AND role='assistant' AND tool_calls IS NOT NULL", (session,))]
                finally:
                    db.close()
                stored = [json.loads(c["function"]["arguments"]) for r in rows for c in json.loads(r) if c["function"]["name"] == "write_file"]
                self.assertEqual(stored, [{"path": "big.py", "content": BIG}])
                # Recall gives the exact arguments back (another process: the copy is in the state dir).
                rid = short["original"].rsplit("id=", 1)[1]
                out = subprocess.run([shutil.which("node"), str(REPO / "bin" / "hmc.js"), "control", "recall", "id=" + rid, "--session", session,
                                      "--state-dir", str(box.state)], capture_output=True, text=True, timeout=60)
                recalled = json.loads(out.stdout)
                self.assertEqual(json.loads(recalled["arguments"]), {"path": "big.py", "content": BIG})


if __name__ == "__main__":
    unittest.main()
