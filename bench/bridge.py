"""Bridge round trip per hook: Python bridge -> JSON line -> Node sidecar (real engine) -> edits
applied in place -> restored. Prints p50/p99 in milliseconds at 100 and 1,000 messages, for the
full path (`messages`) and the incremental one (`base` + `append`).

Run after `npm run build`: `python3 bench/bridge.py [--iterations N]`. Not a test: timings only.
Invariant: uses a throwaway HERMES_HOME; touches nothing else.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "test" / "bridge"))


def load_bridge():
    from fake_host import FakeCtx

    spec = importlib.util.spec_from_file_location("hmc_bridge_bench", REPO / "__init__.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ctx = FakeCtx()
    bridge = mod.register(ctx)
    if bridge is None:
        sys.exit("the bridge did not register (is node on PATH?)")
    return bridge


def log_output(i, lines=40):
    return json.dumps({"output": "\n".join("step %d line %d: ok compiling module_%d.ts" % (i, j, j) for j in range(lines)), "exit_code": 0, "error": None})


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
    for n in (100, 1000):
        sid = "bench-%d" % n
        base = conversation(n)

        def full():
            bridge.sessions.get(sid) and setattr(bridge.sessions[sid], "sent", None)
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

        bridge.sessions[sid].sent = None
        incremental()
        rows.append(("pre_llm_call base+append + restore", n, timed(incremental, args.iterations)))

    big = json.dumps({"output": "\n".join("line %d of a long build log with some text" % i for i in range(2300)), "exit_code": 0})
    ids = iter(range(10 ** 9))
    rows.append(("pre_tool_call", "-", timed(lambda: bridge.pre_tool_call(session_id="t", tool_name="terminal", args={"command": "make"}, tool_call_id="c%d" % next(ids)), args.iterations)))
    rows.append(("post_tool_call 100 KB", "-", timed(lambda: bridge.post_tool_call(session_id="t", tool_name="terminal", args={"command": "make"}, result=big, tool_call_id="c%d" % next(ids), status="ok"), args.iterations)))
    print("bridge round trip (ms), %d iterations, node sidecar with the real engine; 100 KB = %d bytes" % (args.iterations, len(big)))
    print("%-38s %8s %8s %8s" % ("hook", "messages", "p50", "p99"))
    for name, n, samples in rows:
        print("%-38s %8s %8.2f %8.2f" % (name, n, statistics.median(samples), pct(samples, 0.99)))
    bridge.sidecar.close()


if __name__ == "__main__":
    main()
