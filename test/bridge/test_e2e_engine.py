"""HMC as Hermes' context engine in a real Hermes (issue 16): `context.engine: hmc` in a 64 K
window, Hermes' compression on (threshold 0.5), on the long layer-1 session (long_session.py) made
longer by three turns of big appendix notes, then a question about turn 1.

Three runs per Hermes install, one process per turn (`hermes chat -q`):
- without HMC: where Hermes' own compressor first fires, and what its summaries cost;
- HMC as the engine: Hermes logs `Using context engine: hmc`; HMC's compaction replaces Hermes'
  (no request of Hermes' compressor); the first compaction comes later in model calls; what the
  summaries cost (layer 1's and the compaction's); the fact from turn 1 is answered at the end
  through a recall of the compaction's summary; `hmc_control` is offered once though both the
  plugin's tool and the engine's schema are asked for; state.db keeps every turn and the archived
  raw rows (0.19 compacts in place);
- the same with the sidecar killed halfway and kept from starting again: Hermes' built-in
  compressor takes over (one log line), every turn is answered, state.db stays whole.
Figures are printed (docs/hermes.md "HMC as Hermes' context engine").
"""
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import unittest
from pathlib import Path

import long_session as L
from harness import REPO
from hermes_runs import INSTALLS, Sandbox, needs_hermes, sidecar_children
from model_server import AGENT, HERMES_SUMMARY, HMC_SUMMARY

WINDOW = 64000
HMC_CONFIG = ("strategies:\n  clearing:\n    enabled: false\n"
              "cache:\n  min_batch_tokens: 0\n  max_breaks_per_100_calls: 100\n  first_break_after: 0\n")
ENGINE = "context:\n  engine: hmc\n"
FACT = "LOG_LEVEL"  # deploy.env, printed by turn 1's first tool call
SUMMARY_HEAD = "[Summary of earlier work"


def appendix(n):
    """A long note of about 14,000 characters, unlike every other file (its own words and seed)."""
    rng = random.Random(4000 + n)
    words = L._WORDS
    lines = ["# Appendix %02d: operations review" % n, ""]
    for section in range(12):
        lines += ["## Part %d" % (section + 1), ""]
        for _ in range(3):
            lines.append(" ".join(rng.choice(words) for _ in range(60)) + ".")
            lines.append("")
    return "\n".join(lines)


APPENDICES = {"docs/appendix/%02d.md" % n: appendix(n) for n in range(1, 13)}
_APPX = sorted(APPENDICES)


def _seek(messages):
    """The last turn's steps, as an agent asked about turn 1 would take them: recall the latest
    summary's phase; when a recalled page names an earlier phase (the summary it replaced), go to
    that one first, since turn 1 is older still; else read the recall's next page; until the fact
    from turn 1 is found, then answer it; with nothing left to recall, say so."""
    last = messages[-1] if messages else {}
    asked = {json.dumps(json.loads(c["function"]["arguments"]), sort_keys=True) for m in messages for c in m.get("tool_calls") or []
             if c["function"]["name"] == "hmc_control"}
    if last.get("role") == "tool":
        content = last.get("content") or ""
        found = re.search(FACT + r"=(\w+)", content)
        if found:
            return "The log level in the deployment settings is %s." % found.group(1)
        for rid in re.findall(r"recall id=(r[0-9a-f]{10})", content):
            args = {"action": "recall", "id": rid}
            if json.dumps(args, sort_keys=True) not in asked:
                return ("hmc_control", args)
        page = re.search(r'"next": "recall id=(r[0-9a-f]{10}) messages=(\d+-\d+)"', content)
        if page:
            return ("hmc_control", {"action": "recall", "id": page.group(1), "messages": page.group(2)})
    for m in reversed(messages):
        for rid in re.findall(r"recall id=(r[0-9a-f]{10})", m.get("content") or ""):
            args = {"action": "recall", "id": rid}
            if json.dumps(args, sort_keys=True) not in asked:
                return ("hmc_control", args)
    return "The deployment settings of turn 1 are no longer in this conversation."


# The model server finds a turn's script by a marker in its text: these four never occur in another turn's.
SCRIPT = dict(L.SCRIPT, **{
    "X1": [("read_file", {"path": p}) for p in _APPX[0:4]],
    "X2": [("read_file", {"path": p}) for p in _APPX[4:8]],
    "X3": [("read_file", {"path": p}) for p in _APPX[8:12]],
    "X4": [_seek] * 12,
})
TURNS = L.TURNS + ["X1: read the first appendices", "X2: read the next appendices", "X3: read the last appendices",
                   "X4: what was the log level in the deployment settings of turn 1?"]


def run(case, install, hmc, engine, turns, during=None, sidecar_command=None):
    box = Sandbox(case, install, dict(SCRIPT), dict(L.files(), **APPENDICES), HMC_CONFIG if hmc else None, hmc=hmc,
                  context_length=WINDOW, compression={"threshold": 0.5}, real_usage=True,
                  toolsets="file,terminal,hmc_tools,context_engine" if engine else "file,terminal,hmc_tools",
                  hermes_config=ENGINE if engine else "")
    if sidecar_command:
        box.env["HMC_SIDECAR_COMMAND"] = json.dumps(sidecar_command(box))
    session, errs = None, []
    for n, text in enumerate(turns):
        argv = box.argv(*(["--resume", session] if session else []), *(["-v"] if n == 0 else []), "-Q", "-q", text)
        proc = subprocess.Popen(argv, cwd=box.work, env=box.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if during:
            box.server.on_request = lambda user, step, pid=proc.pid: during(box, pid, user, step)
        out, err = proc.communicate(timeout=300)
        session = next((line.split("session_id:", 1)[1].strip() for line in err.splitlines() if "session_id:" in line), session)
        case.assertEqual(proc.returncode, 0, "%s: %s" % (text, err[-3000:]))
        case.assertTrue(out.strip(), "%s: no answer; %s" % (text, err[-2000:]))
        errs.append(err)
    return box, session, errs


def first_drop(requests):
    """Agent model calls made before the first compaction: the first request that sends fewer
    messages than the one before it (a compaction rewrote the history), or None."""
    agent = [r for r in requests if r["kind"] == AGENT]
    return next((i for i in range(1, len(agent)) if len(agent[i]["messages"]) < len(agent[i - 1]["messages"])), None)


def summary_cost(requests, kind):
    """The summary requests of `kind`, their rough size in tokens (characters / 4 of what was sent)."""
    return sum(len(r["raw"]) // 4 for r in requests if r["kind"] == kind)


def state_rows(home):
    db = sqlite3.connect(Path(home) / "state.db")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        cols = {row[1] for row in db.execute("PRAGMA table_info(messages)")}
        active = "active" if "active" in cols else "1"
        return db.execute("SELECT session_id, role, content, %s FROM messages ORDER BY timestamp, id" % active).fetchall()
    finally:
        db.close()


@needs_hermes
class EngineInRealHermes(unittest.TestCase):
    def test_hmc_as_the_context_engine(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                self.check(install)

    def check(self, install):
        plain, _, _ = run(self, install, hmc=False, engine=False, turns=L.TURNS)
        box, session, errs = run(self, install, hmc=True, engine=True, turns=TURNS)
        requests = box.server.requests

        self.assertIn("Using context engine: hmc", errs[0])
        # HMC compacted; Hermes' own compressor never ran.
        self.assertFalse([r for r in requests if r["kind"] == HERMES_SUMMARY], "Hermes' compressor ran beside the engine")
        rows = state_rows(box.home)
        stored = [r for r in rows if r[1] in ("user", "assistant") and (r[2] or "").startswith(SUMMARY_HEAD)]
        engine_first = first_drop(requests)
        threshold = hermes_threshold(install)
        biggest = max(u[1] for u in self.usage_rows(box))
        if install["version"] >= "0.19":
            self.assertIsNotNone(engine_first, "the conversation was never compacted")
        if engine_first is None:
            # Hermes 0.16 compacts at its whole window here (its floor is 64 K tokens): HMC kept what it sends under it.
            self.assertLess(biggest, threshold)
        else:
            self.assertTrue(stored, "no compaction summary in state.db")
        # hmc_control is offered once, though the plugin's tool and the engine's schema are both asked for.
        for r in requests:
            if r["kind"] == AGENT:
                self.assertEqual(r["tools"].count("hmc_control"), 1, r["tools"])
        # The fact from turn 1, answered at the end through a recall of a summarised phase.
        final = [r[2] for r in rows if r[1] == "assistant" and r[2]][-1]
        asked = [r for r in requests if r["kind"] == AGENT and r["user"].startswith("X4:")]
        self.assertEqual(final, "The log level in the deployment settings is info.", "the last turn saw: %s" % json.dumps(
            [(m["role"], (m.get("content") or "")[:300]) for m in asked[-1]["messages"][1:]])[:6000])
        recalled = [r[2] for r in rows if r[1] == "tool" and FACT + "=info" in (r[2] or "") and '"phase": true' in (r[2] or "")]
        self.assertTrue(recalled, "the fact did not come back through a recall")
        # state.db: every turn's question is there; with 0.19 the compacted rows are archived, not gone.
        users = [r[2] for r in rows if r[1] == "user"]
        for text in TURNS:
            self.assertTrue(any(text in (u or "") for u in users), text)
        # A summary is never stored as a tool row (a recall's answer may quote an earlier summary among the phase's messages).
        self.assertFalse([r for r in rows if r[1] == "tool" and (r[2] or "").startswith(SUMMARY_HEAD)], "an HMC summary in a tool row")

        plain_first, hermes_cost = first_drop(plain.server.requests), summary_cost(plain.server.requests, HERMES_SUMMARY)
        hmc_cost = summary_cost(requests, HMC_SUMMARY)
        x1 = next(i for i, r in enumerate(requests) if r["kind"] == AGENT and r["user"].startswith("X1:"))
        hmc_cost_to_8 = summary_cost(requests[:x1], HMC_SUMMARY)  # the turns the run without HMC has
        self.assertIsNotNone(plain_first, "Hermes' compressor never fired without HMC")
        self.assertGreater(engine_first if engine_first is not None else len(requests), plain_first)
        usage = self.usage_rows(box)
        self.assertGreater(len(usage), 40)
        self.assertTrue(all(u[0] == box.server.model for u in usage))

        # The sidecar killed halfway (turn 6) and kept from starting again.
        killed, _, kerrs = run(self, install, hmc=True, engine=True, turns=L.TURNS, during=kill_in("L6"), sidecar_command=blocked_sidecar)
        krows = state_rows(killed.home)
        kusers = [r[2] for r in krows if r[1] == "user"]
        for text in L.TURNS:
            self.assertTrue(any(text in (u or "") for u in kusers), text)
        self.assertTrue([r for r in killed.server.requests if r["kind"] == HERMES_SUMMARY], "Hermes' compressor did not take over")
        logs = killed.home / "logs"
        log = "\n".join(kerrs + [f.read_text(errors="replace") for f in sorted(logs.glob("*.log"))] if logs.is_dir() else kerrs)
        self.assertIn("Hermes' built-in compressor", log)
        agent_calls = sum(1 for r in requests if r["kind"] == AGENT)
        print("\nHermes %s, window %d (Hermes compacts at %d), context.engine: hmc: model calls before the first compaction: %d "
              "without HMC (Hermes' compressor, %d tokens of summary requests over turns 1-8), %s with HMC as the engine (%d "
              "tokens of summary requests over turns 1-8, %d over the 12 turns, layer 1 and compactions, none by Hermes' "
              "compressor; largest request the provider counted %d); the turn-1 fact answered through a recall; %d provider "
              "usage rows; sidecar killed at turn 6: Hermes' compressor took over (%d of its summary requests), all %d turns "
              "answered, state.db intact"
              % (install["version"], WINDOW, threshold, plain_first, hermes_cost,
                 engine_first if engine_first is not None else "none in %d" % agent_calls, hmc_cost_to_8, hmc_cost, biggest, len(usage),
                 len([r for r in killed.server.requests if r["kind"] == HERMES_SUMMARY]), len(L.TURNS)))

    @staticmethod
    def usage_rows(box):
        db = sqlite3.connect(box.state / "analytics.db")
        try:
            return db.execute("SELECT model, prompt_tokens, cache_read_tokens, hmc_input FROM provider_usage ORDER BY session_id, seq").fetchall()
        finally:
            db.close()



def kill_in(turn):
    """Kills the sidecar at the third model call of `turn` and keeps it from starting again."""
    def during(box, pid, user, step):
        if user.startswith(turn + ":") and step == 2:
            (box.state.parent / "no-sidecar").write_text("blocked by the test")
            for child in sidecar_children(pid):
                os.kill(child, signal.SIGKILL)
    return during


def hermes_threshold(install):
    """Where Hermes' built-in compressor fires for this window and compression.threshold 0.5 (its own code)."""
    code = ("from agent.context_compressor import ContextCompressor as C\n"
            "print(C(model='m', threshold_percent=0.5, config_context_length=%d, quiet_mode=True, base_url='http://127.0.0.1:9/v1', provider='custom').threshold_tokens)" % WINDOW)
    out = subprocess.run([install["python"], "-c", code], capture_output=True, text=True, timeout=120)
    return int(out.stdout.strip().splitlines()[-1])


def blocked_sidecar(box):
    """The sidecar command: the real sidecar, until the test drops a flag file; then it cannot start."""
    flag = box.state.parent / "no-sidecar"
    real = [shutil.which("node"), str(REPO / "bin" / "hmc.js"), "sidecar", "--stdio", "--state-dir", str(box.state),
            "--config", str(box.state.parent.parent / "hmc-config.yaml")]
    code = "import os,sys\nif os.path.exists(%r): sys.exit('sidecar blocked by the test')\nos.execv(%r, %r)" % (str(flag), real[0], real)
    return [sys.executable, "-c", code]


if __name__ == "__main__":
    unittest.main()
