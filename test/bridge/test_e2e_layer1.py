"""Layer 1 in a real Hermes (issue 10): a long scripted session (long_session.py: eight turns
reading 32 design notes and two files of fake credentials) in a 64 K window, once without HMC and
once with it, Hermes' own compressor on in both, the model server answering the agent, HMC's
summariser (`ctx.llm`) and Hermes' compressor, and reporting each request's size as its prompt
tokens (as a provider does). With HMC, clearing of old outputs is off (it keeps this session so
small that layer 1 never has to act) and the cache-break budget is open (the session is 45 calls,
the default first break waits for 55).

Shows, per Hermes install: layer 1 fired before Hermes' compressor and its summary went out;
Hermes' stored session (state.db) holds every tool result raw; the index (`hmc_control index`
through Hermes' own tool call) lists the phase; a recall gives its exact messages back; no seeded
secret reached a summariser request or a stored summary; and at which model call Hermes' own
compressor fired, with HMC and without (printed; docs/hermes.md "Layer 1 beside Hermes'
compressor").
"""
import json
import re
import sqlite3
import subprocess
import unittest
from pathlib import Path

import long_session as L
from harness import REPO
from hermes_runs import INSTALLS, Sandbox, needs_hermes
from model_server import AGENT, HERMES_SUMMARY, HMC_SUMMARY

WINDOW = 64000
HMC_CONFIG = ("strategies:\n  clearing:\n    enabled: false\n"
              "cache:\n  min_batch_tokens: 0\n  max_breaks_per_100_calls: 100\n  first_break_after: 0\n")
# Hermes' compressor replaces an old tool result by a line such as "[read_file] read docs/a.md from line 1 (7,710 chars)".
HERMES_STAND_IN = re.compile(r"^\[(read_file|terminal)\] ")
MARKERS = ("[Summary of earlier work", "[summarised]", "recall id=", "[compressed", "cleared to save context")


def stored_rows(home):
    """Every message row Hermes stored, in every session of the sandbox (its compressor may start a
    continuation session): [(session, role, tool_call_id, content)]."""
    db = sqlite3.connect(Path(home) / "state.db")
    try:
        return db.execute("SELECT session_id, role, tool_call_id, content FROM messages ORDER BY timestamp, id").fetchall()
    finally:
        db.close()


def compressions(server):
    """How many model calls the agent loop made, and where Hermes' own compressor fired: for each
    of its summary requests, (the number of the next model call, its turn, its call in the turn)."""
    calls, fired, pending = 0, [], False
    for r in server.requests:
        if r["kind"] == HERMES_SUMMARY:
            pending = True
        elif r["kind"] == AGENT:
            calls += 1
            if pending:
                fired.append((calls, r["user"].split(":", 1)[0], r["step"] + 1))
                pending = False
    return calls, fired


def describe(fired):
    return ", ".join("model call %d (turn %s, its call %d)" % f for f in fired) or "never"


def raw_results(messages, plain):
    """tool_call_id → what the same call (tool and arguments) returned in the run without HMC, as
    Hermes sent it to the model there."""
    produced, calls = {}, {}
    for r in plain.server.requests:
        ms = r["body"].get("messages", [])
        made = {c["id"]: (c["function"]["name"], c["function"]["arguments"]) for m in ms for c in m.get("tool_calls") or []}
        for m in ms:
            if m.get("role") == "tool" and m.get("tool_call_id") in made:
                produced.setdefault(made[m["tool_call_id"]], m["content"])  # later requests may carry Hermes' stand-in
    for m in messages:
        for c in m.get("tool_calls") or []:
            calls[c["id"]] = (c["function"]["name"], c["function"]["arguments"])
    return {cid: produced.get(call) for cid, call in calls.items()}


def run_session(case, install, hmc):
    box = Sandbox(case, install, dict(L.SCRIPT), L.files(), HMC_CONFIG if hmc else None, hmc=hmc,
                  context_length=WINDOW, compression={"threshold": 0.5}, real_usage=True)
    session = None
    for text in L.TURNS:
        rc, out, err, session = box.run_q(text, session, timeout=300)
        case.assertTrue(rc == 0 and "All done." in out, "%s: %s" % (text, err[-2000:]))
    return box, session


@needs_hermes
class Layer1InRealHermes(unittest.TestCase):
    def test_layer1_beside_hermes_own_compressor(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                plain, _ = run_session(self, install, hmc=False)
                box, session = run_session(self, install, hmc=True)
                self.check(install, plain, box, session)

    def check(self, install, plain, box, session):
        requests = box.server.requests
        summaries = [r for r in requests if r["kind"] == HMC_SUMMARY]
        phases = box.events(None, "phase")
        self.assertTrue(summaries and phases, "layer 1 must fire in this session: %s" % [r["kind"] for r in requests])
        phase = phases[0]

        # The summary went out: a later model call carries it, in place of the range's first message.
        sent = [r for r in requests if r["kind"] == AGENT and any(
            isinstance(m.get("content"), str) and m["content"].startswith("[Summary of earlier work") for m in r["body"]["messages"])]
        self.assertTrue(sent, "no model call carried the summary")
        self.assertIn(phase["recall_id"], json.dumps(sent[0]["body"]))

        # Hermes' stored session is raw: each tool result as Hermes produced it without HMC, byte
        # for byte, or Hermes' own one-line stand-in where its compressor pruned it; no HMC marker.
        rows, plain_rows = stored_rows(box.home), stored_rows(plain.home)
        tools = [r[3] for r in rows if r[1] == "tool"]
        produced = {r[3] for r in plain_rows if r[1] == "tool"} | {
            m["content"] for r in plain.server.requests for m in r["body"].get("messages", []) if m.get("role") == "tool"}
        raw = [t for t in tools if t in produced or t.strip() in produced]
        pruned = [t for t in tools if t not in raw and HERMES_STAND_IN.match(t)]
        self.assertEqual(len(raw) + len(pruned), len(tools), [t[:200] for t in tools if t not in raw and t not in pruned])
        self.assertGreater(len(raw), 10)
        self.assertFalse([t for t in tools if any(m in t for m in MARKERS)], "an HMC marker reached state.db")

        # Secrets: those the model was shown (Hermes masks some itself) never reach a
        # summariser request or a stored summary.
        conversation = "\n".join(json.dumps(r["body"]) for r in requests if r["kind"] == AGENT)
        seeded = [s for s in L.SECRETS.values() if s in conversation]
        shown = [name for name, s in L.SECRETS.items() if s in seeded]
        self.assertGreaterEqual(len(seeded), 2, "the session must carry seeded secrets for this check to mean anything")
        leaked = [s for s in seeded for r in summaries if s in json.dumps(r["body"])]
        self.assertEqual(leaked, [], "a secret reached the summariser")
        index = box.state / "sessions" / (session.replace(":", "_") + "_index.jsonl")
        stored_summaries = [p.read_text() for p in (box.state / "sessions").glob("*_index.jsonl")]
        self.assertTrue(stored_summaries, "the phase index file is missing (%s)" % index)
        self.assertEqual([s for s in seeded for text in stored_summaries if s in text], [])
        db = sqlite3.connect(box.state / "analytics.db")
        try:
            indexed = [row[0] for row in db.execute("SELECT summary FROM phases")]
        finally:
            db.close()
        self.assertTrue(indexed and not [s for s in seeded for text in indexed if s in text])

        # The index and a recall, asked through Hermes' own tool call in one more turn. Hermes 0.16's
        # compressor goes on in a new session (its parent the old one): the phase stays in the
        # index of the session it was made in, read there with session=, and a recall from the
        # new session is refused (never another session's data); the CLI, given the session, has it.
        box.server.script["L9"] = [("hmc_control", {"action": "index", "session": phase["session_id"]}),
                                   ("hmc_control", {"action": "recall", "id": phase["recall_id"]})]
        rc, out, err, _ = box.run_q("L9: list the summarised phases and recall the first", session, timeout=300)
        self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
        rows = [r for r in stored_rows(box.home) if r[1] == "tool"][-2:]
        answers = [r[3] for r in rows]
        same = rows[1][0] == phase["session_id"]  # the session Hermes ran the tool calls in
        listed = json.loads(answers[0])
        self.assertEqual([(e.get("phase_id"), e.get("recall_id")) for e in listed.get("entries", [])][:1], [(1, phase["recall_id"])], answers[0][:2000])
        if same:
            recalled = self.recall_is_exact(box, plain, phase, answers[1])
        else:
            self.assertIn("nothing is kept under id", json.loads(answers[1]).get("error", ""), answers[1][:2000])
            recalled = self.recall_is_exact(box, plain, phase, None)

        calls, hermes_with = compressions(box.server)
        plain_calls, hermes_without = compressions(plain.server)
        first_summary = next(i for i, r in enumerate(requests) if r["kind"] == HMC_SUMMARY)
        calls_before_summary = sum(1 for r in requests[:first_summary] if r["kind"] == AGENT)
        hermes_leaks = sorted({n for n, v in L.SECRETS.items() if v in seeded for r in requests if r["kind"] == HERMES_SUMMARY and v in json.dumps(r["body"])})
        print("\nHermes %s, window %d: layer 1 asked for a summary after model call %d (%d summary requests, %d tokens in); "
              "phase 1 = turns %s, %d -> %d tokens, %d messages recalled exactly (%s); Hermes' own compressor fired before %s "
              "with HMC, before %s without (%d and %d model calls); seeded secrets the model was shown: %s; none in a "
              "summary request or stored summary; in Hermes' own compression request: %s"
              % (install["version"], WINDOW, calls_before_summary, len(summaries),
                 sum(len(json.dumps(r["body"])) // 4 for r in summaries), "%s-%s" % (phase["turn_from"], phase["turn_to"]),
                 phase["tokens_before"], phase["tokens_after"], recalled,
                 "through Hermes' tool call and the CLI" if same else "the CLI; Hermes had moved on to a new session",
                 describe(hermes_with), describe(hermes_without), calls, plain_calls, ", ".join(shown), ", ".join(hermes_leaks) or "none"))
        # Hermes' own compressor ran in both sessions (the session is long enough); layer 1 came first.
        self.assertTrue(hermes_without and hermes_with, (hermes_without, hermes_with))
        self.assertLess(calls_before_summary, hermes_with[0][0])

    def recall_is_exact(self, box, plain, phase, answer):
        """The recall through Hermes (`answer`; None when there is none) is one page, whole (not
        cut by Hermes' limit on a tool result), of the range's first messages, exact: every tool
        result byte-equal to what the same call returned in the run without HMC (state.db may hold
        Hermes' own stand-in by now: its compressor pruned it). The CLI, in another process, pages
        through the whole phase, which begins with the same bytes. Returns how many messages."""
        recalled = {"messages": []}
        if answer is not None:
            if not answer.lstrip().startswith("{"):
                self.fail("the recall answer as Hermes stored it: %r" % answer[:3000])
            recalled = json.loads(answer)
            by_id = raw_results(recalled["messages"], plain)
            results = [m for m in recalled["messages"] if m["role"] == "tool"]
            self.assertGreaterEqual(len(results), 1)
            for m in results:
                self.assertEqual(m["content"], by_id[m["tool_call_id"]])
        whole, args = [], []
        for _ in range(100):
            cli = subprocess.run(["node", str(REPO / "bin" / "hmc.js"), "control", "recall", "id=" + phase["recall_id"], *args,
                                  "--state-dir", str(box.state), "--session", phase["session_id"], "--json"], capture_output=True, text=True, timeout=60)
            self.assertEqual(cli.returncode, 0, cli.stderr)
            page = json.loads(cli.stdout)
            whole += page["messages"]
            if "next" not in page:
                break
            args = page["next"].split()[2:]
        self.assertEqual(whole[:len(recalled["messages"])], recalled["messages"])
        self.assertEqual(len(whole), page["total_messages"])
        by_id = raw_results(whole, plain)
        for m in whole:
            if m["role"] == "tool":
                self.assertEqual(m["content"], by_id[m["tool_call_id"]])
        return len(whole)


if __name__ == "__main__":
    unittest.main()
