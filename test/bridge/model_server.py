"""A scripted OpenAI-compatible model server for the end-to-end test with a real Hermes.

Job: answer `POST /v1/chat/completions` (streaming SSE or plain JSON) from a script keyed by the
turn's user text: the n-th model call after that user message asks for the n-th tool call, then a
final answer. Requests without tools are auxiliary calls, told apart by their prompt: HMC's layer-1
summariser (a handoff note, templated from the files and commands the request names), Hermes' own
compressor (a templated checkpoint summary), anything else (title generation) a plain answer.
Records every request body with its kind. `GET /v1/models` answers; everything else is a 404.
Usage: `prompt_tokens` is 10, or with `real_usage` a rough count of what was sent (characters / 4,
the tool schemas included), as a provider would report the request's size.
Invariant: deterministic, loopback only; `on_request(body, step)` lets a test act mid-turn.
"""
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "scripted-e2e-model"
HMC_SUMMARY = "hmc_summary"  # HMC's layer-1 summariser (src/summarise/prompt.ts)
HERMES_SUMMARY = "hermes_compression"  # Hermes' own ContextCompressor._generate_summary
AGENT, OTHER = "agent", "other"


def kind_of(body):
    """Which caller sent a request: the agent loop (it offers tools) or an auxiliary call."""
    messages = body.get("messages") or []
    if body.get("tools"):
        return AGENT
    system = next((m.get("content") for m in messages if m.get("role") == "system"), None)
    if isinstance(system, str) and system.startswith("You write handoff notes"):
        return HMC_SUMMARY
    if any("summarization agent creating a context checkpoint" in _text(m.get("content")) for m in messages):
        return HERMES_SUMMARY
    return OTHER


def _text(content):
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _names(text):
    """The files and commands a summary request mentions, in order, once each."""
    seen = []
    for name in re.findall(r"[A-Za-z0-9_./-]+\.(?:md|py|yaml|env|txt|json)\b", text):
        if name not in seen:
            seen.append(name)
    return seen


def handoff_note(body):
    """A plausible layer-1 note in HMC's seven sections, made from what the request shows."""
    text = "\n".join(_text(m.get("content")) for m in body.get("messages") or [])
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


def checkpoint_summary(body):
    """A plausible answer to Hermes' own compressor (its template's main headings)."""
    files = _names("\n".join(_text(m.get("content")) for m in body.get("messages") or []))
    return "\n".join(["## Active Task", "None.", "## Goal", "Survey the project documents.",
                      "## Completed Actions"] + ["%d. READ %s — recorded [tool: read_file]" % (i, f) for i, f in enumerate(files, 1)]
                     + ["## Relevant Files"] + ["%s: read" % f for f in files] + ["## Critical Context", "None."])


def rough_prompt_tokens(body):
    size = sum(len(_text(m.get("content"))) + len(json.dumps(m.get("tool_calls") or "")) for m in body.get("messages") or [])
    return (size + len(json.dumps(body.get("tools") or ""))) // 4


def _step(messages):
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user = messages[last_user].get("content") if last_user >= 0 else ""
    if isinstance(user, list):
        user = " ".join(p.get("text", "") for p in user if isinstance(p, dict))
    done = sum(1 for m in messages[last_user + 1:] if m.get("role") == "tool")
    return str(user), done


class ModelServer:
    def __init__(self, script, real_usage=False):
        self.script = script  # {marker text in the user message: [(tool name, args), ...]}
        self.real_usage = real_usage
        self.requests = []
        self.on_request = None
        self._lock = threading.Lock()
        self._ids = iter(range(1, 10 ** 6))
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    return self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "context_length": 131072}]})
                self._json(404, {"error": "not found"})

            def do_POST(self):
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._json(404, {"error": "not found"})
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                user, step = _step(body.get("messages") or [])
                kind = kind_of(body)
                with server._lock:
                    server.requests.append({"user": user, "step": step, "body": body, "kind": kind, "time": time.time()})
                    call_id = "call_%d" % next(server._ids)
                if server.on_request:
                    server.on_request(user, step)
                calls = next((c for marker, c in server.script.items() if marker in user), []) if kind == AGENT else []
                tool = calls[step] if step < len(calls) else None
                text = handoff_note(body) if kind == HMC_SUMMARY else checkpoint_summary(body) if kind == HERMES_SUMMARY else "All done."
                usage = {"prompt_tokens": rough_prompt_tokens(body) if server.real_usage else 10, "completion_tokens": 5}
                usage["total_tokens"] = usage["prompt_tokens"] + 5
                if body.get("stream"):
                    return self._stream(tool, call_id, text, usage)
                message = {"role": "assistant", "content": None if tool else text}
                if tool:
                    message["tool_calls"] = [{"id": call_id, "type": "function", "function": {"name": tool[0], "arguments": json.dumps(tool[1])}}]
                self._json(200, {"id": "c", "object": "chat.completion", "created": int(time.time()), "model": MODEL,
                                 "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool else "stop"}],
                                 "usage": usage})

            def _stream(self, tool, call_id, text, usage):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                base = {"id": "c", "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL}

                def emit(choices, **extra):
                    self.wfile.write(b"data: " + json.dumps(dict(base, choices=choices, **extra)).encode() + b"\n\n")

                if tool:
                    emit([{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": call_id, "type": "function",
                                                                                       "function": {"name": tool[0], "arguments": ""}}]}}])
                    emit([{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": json.dumps(tool[1])}}]}}])
                    emit([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}])
                else:
                    emit([{"index": 0, "delta": {"role": "assistant", "content": text}}])
                    emit([{"index": 0, "delta": {}, "finish_reason": "stop"}])
                emit([], usage=usage)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

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

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
