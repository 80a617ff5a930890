"""A stand-in for `hmc sidecar --stdio`, for bridge tests that need a sidecar misbehaving on cue.

Job: speak protocol v1 like the contract says (edits for long tool results, base + append with
resync, one conversation shared by pre_llm_call and pre_model_call, model-call views answered as
deltas against the host's view, replace on long post_tool_call results, an llm.complete round trip
on hmc_control action=ask; for a host whose hello lists `tool_calls`, pre_model_call clears long
arguments of every assistant message's calls but the last one's), and on request hang (`--hang METHOD`), die (`--die-on METHOD`), stop reading its stdin after hello
(`--deaf`), or refuse
lines over `--max-line N` bytes the way a framing limit does (an answer with `id: null`, the limit
told in `hello` as `max_line_bytes`); `--no-model-call` leaves the capability out; `--call-edits short`
instead shortens the arguments of every answered call over 200 characters to `{"path", "hmc"}`,
and `--call-edits forged` sends those with the first call's id changed (an edit a host must
refuse); `--schema FILE`
sends that JSON file as hello's `control_schema`, `--host-config JSON` that value as its
`host_config`. `--slow-hello S` answers hello after S seconds; `--started-line` says on stderr what
the real sidecar says when it starts; `--slow-on METHOD S` answers that method S seconds late; `--crash-on METHOD` dies on that method the way Node does on an
uncaught error (a message, a stack, its version on stderr; exit code 1). Every request is
appended to $HMC_FAKE_LOG when set.
Invariant: stdout carries protocol lines only.
"""
import json
import os
import sys
import time

LONG = 200
args = sys.argv[1:]
hang = args[args.index("--hang") + 1] if "--hang" in args else None
die_on = args[args.index("--die-on") + 1] if "--die-on" in args else None
max_line = int(args[args.index("--max-line") + 1]) if "--max-line" in args else None
schema_file = args[args.index("--schema") + 1] if "--schema" in args else None
host_config = json.loads(args[args.index("--host-config") + 1]) if "--host-config" in args else None
call_edits = args[args.index("--call-edits") + 1] if "--call-edits" in args else None  # short | forged
slow_hello = float(args[args.index("--slow-hello") + 1]) if "--slow-hello" in args else 0.0
crash_on = args[args.index("--crash-on") + 1] if "--crash-on" in args else None
slow_on = args[args.index("--slow-on") + 1] if "--slow-on" in args else None  # --slow-on METHOD SECONDS: answers it late
slow_for = float(args[args.index("--slow-on") + 2]) if "--slow-on" in args else 0.0
if "--started-line" in args:
    sys.stderr.write("hmc sidecar: started (node fake, state dir /nowhere)\n")
    sys.stderr.flush()
held = {}
views = {}  # session -> (view id, {index: entry})
host_caps = []
LOG = os.environ.get("HMC_FAKE_LOG")


def send(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def compressed(text):
    return "[compressed %d]" % len(text)


def shorter_calls(msgs, i):
    """A tool_calls edit of message i: each answered call with long arguments gets short ones."""
    calls = msgs[i].get("tool_calls") if msgs[i].get("role") == "assistant" else None
    answered = {m.get("tool_call_id") for m in msgs[i + 1:] if m.get("role") == "tool"}
    if not isinstance(calls, list) or not all(c.get("id") in answered for c in calls):
        return None
    out, changed = [], False
    for c in calls:
        arguments = c["function"]["arguments"]
        if len(arguments) > LONG:
            short = {"path": json.loads(arguments).get("path"), "hmc": "cleared %d chars" % len(arguments)}
            c = dict(c, function=dict(c["function"], arguments=json.dumps(short)))
            changed = True
        out.append(c)
    if changed and call_edits == "forged":
        out[0] = dict(out[0], id="forged")
    return out if changed else None


def cleared_calls(msgs):
    """index -> the message's calls with long arguments replaced, for every assistant message with
    calls but the last (the current step)."""
    steps = [i for i, m in enumerate(msgs) if m.get("role") == "assistant" and m.get("tool_calls")]
    out = {}
    for i in steps[:-1]:
        calls = msgs[i]["tool_calls"]
        if any(len(c["function"]["arguments"]) > LONG for c in calls):
            out[i] = [dict(c, function=dict(c["function"], arguments=json.dumps({"cleared": len(c["function"]["arguments"])})))
                      if len(c["function"]["arguments"]) > LONG else c for c in calls]
    return out


def handle(req):
    method, params = req.get("method"), req.get("params") or {}
    if method == hang:
        time.sleep(3600)
    if method == slow_on:
        time.sleep(slow_for)
    if method == die_on:
        sys.exit(3)
    if method == crash_on:
        sys.stderr.write("file:///x/dist/engine/engine.js:1\nTypeError: boom in %s\n    at handle (file:///x/dist/engine/engine.js:1:1)\n\nNode.js v20.0.0\n" % method)
        sys.stderr.flush()
        sys.exit(1)
    if method == "hello":
        time.sleep(slow_hello)
        host_caps[:] = params.get("capabilities") or []
        caps = ["append"] + ([] if "--no-model-call" in args else ["model_call"])
        hello = {"version": "fake", "protocol": 1, "capabilities": caps}
        if host_config is not None:
            hello["host_config"] = host_config
        if schema_file:
            with open(schema_file) as f:
                hello["control_schema"] = json.load(f)
        return dict(hello, max_line_bytes=max_line) if max_line else hello
    if method == "post_tool_call":
        r = params.get("result")
        return {"replace": compressed(r)} if isinstance(r, str) and len(r) > LONG else {}
    if method in ("pre_llm_call", "pre_model_call"):
        sid = params.get("session_id", "")
        if "messages" in params:
            msgs = params["messages"]
        else:
            have = held.get(sid)
            if have is None or params.get("base", -1) > len(have):
                return {"__error__": {"code": "resync", "message": "no such base"}}
            msgs = have[:params["base"]] + params.get("append", [])
        held[sid] = msgs
        edits = {i: {"content": compressed(m["content"])} for i, m in enumerate(msgs)
                 if m.get("role") == "tool" and isinstance(m.get("content"), str) and len(m["content"]) > LONG}
        if method == "pre_llm_call":
            return {"edits": [dict(e, index=i) for i, e in sorted(edits.items())], "context": "hmc: %d edits" % len(edits)}
        entries = {i: dict(e, index=i) for i, e in edits.items()}
        if call_edits and "tool_calls" in host_caps:
            for i in range(len(msgs)):
                calls = shorter_calls(msgs, i)
                if calls:
                    entries.setdefault(i, {"index": i})["tool_calls"] = calls
        elif "tool_calls" in host_caps:
            for i, calls in cleared_calls(msgs).items():
                entries.setdefault(i, {"index": i})["tool_calls"] = calls
        last = views.get(sid)
        vid = (last[0] if last else 0) + 1
        views[sid] = (vid, entries)
        if last and params.get("view") == last[0] and last[0] > 0:
            changed = [e for i, e in sorted(entries.items()) if last[1].get(i) != e]
            return {"edits": changed, "view": vid, "since": last[0], "removed": sorted(set(last[1]) - set(entries))}
        return {"edits": [e for _, e in sorted(entries.items())], "view": vid}
    if method == "hmc_control":
        if (params.get("args") or {}).get("action") == "ask":
            send({"id": "h1", "method": "llm.complete", "params": {"messages": [{"role": "user", "content": "sum"}], "max_tokens": 7}})
            answer = json.loads(sys.stdin.readline())
            return {"answer": answer}
        return {"echo": params}
    if method == "command":
        return "fake: " + params.get("raw_args", "")
    return {}


for line in sys.stdin:
    if not line.strip():
        continue
    if max_line and len(line.encode("utf-8")) > max_line:
        send({"id": None, "error": {"code": "invalid_request", "message": "line too long; skipped"}})
        continue
    req = json.loads(line)
    if LOG:
        with open(LOG, "a") as f:
            f.write(json.dumps(req) + "\n")
    result = handle(req)
    if isinstance(result, dict) and "__error__" in result:
        send({"id": req.get("id"), "error": result["__error__"]})
    else:
        send({"id": req.get("id"), "result": result})
    if "--deaf" in args and req.get("method") == "hello":
        time.sleep(3600)  # alive, never reading again: the pipe fills up
