#!/usr/bin/env python3
"""A real Hermes session for the dashboard's screenshots (issue 9): Hermes 0.19.0 works on a copy
of this repo against the scripted local model server (test/bridge/model_server.py), with HMC's
default config, into a fresh HERMES_HOME; then scripts/real-session-shots.ts serves its state dir
with `hmc dashboard start`, checks the figures (page = /api = turn events = `hmc analytics`) and
takes the screenshots.

Three sessions, so the history has more than one row: a short one (`hermes chat -q`, 2 turns), an
interactive one through a pty (4 turns, left with /quit), and the main one (`-q --resume`, one
process per turn, 5 turns): the strategy tests fail after a planted bug, the agent searches, reads,
patches and runs them again, reads a large source file (src/engine/engine.ts) and re-reads one.
Every tool really runs (the model server only chooses the calls). The model server answers as a
provider does, with usage from a prefix cache, as `gpt-4.1` (a model the price table knows), so
the money on the page is priced with the cache (issue 24).

Run (after `npm run build`):  python3 scripts/real-session.py [--out DIR] [--python H19/bin/python]
  [--no-shots] [--keep]   (--write-docs: write docs/screenshots/ instead of DIR/screenshots/)
Invariant: nothing outside DIR is written (but docs/screenshots/ with --write-docs); every
process started is stopped (the dashboard too, unless --keep).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import io
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test" / "bridge"))

from hermes_runs import Sandbox, _install, wire_tokens  # noqa: E402  (the end-to-end tests' own harness)
from test_e2e_accounting import raw_request  # noqa: E402

# The test command of the main session: six strategy test files, verbose (about 30 KB of log).
TESTS = ("NO_COLOR=1 npx vitest run --reporter=verbose test/strategies/list-wide/error-purge.test.ts"
         " test/strategies/single/truncation.test.ts test/strategies/list-wide/dedup.test.ts"
         " test/strategies/list-wide/placeholders.test.ts test/strategies/single/short-circuit.test.ts"
         " test/strategies/shared/signals.test.ts")
SERVER_TESTS = ("NO_COLOR=1 npx vitest run --reporter=verbose test/server/api.test.ts test/server/events.test.ts"
                " test/server/inspect-view.test.ts test/server/security.test.ts")
# The bug planted in the work copy (the agent's patch takes it out again).
BUG_FILE = "src/strategies/list-wide/error-purge.ts"
GOOD, BAD = "age >= minAge) stale.add", "age > minAge) stale.add"

# Each session: (mode, [(user text, [(tool, args), ...])]). The model server matches a turn by
# its user text and asks for the calls in order, then answers "All done.".
SESSIONS = [
    ("q", [
        ("Which files define the dashboard's HTTP routes?", [
            ("search_files", {"pattern": "*.ts", "target": "files", "path": "src/server/routes"}),
            ("read_file", {"path": "src/server/router.ts"})]),
        ("How big is the server code?", [
            ("terminal", {"command": "wc -l src/server/*.ts src/server/routes/*.ts"})]),
    ]),
    ("interactive", [
        ("How does the dashboard know that a session has ended?", [
            ("search_files", {"pattern": "ended", "path": "src/server", "file_glob": "*.ts"}),
            ("read_file", {"path": "src/server/live-state.ts"})]),
        ("Run the server tests", [("terminal", {"command": SERVER_TESTS})]),
        ("Show me live-state.ts once more", [("read_file", {"path": "src/server/live-state.ts"})]),
        ("Thanks, that is all for now", []),
    ]),
    ("q", [
        ("The strategy tests fail since my last change. Find out why.", [
            ("terminal", {"command": TESTS}),
            ("search_files", {"pattern": "findStaleErrors", "path": "src", "file_glob": "*.ts"}),
            ("read_file", {"path": BUG_FILE})]),
        ("Fix it and run the tests again.", [
            ("patch", {"mode": "replace", "path": BUG_FILE, "old_string": BAD, "new_string": GOOD}),
            ("terminal", {"command": TESTS})]),
        ("Where does the engine use the error purge? Read engine.ts.", [
            ("read_file", {"path": "src/engine/engine.ts", "limit": 2000}),
            ("search_files", {"pattern": "purge_errors", "path": "src/engine", "file_glob": "*.ts"})]),
        # The agent drops the test log it no longer needs (hmc_control sweep, as the hmc skill
        # offers): the sweep also lets the rewrites waiting for the cache-break budget go out.
        ("Read error-purge.ts again and run the tests once more.", [
            ("read_file", {"path": BUG_FILE}),
            ("terminal", {"command": TESTS}),
            ("hmc_control", {"action": "sweep", "count": 1})]),
        ("Good. That is all, thanks.", []),
    ]),
]
HMC_CONFIG = "# HMC's defaults (scripts/real-session.py)\n"
# The model server answers as a provider does: the request's size as its prompt tokens, split into
# cache reads and writes by a prefix cache (real_usage), under the name of a model the price table
# knows, so the money on the page is priced with the cache at that model's prices, not a default.
# Chat completions with automatic prefix caching: an OpenAI model.
MODEL = "gpt-4.1"


class _Cleanups:
    """What Sandbox expects of a test case: a list of things to undo."""

    def __init__(self):
        self.items = []

    def addCleanup(self, fn, *args):
        self.items.append((fn, args))

    def run(self):
        for fn, args in reversed(self.items):
            fn(*args)


def copy_repo(dest):
    """This repo's committed files (git archive HEAD), node_modules linked, the bug planted."""
    data = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "HEAD"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    (dest / "node_modules").symlink_to(REPO / "node_modules")
    source = (dest / BUG_FILE).read_text()
    if source.count(GOOD) != 1:
        raise SystemExit("real-session: %s no longer has %r once: update BUG_FILE/GOOD in this script" % (BUG_FILE, GOOD))
    (dest / BUG_FILE).write_text(source.replace(GOOD, BAD))


def run_session(box, mode, turns, log):
    if mode == "q":
        session = None
        for n, (text, _) in enumerate(turns, 1):
            started = time.monotonic()
            rc, out, err, session = box.run_q(text, session)
            if rc != 0 or "All done." not in out:
                raise SystemExit("real-session: turn %d of a -q session failed (exit %s):\n%s" % (n, rc, err[-3000:]))
            log("  -q turn %d (%.0f s): %s" % (n, time.monotonic() - started, text))
        return session
    hermes = box.interactive()
    try:
        hermes.wait_for("❯", 120)
        for n, (text, _) in enumerate(turns, 1):
            started = time.monotonic()
            before = len(box.events(None, "turn"))
            # The turn is over when HMC has written its turn event (on_session_end) and the prompt waits.
            hermes.say(text, lambda: len(box.events(None, "turn")) > before, 300)
            log("  interactive turn %d (%.0f s): %s" % (n, time.monotonic() - started, text))
        session = hermes.quit()
    finally:
        hermes.close()
    if not session:
        raise SystemExit("real-session: the interactive session printed no id on /quit:\n" + hermes.text()[-3000:])
    log("  /quit: session %s" % session)
    return session


def wire_check(box, entry, bodies, log):
    """HMC's figures of one session against the requests it sent, re-tokenised by the engine's own
    rule (as test/bridge/test_e2e_accounting.py does): raw = each tool result as state.db holds it.
    A request's turn is the count of the user's own messages in it (Hermes' nudges are not the
    user's). Logs a row per turn; returns what differs."""
    stored = {cid: content for cid, (_, content) in box.stored_tools(entry["session_id"]).items()}
    sent = wire_tokens(bodies)
    raw = wire_tokens([raw_request(b, stored) for b in bodies])
    typed = lambda m: m.get("role") == "user" and any(str(m.get("content") or "").startswith(t) for t in entry["turns"])  # noqa: E731
    turns = [sum(1 for m in b["messages"] if typed(m)) for b in bodies]
    ledger = box.hmc_session(entry["session_id"])["ledger"]
    hmc = [(c["turn"], c["raw"], c["hmc"]) for c in ledger["calls"]]
    wire = list(zip(turns, raw, sent))
    problems = [] if hmc == wire else ["session %s: HMC's calls %s, the wire's %s" % (entry["session_id"], hmc, wire)]
    for t in sorted(set(turns)):
        w = [(r, x) for n, r, x in wire if n == t]
        h = [(r, x) for n, r, x in hmc if n == t]
        log("| %s | %d | %d | %d / %d | %d / %d | %d |" % (entry["session_id"][-6:], t, len(w), sum(r for r, _ in w), sum(x for _, x in w),
                                                    sum(r for r, _ in h), sum(x for _, x in h), sum(r - x for r, x in w)))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/hmc-real-session", help="folder for the run (must not exist, or be empty)")
    ap.add_argument("--python", default=os.environ.get("HMC_HERMES_PYTHON", "/work/venvs/h19/bin/python").split(os.pathsep)[0],
                    help="the python of a venv with hermes-agent installed")
    ap.add_argument("--no-shots", action="store_true", help="only run the sessions")
    ap.add_argument("--write-docs", action="store_true", help="write the screenshots to docs/screenshots/ (the README's)")
    ap.add_argument("--keep", action="store_true", help="leave the dashboard running afterwards")
    a = ap.parse_args()
    out = Path(a.out).resolve()
    if out.exists() and any(out.iterdir()):
        raise SystemExit("real-session: %s is not empty; remove it or pass --out" % out)
    install = _install(a.python)
    if not install:
        raise SystemExit("real-session: no hermes next to %s (docs/hermes.md: install hermes-agent into a venv)" % a.python)
    if not (REPO / "dist" / "cli" / "main.js").is_file():
        raise SystemExit("real-session: run `npm run build` first")
    out.mkdir(parents=True, exist_ok=True)
    log = lambda line: print(line, flush=True)  # noqa: E731
    script = {text: calls for _, turns in SESSIONS for text, calls in turns}
    cleanups = _Cleanups()
    try:
        box = Sandbox(cleanups, install, script, {}, HMC_CONFIG, root=out, real_usage=True, model=MODEL)
        box.work = box.work / "hmc"  # the project shows as "hmc"
        box.work.mkdir()
        copy_repo(box.work)
        log("Hermes %s, HERMES_HOME %s, work copy %s" % (install["version"], box.home, box.work))
        done, spans = [], []
        for mode, turns in SESSIONS:
            log("session %d (%s):" % (len(done) + 1, "one process per turn" if mode == "q" else "interactive, pty"))
            first = len(box.server.requests)
            session = run_session(box, mode, turns, log)
            done.append({"session_id": session, "mode": mode, "turns": [t for t, _ in turns],
                         "tools": [[c[0] for c in calls] for _, calls in turns]})
            spans.append((first, len(box.server.requests)))
            log("  session id %s" % session)
        log("\nHMC against the wire, per turn:\n| session | turn | model calls | wire raw / sent | HMC raw / sent | saved |\n|---|---|---|---|---|---|")
        wrong = []
        for entry, (first, last) in zip(done, spans):
            bodies = [r["body"] for r in box.server.requests[first:last] if r["body"].get("tools")]
            wrong += wire_check(box, entry, bodies, log)
    finally:
        cleanups.run()
    manifest = {"hermes": install["version"], "home": str(box.home), "state_dir": str(box.state), "work": str(box.work),
                "model_requests": len(box.server.requests), "sessions": done}
    (out / "sessions.json").write_text(json.dumps(manifest, indent=2) + "\n")
    # What went over the wire, for an audit (test/bridge/test_e2e_accounting.py re-tokenises the same).
    (out / "requests.json").write_text(json.dumps(box.server.requests) + "\n")
    log("wrote %s" % (out / "sessions.json"))
    for problem in wrong:
        log("real-session: HMC differs from the wire: " + problem)
    code = 1 if wrong else 0
    if not a.no_shots:
        shots = REPO / "docs" / "screenshots" if a.write_docs else out / "screenshots"
        argv = [str(REPO / "node_modules" / ".bin" / "tsx"), str(REPO / "scripts" / "real-session-shots.ts"), "--run", str(out), "--shots", str(shots)]
        if a.keep:
            argv.append("--keep")
        code = subprocess.run(argv, cwd=REPO).returncode or code
    sys.exit(code)


if __name__ == "__main__":
    main()
