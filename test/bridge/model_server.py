"""A scripted model server for the end-to-end tests with a real Hermes, in every request shape
Hermes sends (wire_shapes.py): OpenAI chat completions (`POST /v1/chat/completions`), Anthropic
messages (`POST /v1/messages`) and OpenAI Responses (`POST /v1/responses`), streaming or not.

Job: answer each request from a script keyed by the turn's user text, read from the request's
shape-neutral view: the n-th model call after that user message (n = assistant messages with tool
calls since it) makes the n-th step's tool call (a step may also be a list of calls: a parallel
batch, or a function of the request's messages that answers a call or a final text), then a final
answer. Requests without tools are auxiliary calls, told apart by their
prompt: HMC's layer-1 summariser (a handoff note, templated from the files and commands the
request names), Hermes' own compressor (a templated checkpoint summary), anything else (title
generation) a plain answer. The answer goes back in the request's shape.
Records every request: the raw body as sent (`raw`, text) and parsed (`body`), its `shape`,
`path`, whether it streamed, the neutral `messages` and `tools`, its `kind`, `user`, `step`, and
the `usage` it answered (prompt, completion, cache read, cache write).
`GET /v1/models` answers; everything else is a 404.
Usage: `prompt_tokens` 10, or with `real_usage` a rough count of what was sent (characters / 4,
the tool schemas included), split into cache reads and writes by a simulated provider prompt
cache (wire_shapes.PromptCache).
Invariant: deterministic, loopback only; `on_request(user, step)` lets a test act mid-turn.
"""
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import wire_shapes as W

MODEL = "scripted-e2e-model"
HMC_SUMMARY = "hmc_summary"  # HMC's layer-1 summariser (src/summarise/prompt.ts)
HERMES_SUMMARY = "hermes_compression"  # Hermes' own ContextCompressor._generate_summary
AGENT, OTHER = "agent", "other"
_ID_PREFIX = {W.CHAT: "call_", W.ANTHROPIC: "toolu_", W.RESPONSES: "call_"}


def kind_of(view):
    """Which caller sent a request: the agent loop (it offers tools) or an auxiliary call."""
    messages = view["messages"]
    if view["tools"]:
        return AGENT
    system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
    if isinstance(system, str) and system.startswith("You write handoff notes"):
        return HMC_SUMMARY
    if any("summarization agent creating a context checkpoint" in (m.get("content") or "") for m in messages):
        return HERMES_SUMMARY
    return OTHER


def _names(text):
    """The files and commands a summary request mentions, in order, once each."""
    seen = []
    for name in re.findall(r"[A-Za-z0-9_./-]+\.(?:md|py|yaml|env|txt|json)\b", text):
        if name not in seen:
            seen.append(name)
    return seen


def _all_text(messages):
    return "\n".join(m.get("content") or "" for m in messages)


def handoff_note(messages):
    """A plausible layer-1 note in HMC's seven sections, made from what the request shows."""
    text = _all_text(messages)
    files = _names(text)
    updated = "Your earlier note on this work" in text
    return "\n".join([
        "## Goal", "Survey the project documents%s" % (" (updated)" if updated else ""),
        "The user wants each document read and its main point recorded.",
        "## Done"] + ["%d. Read %s; its content was recorded [read_file]" % (i, f) for i, f in enumerate(files, 1)] + [
        "## Decisions", "None.",
        "## Files"] + ["%s: read, unchanged" % f for f in files] + [
        "## Commands", "None.", "## Open", "None.",
        "## Facts"] + ["path: %s" % f for f in files])


def checkpoint_summary(messages):
    """A plausible answer to Hermes' own compressor (its template's main headings)."""
    files = _names(_all_text(messages))
    return "\n".join(["## Active Task", "None.", "## Goal", "Survey the project documents.",
                      "## Completed Actions"] + ["%d. READ %s — recorded [tool: read_file]" % (i, f) for i, f in enumerate(files, 1)]
                     + ["## Relevant Files"] + ["%s: read" % f for f in files] + ["## Critical Context", "None."])


def rough_prompt_tokens(shape, body, seen):
    """What was sent, characters / 4: every message's text and tool calls (chat completions: as
    sent; the other shapes: their neutral view), and the tool schemas as sent."""
    messages = (body.get("messages") or []) if shape == W.CHAT else seen["messages"]
    size = sum(len(W.text_of(m.get("content"))) + len(json.dumps(m.get("tool_calls") or "")) for m in messages)
    return (size + len(json.dumps(body.get("tools") or ""))) // 4


def _step(messages):
    """(the turn's user text, how many tool-calling model answers followed it)."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user = messages[last_user].get("content") if last_user >= 0 else ""
    done = sum(1 for m in messages[last_user + 1:] if m.get("role") == "assistant" and m.get("tool_calls"))
    return str(user or ""), done


class ModelServer:
    def __init__(self, script, real_usage=False, model=MODEL):
        self.script = script  # {marker text in the user message: [(tool name, args) or [(tool name, args), ...], ...]}
        self.real_usage = real_usage
        self.model = model
        self.requests = []
        self.errors = []  # requests the server could not read (a test asserts there are none)
        self.on_request = None
        self.cache = W.PromptCache()
        self._lock = threading.Lock()
        self._ids = iter(range(1, 10 ** 6))
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    return self._json(200, {"object": "list", "data": [{"id": server.model, "object": "model", "context_length": 131072}]})
                self._json(404, {"error": "not found"})

            def do_POST(self):
                shape = W.shape_of_path(self.path)
                if shape is None:
                    return self._json(404, {"error": "not found"})
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "surrogateescape")
                try:
                    body = json.loads(raw)
                    answer, usage = server._answer(shape, self.path, raw, body)
                except Exception as e:  # a request this server cannot read: say so, as a provider would
                    server.errors.append("%s %s: %r" % (shape, self.path, e))
                    return self._json(400, {"error": {"type": "invalid_request_error", "message": "model server: %r" % e}})
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()
                    for frame in W.answer_events(shape, server.model, answer, usage):
                        self.wfile.write(frame)
                    self.wfile.flush()
                    return
                self._json(200, W.answer_body(shape, server.model, answer, usage))

            def _json(self, code, payload):
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def _answer(self, shape, path, raw, body):
        """Records the request; returns (the answer, its usage)."""
        seen = W.view(shape, body)
        user, step = _step(seen["messages"])
        kind = kind_of(seen)
        prompt = rough_prompt_tokens(shape, body, seen) if self.real_usage else 10
        with self._lock:
            read, write = self.cache.split(shape, body, prompt) if self.real_usage else (0, 0)
            self.requests.append({"user": user, "step": step, "body": body, "raw": raw, "shape": shape, "path": path,
                                  "stream": bool(body.get("stream")), "messages": seen["messages"], "tools": seen["tools"],
                                  "kind": kind, "time": time.time(),
                                  "usage": {"prompt": prompt, "completion": 5, "cache_read": read, "cache_write": write}})
        if self.on_request:
            self.on_request(user, step)
        steps = next((c for marker, c in self.script.items() if marker in user), []) if kind == AGENT else []
        planned = steps[step] if step < len(steps) else []
        if callable(planned):  # a step that reads the request: it answers a call, or a final text
            planned = planned(seen["messages"])
        final = planned if isinstance(planned, str) else None
        calls = [] if final is not None else planned if isinstance(planned, list) else [planned]
        with self._lock:
            calls = [("%s%d" % (_ID_PREFIX[shape], next(self._ids)), name, args) for name, args in calls]
        text = (handoff_note(seen["messages"]) if kind == HMC_SUMMARY else checkpoint_summary(seen["messages"])
                if kind == HERMES_SUMMARY else final or "All done.")
        return ({"text": None if calls else text, "calls": calls},
                {"prompt": prompt, "completion": 5, "cache_read": read, "cache_write": write})

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
