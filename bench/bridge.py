"""Bridge round trip per hook: Python bridge -> JSON line -> Node sidecar (real engine) -> edits
applied (in place, or on the request) -> restored. Prints p50/p99 in milliseconds at 100 and 1,000
messages: pre_llm_call whole (`messages`) and incremental (`base` + `append`); pre_model_call
through the `llm_request` middleware the way Hermes calls it (a request of the system prompt, the
messages and the tool schemas), incremental (one new tool call and result per call, the view as a
delta) and whole (a new session or a sidecar restart). One output in five is a long log that HMC
truncates, so views carry real edits. Last, a pre_llm_call whose conversation holds one
pathological tool output (issue 19: 128 K characters of one letter blocked it 13.4 s, 256 K
56.5 s), then the next hook, which must not wait behind the accounting of it. Hermes' own deep copies of the request are not timed (they
are printed apart: they happen with any middleware).

Run after `npm run build`: `python3 bench/bridge.py [--iterations N]`. Not a test: timings only.
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
    return msgs[:n]


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
    args = ap.parse_args()
    if not (REPO / "dist" / "cli" / "main.js").exists():
        sys.exit("dist/ is missing: run `npm run build` first")
    os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="hmc-bench-")
    os.environ.pop("HMC_SIDECAR_COMMAND", None)
    bridge = load_bridge()
    rows = []
    notes = []
    for n in (100, 1000):
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

    for n in (100, 1000):
        sid = "model-%d" % n
        live = conversation(n)
        bridge.pre_llm_call(session_id=sid, conversation_history=list(live), user_message="u", model="m")
        step = [n]
        calls = iter(range(10 ** 9))

        def model_call_incremental():
            cid = "new_%d" % step[0]
            step[0] += 1
            live.append({"role": "assistant", "content": "", "tool_calls": [{"id": cid, "type": "function", "function": {"name": "terminal", "arguments": "{}"}}]})
            live.append({"role": "tool", "name": "terminal", "tool_call_id": cid, "content": log_output(step[0])})
            req = request(live)
            t = time.perf_counter()
            bridge.llm_request(request=req, session_id=sid, api_request_id="a%d" % next(calls), api_mode="chat_completions", model="m")
            return (time.perf_counter() - t) * 1000

        [model_call_incremental() for _ in range(5)]
        samples = [model_call_incremental() for _ in range(args.iterations)]
        rows.append(("pre_model_call base+append (middleware)", n, samples))
        edits = len(bridge.sessions[sid].view)
        fixed = list(live[:n])

        def model_call_full():
            bridge.sessions[sid].held = None
            req = request(fixed)
            t = time.perf_counter()
            bridge.llm_request(request=req, session_id=sid, api_request_id="f%d" % next(calls), api_mode="chat_completions", model="m")
            return (time.perf_counter() - t) * 1000

        [model_call_full() for _ in range(3)]
        rows.append(("pre_model_call full (middleware)", n, [model_call_full() for _ in range(max(20, args.iterations // 5))]))
        deep = timed(lambda: copy.deepcopy(copy.deepcopy(request(live))), 20)
        notes.append("%d messages: %d edits in the view; Hermes' two deep copies of the request per call: p50 %.2f ms" % (n, edits, statistics.median(deep)))

    big = json.dumps({"output": "\n".join("line %d of a long build log with some text" % i for i in range(2300)), "exit_code": 0})
    ids = iter(range(10 ** 9))
    rows.append(("pre_tool_call", "-", timed(lambda: bridge.pre_tool_call(session_id="t", tool_name="terminal", args={"command": "make"}, tool_call_id="c%d" % next(ids)), args.iterations)))
    rows.append(("post_tool_call 100 KB", "-", timed(lambda: bridge.post_tool_call(session_id="t", tool_name="terminal", args={"command": "make"}, result=big, tool_call_id="c%d" % next(ids), status="ok"), args.iterations)))
    print_pathological(bridge)
    print("bridge round trip (ms), %d iterations, node sidecar with the real engine; 100 KB = %d bytes" % (args.iterations, len(big)))
    print("%-42s %8s %8s %8s" % ("hook", "messages", "p50", "p99"))
    for name, n, samples in rows:
        print("%-42s %8s %8.2f %8.2f" % (name, n, statistics.median(samples), pct(samples, 0.99)))
    for note in notes:
        print(note)
    bridge.sidecar.close()


if __name__ == "__main__":
    main()
