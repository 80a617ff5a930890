"""Bridge round trip per hook: Python bridge -> JSON line -> Node sidecar (real engine) -> edits
applied (in place, or on the request) -> restored. Prints p50/p95/p99 in milliseconds (and the load average) at 100 and 1,000
messages: pre_llm_call whole (`messages`) and incremental (`base` + `append`); pre_model_call
through the `llm_request` middleware the way Hermes calls it (a request of the system prompt, the
messages and the tool schemas), incremental (one new tool call and result per call, the view as a
delta) and whole (a new session or a sidecar restart), in each request shape Hermes sends (chat
completions, Anthropic messages with its prompt-cache markers, Responses; converted as Hermes
converts them, test/bridge/hermes_shapes.py, outside the timing). One output in five is a long log that HMC
truncates, so views carry real edits. Last (not with --model-calls), a pre_llm_call whose
conversation holds one pathological tool output (issue 19: 128 K characters of one letter blocked
it 13.4 s, 256 K 56.5 s), then the next hook, which must not wait behind the accounting of it.
Hermes' own deep copies of the request are not timed (they
are printed apart: they happen with any middleware).

Run after `npm run build`: `python3 bench/bridge.py [--iterations N] [--model-calls]` (the second:
pre_model_call's rows only). Not a test: timings only.
Invariant: uses a throwaway HERMES_HOME; touches nothing else.
"""
import argparse
import copy
import importlib.util
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test" / "bridge"))


def load_bridge():
    from fake_host import FakeCtx

    # As Hermes imports the plugin: a package named after it, so the face finds hmc_bridge/.
    spec = importlib.util.spec_from_file_location("hmc_plugin_bench", REPO / "__init__.py", submodule_search_locations=[str(REPO)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    ctx = FakeCtx()
    bridge = mod.register(ctx)
    if bridge is None:
        sys.exit("the bridge did not register (is node on PATH?)")
    return bridge


def log_output(i, lines=40):
    lines = 200 if i % 5 == 0 else lines  # every fifth output is a long log: truncated, an edit
    return json.dumps({"output": "\n".join("step %d line %d: ok compiling module_%d.ts" % (i, j, j) for j in range(lines)), "exit_code": 0, "error": None})


SYSTEM = "You are Hermes, a coding agent. " * 200
TOOLS = [{"type": "function", "function": {"name": "tool_%d" % i, "description": "Tool number %d. " % i * 20,
                                            "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}}}} for i in range(20)]


def request(messages):
    """A request as Hermes builds it: the system prompt, copies of the messages, the tool schemas."""
    return {"model": "m", "messages": [{"role": "system", "content": SYSTEM}] + [dict(m) for m in messages], "tools": TOOLS}


def conversation(n):
    msgs = [{"role": "user", "content": "Build the project and fix what fails."}]
    i = 0
    while len(msgs) < n:
        cid = "call_%d" % i
        msgs.append({"role": "assistant", "content": "", "tool_calls": [{"id": cid, "type": "function", "function": {"name": "terminal", "arguments": json.dumps({"command": "make step%d" % i})}}]})
        msgs.append({"role": "tool", "name": "terminal", "tool_name": "terminal", "tool_call_id": cid, "content": log_output(i)})
        i += 1
    msgs = msgs[:n]
    if msgs[-1]["role"] == "assistant":
        # Never a call left unanswered: the next call of the bench would follow it, and Hermes' Anthropic
        # and Responses conversions merge (or strip) such a pair, which no real session sends.
        msgs[-1] = {"role": "user", "content": "Go on."}
    return msgs


SHORT = {"chat_completions": "chat", "anthropic_messages": "anthropic", "codex_responses": "responses"}


def pct(samples, q):
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def timed(fn, iterations):
    out = []
    for _ in range(iterations):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def pathological_texts(size):
    """Seeded, so every run times the same text (test/helpers/pathological.ts has the TypeScript side)."""
    rnd = random.Random(size)
    return [
        ("one letter", "a" * size),
        ("random letters", "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size))),
        ("binary-looking text", "".join(chr(rnd.randrange(256)) for _ in range(size))),
        ("one-line minified code", "".join("var v%d=function(x){return x+%d};" % (i, i % 97) for i in range(size // 30 + 1))[:size]),
    ]


def print_pathological(bridge):
    print("pathological tool output in a pre_llm_call (ms): that call / the next hook")
    for size in (128 * 1024, 256 * 1024):
        for name, text in pathological_texts(size):
            sid = "patho-%s-%d" % (name.replace(" ", "-"), size)
            cid = "call_%d" % size
            msgs = [{"role": "user", "content": "run it"},
                    {"role": "assistant", "content": "", "tool_calls": [{"id": cid, "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]},
                    {"role": "tool", "name": "terminal", "tool_call_id": cid, "content": json.dumps({"output": text, "exit_code": 0})}]
            t = time.perf_counter()
            bridge.pre_llm_call(session_id=sid, conversation_history=list(msgs), user_message="run it", model="m")
            first = (time.perf_counter() - t) * 1000
            t = time.perf_counter()
            bridge.pre_tool_call(session_id=sid, tool_name="terminal", args={"command": "ls"}, tool_call_id="next")
            after = (time.perf_counter() - t) * 1000
            bridge.on_session_end(session_id=sid, completed=True)
            print("  %-24s %4d K %9.1f %9.1f" % (name, size // 1024, first, after))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--model-calls", action="store_true", help="time pre_model_call only (every shape), the hooks' rows left out")
    args = ap.parse_args()
    if not (REPO / "dist" / "cli" / "main.js").exists():
        sys.exit("dist/ is missing: run `npm run build` first")
    os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="hmc-bench-")
    os.environ.pop("HMC_SIDECAR_COMMAND", None)
    bridge = load_bridge()
    rows = []
    notes = []
    for n in (100, 1000) if not args.model_calls else ():
        sid = "bench-%d" % n
        base = conversation(n)

        def full():
            bridge.sessions.get(sid) and setattr(bridge.sessions[sid], "held", None)
            bridge.pre_llm_call(session_id=sid, conversation_history=list(base), user_message="u", model="m")
            bridge.on_session_end(session_id=sid, completed=True)

        timed(full, 5)  # warm up: sidecar start, JIT
        rows.append(("pre_llm_call full + restore", n, timed(full, args.iterations)))

        live = list(base)
        counter = [0]

        def incremental():
            counter[0] += 1
            live.append({"role": "user", "content": "next %d" % counter[0]})
            bridge.pre_llm_call(session_id=sid, conversation_history=list(live), user_message="u", model="m")
            bridge.on_session_end(session_id=sid, completed=True)

        bridge.sessions[sid].held = None
        incremental()
        rows.append(("pre_llm_call base+append + restore", n, timed(incremental, args.iterations)))

    from hermes_shapes import SHAPES, convert

    calls = iter(range(10 ** 9))
    for n in (100, 1000):
        # The shapes take turns, call by call, so a busy moment of the machine falls on all of them alike.
        sessions = {}
        for shape in SHAPES:
            sid = "model-%s-%d" % (shape, n)
            live = conversation(n)
            bridge.pre_llm_call(session_id=sid, conversation_history=list(live), user_message="u", model="m")
            sessions[shape] = (sid, live, list(live), [n])

        def model_call_incremental(shape):
            sid, live, _, step = sessions[shape]
            cid = "new_%d" % step[0]
            step[0] += 1
            live.append({"role": "assistant", "content": "", "tool_calls": [{"id": cid, "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]})
            live.append({"role": "tool", "name": "terminal", "tool_call_id": cid, "content": log_output(step[0])})
            req = convert(shape, request(live))
            t = time.perf_counter()
            bridge.llm_request(request=req, session_id=sid, api_request_id="a%d" % next(calls), api_mode=shape, model="m")
            return (time.perf_counter() - t) * 1000

        def model_call_full(shape):
            sid, _, fixed, _ = sessions[shape]
            bridge.sessions[sid].held = None
            req = convert(shape, request(fixed))
            t = time.perf_counter()
            bridge.llm_request(request=req, session_id=sid, api_request_id="f%d" % next(calls), api_mode=shape, model="m")
            return (time.perf_counter() - t) * 1000

        for shape in SHAPES:
            [model_call_incremental(shape) for _ in range(5)]
        incremental = {shape: [] for shape in SHAPES}
        for _ in range(args.iterations):
            for shape in SHAPES:
                incremental[shape].append(model_call_incremental(shape))
        edits = {shape: len(bridge.sessions[sessions[shape][0]].view) for shape in SHAPES}
        whole = {shape: [] for shape in SHAPES}
        for _ in range(max(20, args.iterations // 5)):
            for shape in SHAPES:
                whole[shape].append(model_call_full(shape))
        for shape in SHAPES:
            rows.append(("pre_model_call base+append, %s" % SHORT[shape], n, incremental[shape]))
        for shape in SHAPES:
            rows.append(("pre_model_call whole, %s" % SHORT[shape], n, whole[shape][3:]))
        deep = timed(lambda: copy.deepcopy(copy.deepcopy(request(sessions[SHAPES[0]][1]))), 20)
        notes.append("%d messages: %s edits in the view; Hermes' two deep copies of the request per call: p50 %.2f ms" % (
            n, " / ".join(str(edits[shape]) for shape in SHAPES), statistics.median(deep)))

    if args.model_calls:
        return report(args, rows, notes, bridge)
    big = json.dumps({"output": "\n".join("line %d of a long build log with some text" % i for i in range(2300)), "exit_code": 0})
    ids = iter(range(10 ** 9))
    rows.append(("pre_tool_call", "-", timed(lambda: bridge.pre_tool_call(session_id="t", tool_name="terminal", args={"command": "make"}, tool_call_id="c%d" % next(ids)), args.iterations)))
    rows.append(("post_tool_call 100 KB", "-", timed(lambda: bridge.post_tool_call(session_id="t", tool_name="terminal", args={"command": "make"}, result=big, tool_call_id="c%d" % next(ids), status="ok"), args.iterations)))
    print_pathological(bridge)
    report(args, rows, notes, bridge, len(big))


def report(args, rows, notes, bridge, big=0):
    print("bridge round trip (ms), %d iterations, node sidecar with the real engine%s" % (args.iterations, "; 100 KB = %d bytes" % big if big else ""))
    print("%-46s %8s %8s %8s %8s" % ("hook", "messages", "p50", "p95", "p99"))
    for name, n, samples in rows:
        print("%-46s %8s %8.2f %8.2f %8.2f" % (name, n, statistics.median(samples), pct(samples, 0.95), pct(samples, 0.99)))
    # Timings depend on what else the machine runs: the load average says how busy it was.
    if hasattr(os, "getloadavg"):
        print("load average while measured: %.2f %.2f %.2f" % os.getloadavg())
    for note in notes:
        print(note)
    bridge.sidecar.close()


if __name__ == "__main__":
    main()
