"""HMC for Hermes: the thin bridge between Hermes' plugin hooks and the HMC sidecar (Node).

Job: start ``hmc sidecar --stdio`` lazily, forward every hook as one JSON line (protocol v1,
DESIGN §3), apply the ``pre_llm_call`` edits in place on Hermes' live message dicts and restore them
at the turn's end, send every model request's conversation to ``pre_model_call`` and put its view
on that request only (``llm_request`` middleware; ``pre_api_request`` on Hermes without it), and
answer the sidecar's ``llm.complete`` requests with ``ctx.llm``. The conversation is sent the way
Hermes sends it (system prompt apart, contents stripped, ``api_content`` replayed), so both methods
describe one list (docs/hermes.md "One conversation, two views").

Invariant: fail open. No decision is taken here; any error (Node missing or too old, the sidecar
absent, slow, hung or dead, a bad answer) logs one line under the "hmc" logger and hands Hermes its
data back untouched. After the last restore the conversation is byte-identical to what it would be
without the plugin. Standard library only.
"""

import argparse
import atexit
import itertools
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

log = logging.getLogger("hmc")

PLUGIN_DIR = Path(__file__).resolve().parent
HOOK_TIMEOUT = float(os.environ.get("HMC_HOOK_TIMEOUT", "2"))
START_TIMEOUT = float(os.environ.get("HMC_START_TIMEOUT", "15"))
CONTROL_TIMEOUT = 20.0
BACKOFF_MAX = 60.0
MAX_LINE_BYTES = 256 * 1024 * 1024  # the sidecar's line limit, unless its hello says otherwise
STREAM_BYTES = 4 * 1024 * 1024  # a long history goes to the sidecar in stretches of about this size
MIN_NODE = (20, 0)

CONTROL_SCHEMA = {
    "name": "hmc_control",
    "description": (
        "Control Hermes Context Manager (HMC), which shrinks tool outputs in what the model sees. "
        "Actions: status, context, stats, index (this session's summarised phases; query to search them, "
        "scope=global for all sessions; phase=N for one phase's whole summary), "
        "analytics (scope, period=all|day|month|recent|project, "
        "limit), dashboard (sub_action=start|stop|status), sweep (count), manual_set (enabled), "
        "manual_status, recall (id, lines): the exact text a marker like (recall id=r... lines=41-160) stands for; "
        "of a summarised phase, its exact messages a page at a time (messages, or message with lines)."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "description": "status, context, stats, index, recall, analytics, dashboard, sweep, manual_set or manual_status"},
            "id": {"type": "string", "description": "recall: the id a marker prints (recall id=r...)"},
            "lines": {"type": "string", "description": "recall: the lines a marker names, e.g. 41-160 (omit for the whole output); with message, that message's lines"},
            "messages": {"type": "string", "description": "recall of a summarised phase: which of its messages, e.g. 21-40 (an answer says which come next)"},
            "message": {"type": "integer", "description": "recall of a summarised phase: one message too big for a page, read with lines"},
            "count": {"type": "integer", "description": "sweep: how many recent tool outputs to prune"},
            "enabled": {"type": "boolean", "description": "manual_set: turn manual mode on or off"},
            "query": {"type": "string", "description": "index: words to search the summarised phases for"},
            "phase": {"type": "integer", "description": "index: the phase number whose whole summary to show"},
            "session": {"type": "string", "description": "index: another session's id (from a scope=global hit) to list or read"},
            "scope": {"type": "string", "description": "analytics: global or project; index: session (default) or global"},
            "period": {"type": "string", "description": "analytics: all, day, month, recent or project"},
            "limit": {"type": "integer", "description": "analytics: rows (days, months or sessions); index: hits of a search (default 10)"},
            "sub_action": {"type": "string", "description": "dashboard: start, stop or status"},
        },
        "required": ["action"],
    },
}


def _hermes_home():
    try:
        from hermes_constants import get_hermes_home

        return Path(get_hermes_home())
    except Exception:
        return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")


_MODEL_BLOCK = re.compile(r"^model:[ \t]*\n((?:[ \t]+.*\n?|[ \t]*\n)*)", re.M)
_CONTEXT_LENGTH = re.compile(r"^[ \t]+context_length:[ \t]*(\d+)[ \t]*(?:#.*)?$", re.M)


def _configured_context_length(config_file):
    """The model's window as Hermes uses it (`model.context_length` in its config.yaml), or None.
    Hooks are not told the window; read it once, without a YAML library and without the network."""
    try:
        text = Path(config_file).read_text(encoding="utf-8")
    except OSError:
        return None
    block = _MODEL_BLOCK.search(text)
    found = _CONTEXT_LENGTH.search(block.group(1)) if block else None
    return int(found.group(1)) if found and int(found.group(1)) > 0 else None


_COMPRESSION_BLOCK = re.compile(r"^compression:[ \t]*\n((?:[ \t]+.*\n?|[ \t]*\n)*)", re.M)
_THRESHOLD = re.compile(r"^[ \t]+threshold:[ \t]*([0-9.]+)[ \t]*(?:#.*)?$", re.M)
_DISABLED = re.compile(r"^[ \t]+enabled:[ \t]*(false|no|off)[ \t]*(?:#.*)?$", re.M | re.I)


def _hermes_compression_threshold(config_file, context_length):
    """Where Hermes' own compressor fires, as a share of the window (None when it is off).
    Layer 1 fires below it, so HMC's cheaper pass comes first. `compression.threshold` from
    Hermes' config.yaml (default 0.5); when Hermes' own rules for the effective trigger can be
    imported (small-window floor, 64K minimum), they are applied as Hermes applies them."""
    try:
        text = Path(config_file).read_text(encoding="utf-8")
    except OSError:
        text = ""
    block = _COMPRESSION_BLOCK.search(text)
    if block and _DISABLED.search(block.group(1)):
        return None
    found = _THRESHOLD.search(block.group(1)) if block else None
    share = float(found.group(1)) if found else 0.5
    if not 0 < share <= 1:
        share = 0.5
    if not context_length:
        return share
    try:
        from agent.context_compressor import ContextCompressor
        effective = getattr(ContextCompressor, "_effective_threshold_percent", None)
        if callable(effective):
            share = float(effective(context_length, share))
        tokens = getattr(ContextCompressor, "_compute_threshold_tokens", None)
        if callable(tokens):
            return min(1.0, float(tokens(context_length, share, None)) / context_length)
        from agent.model_metadata import MINIMUM_CONTEXT_LENGTH
        return min(1.0, max(context_length * share, MINIMUM_CONTEXT_LENGTH) / context_length)
    except Exception:
        return share


def _dumps(record):
    # default=str: some kwargs are SDK objects; ensure_ascii keeps lone surrogates legal JSON.
    return (json.dumps(record, default=str, separators=(",", ":")) + "\n").encode("utf-8")


class Sidecar:
    """One supervised sidecar process: framing, a reader thread, per-call timeouts, restarts."""

    def __init__(self, argv_fn, on_request, hello_params, precheck=None):
        self.argv_fn = argv_fn  # builds the command line on first use
        self.precheck = precheck  # returns a reason to stay off (e.g. Node too old), or None
        self.argv = None
        self.on_request = on_request
        self.hello_params = hello_params
        self.proc = None
        self.generation = 0
        self.capabilities = []
        self.disabled = None
        self.failures = 0
        self.next_start = 0.0
        self.started_at = 0.0
        self._ids = itertools.count(1)
        self._pending = {}
        self._lock = threading.RLock()  # process lifecycle
        self._plock = threading.Lock()  # pending table (the reader thread needs it while a start waits)
        self._write_lock = threading.Lock()
        self._stderr = deque(maxlen=5)
        self.max_line_bytes = MAX_LINE_BYTES
        self._oversize_logged = set()

    # -- supervision ---------------------------------------------------------------------------
    def ensure(self):
        with self._lock:
            if self.proc is not None:
                code = self.proc.poll()
                if code is None:
                    return True
                self._fail("exited (code %s)" % code, self.proc)
            if self.argv is None and not self.disabled:
                self.disabled = self.precheck() if self.precheck else None
                if self.disabled:
                    log.warning("hmc: %s; HMC is off and Hermes runs untouched", self.disabled)
                self.argv = self.argv_fn()
            if self.disabled or time.monotonic() < self.next_start:
                return False
            return self._start()

    def _start(self):
        try:
            # Hermes' working directory is inherited: the engine names the project after it.
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            self.proc = None
            self._fail("could not start (%s)" % exc, None)
            return False
        self.proc = proc
        self.generation += 1
        self.started_at = time.monotonic()
        self._stderr.clear()
        err = threading.Thread(target=self._drain_stderr, args=(proc,), name="hmc-sidecar-stderr", daemon=True)
        err.start()
        threading.Thread(target=self._read, args=(proc, err), name="hmc-sidecar-reader", daemon=True).start()
        answer = self._call_started("hello", self.hello_params, START_TIMEOUT)
        if answer is None:
            return False
        result = answer.get("result")
        if not isinstance(result, dict):
            self._fail("answered hello with %s" % json.dumps(answer)[:200], proc)
            return False
        caps = result.get("capabilities")
        self.capabilities = [c for c in caps if isinstance(c, str)] if isinstance(caps, list) else []
        limit = result.get("max_line_bytes")
        if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
            self.max_line_bytes = limit
        return True

    def _fail(self, reason, proc):
        """One line per failure; stop the process; retry on a later hook after a growing pause."""
        with self._lock:
            if proc is not None and self.proc is not proc:
                return  # a stale report about a process already replaced or stopped
            self.proc = None
            self.failures += 1
            delay = min(BACKOFF_MAX, 2.0 ** (self.failures - 1))
            self.next_start = time.monotonic() + delay
            last = (" (stderr: %s)" % self._stderr[-1]) if self._stderr else ""
            log.warning("hmc: sidecar %s%s; hooks pass through untouched, restart in %.0fs", reason, last, delay)
        if proc is not None:
            _stop(proc)
        self._wake_all()

    def _wake_all(self):
        with self._plock:
            pending, self._pending = self._pending, {}
        for event, _slot in pending.values():
            event.set()

    def close(self):
        with self._lock:
            proc, self.proc = self.proc, None
            self.disabled = self.disabled or "closed"
        if proc is not None:
            try:
                proc.stdin.close()
                proc.wait(timeout=3)
            except Exception:
                _stop(proc)

    # -- calls ---------------------------------------------------------------------------------
    def call(self, method, params, timeout=None):
        """The sidecar's answer (a dict with "result" or "error"), or None when it is unavailable."""
        if not self.ensure():
            return None
        return self._call_started(method, params, timeout or HOOK_TIMEOUT)

    def _call_started(self, method, params, timeout):
        proc = self.proc
        if proc is None:
            return None
        rid = next(self._ids)
        try:
            data = _dumps({"id": rid, "method": method, "params": params})
        except (TypeError, ValueError) as exc:
            log.warning("hmc: could not encode %s (%s); passed through", method, exc)
            return None
        if len(data) > self.max_line_bytes:
            # The sidecar would skip such a line; sending it only costs time (issue 11).
            if not self._oversize_logged:  # once per process: every later hook would repeat it
                self._oversize_logged.add(method)
                log.warning("hmc: %s of %d bytes is over the sidecar's line limit of %d; passed through untouched (said once)",
                            method, len(data), self.max_line_bytes)
            return None
        event, slot = threading.Event(), {}
        with self._plock:
            self._pending[rid] = (event, slot)
        try:
            with self._write_lock:
                proc.stdin.write(data)
                proc.stdin.flush()
        except (OSError, ValueError) as exc:
            with self._plock:
                self._pending.pop(rid, None)
            self._fail("could not be written to (%s)" % exc, proc)
            return None
        if not event.wait(timeout):
            with self._plock:
                self._pending.pop(rid, None)
            self._fail("did not answer %s within %.1fs" % (method, timeout), proc)
            return None
        answer = slot.get("answer")
        if answer is not None and self.failures and time.monotonic() - self.started_at > BACKOFF_MAX:
            self.failures = 0
        return answer

    def _read(self, proc, stderr_thread):
        try:
            for line in iter(proc.stdout.readline, b""):
                try:
                    record = json.loads(line)
                except ValueError:
                    log.debug("hmc: ignored a non-JSON line from the sidecar")
                    continue
                if not isinstance(record, dict):
                    continue
                if "method" in record:
                    threading.Thread(target=self._answer, args=(proc, record), daemon=True).start()
                    continue
                with self._plock:
                    waiter = self._pending.pop(record.get("id"), None)
                if waiter is not None:
                    waiter[1]["answer"] = record
                    waiter[0].set()
        except (OSError, ValueError):
            pass
        code = proc.wait()
        stderr_thread.join(timeout=1)  # so the failure line can quote the sidecar's last words
        if self.proc is proc:
            self._wake_all()
            self._fail("exited (code %s)" % code, proc)

    def _drain_stderr(self, proc):
        try:
            for raw in iter(proc.stderr.readline, b""):
                text = raw.decode("utf-8", "replace").rstrip()
                if text:
                    self._stderr.append(text[:300])
                    log.debug("%s", text)
        except (OSError, ValueError):
            pass

    def _answer(self, proc, record):
        rid = record.get("id")
        try:
            result = self.on_request(record.get("method"), record.get("params") or {})
            reply = {"id": rid, "result": result}
        except Exception as exc:
            reply = {"id": rid, "error": {"code": "host_error", "message": str(exc)[:300]}}
        try:
            if self.proc is proc:
                with self._write_lock:
                    proc.stdin.write(_dumps(reply))
                    proc.stdin.flush()
        except (OSError, ValueError, TypeError):
            pass


def _stop(proc):
    try:
        proc.kill()
        proc.wait(timeout=2)
    except Exception:
        pass


class _Session:
    """What the bridge knows of one session: the conversation the sidecar holds (as (role, content)
    pairs in the form Hermes sends them), the edits applied in place on Hermes' live dicts this
    turn, and the last model-call view."""

    __slots__ = ("held", "generation", "backups", "inplace", "view", "view_id", "system", "tools_key", "measured", "tools_tokens")

    def __init__(self):
        self.held = None  # [(role, content)] as the sidecar holds them; None: unknown, send everything
        self.generation = 0  # the sidecar process `held`, `view`, `system` and `tools_key` belong to
        self.backups = []  # (live message dict, had content, original, edited)
        self.inplace = {}  # index -> (content as Hermes sends the edited dict, raw content as held)
        self.view = {}  # index -> content: the last pre_model_call view (complete)
        self.view_id = None
        self.system = _UNSENT  # the system prompt last sent
        self.tools_key = None  # names of the tool schemas last sent
        self.measured = []  # Hermes' character count of each message after the system prompt, as last sent
        self.tools_tokens = (None, 0)  # (tool names, Hermes' token estimate of their schemas)


_UNSENT = object()
_WIRE_KEYS = ("tool_calls", "tool_call_id", "name")
_ANCHORS = (0.0, 0.25, 0.5, 0.75)
_PARTIAL_KEYS = ("session_id", "model", "platform", "context_length")  # what a streamed stretch carries


def _sent_content(msg):
    """The content Hermes sends for a live message (both 0.16 and 0.19 build every request this way):
    `api_content` replayed for user and assistant rows that carry it (0.19), text `strip()`ped."""
    content = msg.get("content")
    if msg.get("role") in ("user", "assistant"):
        stamped = msg.get("api_content")
        if isinstance(stamped, str) and stamped:
            content = stamped
    return content.strip() if isinstance(content, str) else content


def _sent_call(call):
    """A tool call as Hermes sends it: Codex-only fields dropped, arguments re-serialised sorted."""
    if not isinstance(call, dict):
        return call
    out = {k: v for k, v in call.items() if k not in ("call_id", "response_item_id", "extra_content")}
    fn = call.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
        try:
            out["function"] = dict(fn, arguments=json.dumps(json.loads(fn["arguments"]), separators=(",", ":"), sort_keys=True))
        except ValueError:
            pass
    return out


def _wire_message(msg, content):
    """The message the sidecar is sent: role, content and the fields that cost tokens on the wire."""
    out = {"role": msg.get("role"), "content": content}
    for key in _WIRE_KEYS:
        if key in msg:
            out[key] = msg[key]
    return out


def _live_message(msg):
    out = _wire_message(msg, _sent_content(msg))
    if isinstance(out.get("tool_calls"), list):
        out["tool_calls"] = [_sent_call(c) for c in out["tool_calls"]]
    return out


_MESSAGE_CHARS = []  # Hermes' per-message character count, looked up once (a failed import searches sys.path)


def _hermes_message_chars():
    """Hermes' own character count of one message (images aside), else the rule it follows."""
    if not _MESSAGE_CHARS:
        try:
            from agent.model_metadata import _estimate_message_chars as count
        except Exception:
            def count(msg):
                return len(str(msg))
        _MESSAGE_CHARS.append(count)
    return _MESSAGE_CHARS[0]


def _hermes_tools_tokens(tools):
    """Hermes' own rough count of the tool schemas (0.19 sums their main fields; 0.16 `str(tools)` / 4)."""
    if not tools:
        return 0
    try:
        from agent.model_metadata import _estimate_tools_tokens_rough

        return int(_estimate_tools_tokens_rough(tools))
    except Exception:
        return (len(str(tools)) + 3) // 4


def _host_tokens(sess, messages, offset, base, tools, tools_key):
    """Hermes' rough measure of this request as its compressor judges it (0.16, 0.19:
    `estimate_request_tokens_rough`, characters / 4 of every message and of the tool schemas),
    before HMC's edits. Layer 1 fires at its share of Hermes' threshold in these units
    (docs/hermes.md "Layer 1 beside Hermes' compressor"). The `base` messages the sidecar holds
    unchanged keep the count they had when they were new (an in-place edit of an earlier turn is
    counted raw: a little more than Hermes counts)."""
    chars_of = _hermes_message_chars()
    keep = base if base is not None and base <= len(sess.measured) else 0
    sess.measured = sess.measured[:keep] + [chars_of(m) for m in messages[offset + keep:]]
    head = sum(chars_of(m) for m in messages[:offset])  # the system prompt
    if sess.tools_tokens[0] != tools_key:
        sess.tools_tokens = (tools_key, _hermes_tools_tokens(tools))
    return (head + sum(sess.measured) + 3) // 4 + sess.tools_tokens[1]


def _text_of(content):
    """A request's content as text: Claude cache markers wrap the last messages in one text part."""
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict) \
            and content[0].get("type") == "text" and isinstance(content[0].get("text"), str):
        return content[0]["text"]
    return content


def _set_text(msg, text):
    content = msg.get("content")
    msg["content"] = [dict(content[0], text=text)] if isinstance(content, list) and _text_of(content) is not content else text


class Bridge:
    """Hermes hooks → protocol calls; applies and restores edits. Every method fails open."""

    def __init__(self, sidecar, llm=None, context_length=None, compression_threshold=None):
        self.sidecar = sidecar
        self.llm = llm
        self.context_length = context_length
        self.compression_threshold = compression_threshold
        self.sessions = {}
        self.last_session = ""
        self._lock = threading.RLock()
        self._refused = False
        self._tools_cache = {}

    def _session(self, session_id):
        sid = session_id or ""
        if sid:
            self.last_session = sid
        with self._lock:
            return self.sessions.setdefault(sid, _Session())

    def _guard(self, name, fn, *args):
        try:
            return fn(*args)
        except Exception as exc:
            log.warning("hmc: %s failed inside the bridge (%s: %s); passed through", name, type(exc).__name__, exc)
            return None

    def _held(self, sess):
        """What the sidecar holds of this session, if still the same sidecar process."""
        return sess.held if sess.held is not None and sess.generation == self.sidecar.generation else None

    # -- hooks ---------------------------------------------------------------------------------
    def pre_tool_call(self, **kw):
        self._guard("pre_tool_call", self._forward, "pre_tool_call", kw)

    def post_tool_call(self, **kw):
        # The sidecar compresses the result now, off the model call's path; pre_model_call sends it.
        self._guard("post_tool_call", self._forward, "post_tool_call", kw)

    def _forward(self, method, kw):
        params = dict(kw)
        params["session_id"] = kw.get("session_id") or ""
        self._session(params["session_id"])
        return self.sidecar.call(method, params)

    def pre_llm_call(self, **kw):
        return self._guard("pre_llm_call", self._pre_llm_call, kw)

    def _pre_llm_call(self, kw):
        messages = kw.pop("conversation_history", None)
        sess = self._session(kw.get("session_id"))
        _restore(sess)
        if not isinstance(messages, list):
            return None
        params = dict(kw)
        params["session_id"] = kw.get("session_id") or ""
        if self.context_length:
            params.setdefault("context_length", self.context_length)
        if self.compression_threshold:
            params.setdefault("compression_threshold", self.compression_threshold)
        held = self._held(sess) if "append" in self.sidecar.capabilities else None
        first = 0
        if held is not None:
            # Once per turn: compare every message by role and content (identity first, so cheap).
            first, stop = 0, min(len(held), len(messages))
            while first < stop and held[first][0] == messages[first].get("role") and held[first][1] == _sent_content(messages[first]):
                first += 1
        answer, _ = self._send("pre_llm_call", params, messages, first if held is not None else None, lambda m, i: _live_message(m))
        result = _result(answer)
        if not result:
            return None
        edited = {id(b[0]) for b in sess.backups}  # a set: a long session carries tens of thousands of edits
        for index, content in _edits(result.get("edits"), len(messages)):
            msg = messages[index]
            if not isinstance(msg, dict) or id(msg) in edited:
                continue
            edited.add(id(msg))
            sess.backups.append((msg, "content" in msg, msg.get("content"), content))
            msg["content"] = content
            sess.inplace[index] = (content.strip(), sess.held[index][1])
        context = result.get("context")
        return {"context": context} if isinstance(context, str) and context else None

    def _send(self, method, params, messages, base, convert, offset=0):
        """Sends `messages[offset:]` (converted) as `base` + `append` when `base` is known, else whole;
        on success the session's held conversation is what was sent. Returns (answer, count)."""
        sess = self._session(params["session_id"])
        generation = self.sidecar.generation
        held = self._held(sess)
        answer = None
        if base and held is not None:
            append = [convert(m, offset + base + k) for k, m in enumerate(messages[offset + base:])]
            answer = self.sidecar.call(method, dict(params, base=base, append=append))
            if _error_code(answer) == "resync" or self.sidecar.generation != generation:
                answer = None
            else:
                new = held[:base] + [(m["role"], m["content"]) for m in append]
                if method != "pre_model_call":
                    sess.measured = sess.measured[:base]  # Hermes' counts hold for the unchanged messages only
        if answer is None:
            if method != "pre_model_call":
                sess.measured = []
            whole = [convert(m, offset + k) for k, m in enumerate(messages[offset:])]
            streamed = self._stream(params, whole)
            answer = self.sidecar.call(method, dict(params, base=streamed, append=whole[streamed:]) if streamed else dict(params, messages=whole))
            new = [(m["role"], m["content"]) for m in whole]
        if not _result(answer) or "error" in answer:
            sess.held, sess.view, sess.view_id = None, {}, None
            return None, 0
        sess.held, sess.generation = new, self.sidecar.generation
        return answer, len(new)

    def _stream(self, params, messages):
        """A long history (a resumed session) goes ahead in `partial` calls of about STREAM_BYTES, so no
        call carries, or makes the sidecar work on, more than that (issue 11: one 100 K-message call
        outlasted the hook limit). Returns how many messages the sidecar now holds, 0 to send all."""
        if not self.sidecar.ensure() or "partial" not in self.sidecar.capabilities:
            return 0
        ends, size = [], 0
        for i, msg in enumerate(messages):
            size += _approx_bytes(msg)
            if size >= STREAM_BYTES:
                ends.append(i + 1)
                size = 0
        held = 0
        for end in ends:
            if end >= len(messages):
                break
            part = {k: v for k, v in params.items() if k in _PARTIAL_KEYS}
            part["partial"] = True
            if held == 0:
                part["messages"] = messages[:end]
            else:
                part.update(base=held, append=messages[held:end])
            if "result" not in (self.sidecar.call("pre_llm_call", part) or {}):
                return 0
            held = end
        return held


    def on_session_end(self, **kw):
        self._guard("on_session_end", self._end, "on_session_end", kw)

    def on_session_finalize(self, **kw):
        self._guard("on_session_finalize", self._end, "on_session_finalize", kw)

    def on_session_reset(self, **kw):
        # /new in the CLI: the next /hmc status is about the new session, not the finalized one.
        sid = kw.get("session_id")
        if isinstance(sid, str) and sid:
            self.last_session = sid

    def _end(self, method, kw):
        sid = kw.get("session_id")
        with self._lock:
            # Hermes' CLI exit may finalize with session_id=None: every session this process touched.
            targets = [self.sessions.get(sid)] if sid else list(self.sessions.values())
        for sess in targets:
            if sess is not None:
                _restore(sess)
        if method == "on_session_finalize":
            with self._lock:
                if sid:
                    self.sessions.pop(sid, None)
                else:
                    self.sessions.clear()
                if not sid or self.last_session == sid:
                    self.last_session = ""
        params = dict(kw)
        params["session_id"] = sid or ""
        self.sidecar.call(method, params)

    # -- every model call: pre_model_call, its edits applied to that request only ---------------
    def llm_request(self, request=None, session_id=None, **kw):
        """`llm_request` middleware (Hermes 0.19): edits a copy of the request for this call only."""
        return self._guard("llm_request", self._llm_request, request, session_id, kw)

    def _llm_request(self, request, session_id, kw):
        if not isinstance(request, dict) or kw.get("api_mode") not in (None, "chat_completions"):
            return None  # Responses / Anthropic shapes: left raw (docs/hermes.md)
        messages = request.get("messages")
        changed = self._model_call(session_id, messages, request.get("tools"), kw)
        return {"request": request} if changed else None

    def pre_api_request(self, **kw):
        """Hermes without request middleware (0.16): the same, on the request's own message dicts."""
        self._guard("pre_api_request", self._pre_api_request, kw)

    def _pre_api_request(self, kw):
        messages, live = kw.get("request_messages"), kw.get("conversation_history")
        if kw.get("api_mode") not in (None, "chat_completions") or not isinstance(messages, list):
            return
        # Editing these dicts changes only this request, as long as they are copies: never edit a
        # dict of the live conversation (that would change what Hermes stores).
        if isinstance(live, list) and any(a is b for a in messages[:3] for b in live[:3]):
            if not self._refused:
                self._refused = True
                log.warning("hmc: this Hermes sends its live messages; requests are left raw (docs/hermes.md)")
            return
        body = (kw.get("request") or {}).get("body") if isinstance(kw.get("request"), dict) else None
        tools = body.get("tools") if isinstance(body, dict) else None
        self._model_call(kw.get("session_id"), messages, self._hook_tools(tools) if isinstance(tools, list) else None, kw)

    def _hook_tools(self, seen):
        """The request's tool schemas, on Hermes without middleware: its hook shows them depth-limited
        (values below depth 8 of the payload read "<str depth limit>"). Rebuilt from Hermes' tool
        registry by name, and used only when they match what the hook showed; else what it showed."""
        names = tuple((t.get("function") or {}).get("name") for t in seen if isinstance(t, dict))
        cached = self._tools_cache.get(names)
        if cached is None:
            cached = seen
            try:
                from tools.registry import registry

                by_name = {t["function"]["name"]: t for t in registry.get_definitions(set(names), quiet=True)}
                rebuilt = [by_name[n] for n in names]
                if _depth_limited(rebuilt, 2) == seen:  # payload → body → tools: the list is at depth 2
                    cached = rebuilt
            except Exception as exc:
                log.debug("hmc: tool schemas not rebuilt (%s)", exc)
            self._tools_cache = {names: cached}
        return cached

    def _model_call(self, session_id, messages, tools, kw):
        """pre_model_call for one request's `messages` (system prompt first); applies the view in
        place on those dicts. Returns True when a message was changed."""
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages) or not session_id:
            return False
        if not self.sidecar.ensure() or "model_call" not in self.sidecar.capabilities:
            return False
        sess = self._session(session_id)
        offset = 1 if messages and messages[0].get("role") == "system" else 0
        params = {"session_id": session_id, "model": kw.get("model") or "", "call_id": str(kw.get("api_request_id") or "")}
        if self.context_length:
            params["context_length"] = self.context_length
        if self.compression_threshold:
            params["compression_threshold"] = self.compression_threshold
        fresh = sess.generation != self.sidecar.generation
        system = messages[0].get("content") if offset else None
        if fresh or sess.system is _UNSENT or system != sess.system:
            params["system"] = system
        tools_key = tuple((t.get("function") or {}).get("name") for t in tools if isinstance(t, dict)) if isinstance(tools, list) else ()
        if fresh or tools_key != sess.tools_key:
            params["tools"] = tools if isinstance(tools, list) else []
        params["view"] = sess.view_id if not fresh and sess.view_id is not None else 0
        base = self._base(sess, messages, offset)
        params["host_tokens"] = _host_tokens(sess, messages, offset, base, tools, tools_key)
        answer, held = self._send("pre_model_call", params, messages, base, lambda m, i: self._raw(sess, m, i - offset), offset)
        result = _result(answer)
        if not result:
            return False
        sess.system, sess.tools_key = system, tools_key
        view = sess.view if result.get("since") is not None and result.get("since") == params["view"] else {}
        for index in result.get("removed") or []:
            view.pop(index, None)
        view.update(_edits(result.get("edits"), held))
        sess.view, sess.view_id = view, result.get("view") if isinstance(result.get("view"), int) else None
        return self._apply_view(sess, messages, offset)

    def _base(self, sess, messages, offset):
        """How many messages the sidecar holds unchanged, from a few anchors (never every message);
        None when the history was rewritten (Hermes' compressor, /undo): then everything is sent."""
        held = self._held(sess)
        if held is None or len(messages) - offset < len(held):
            return None
        for frac in _ANCHORS:
            i = int(frac * (len(held) - 1))
            if i < len(held) - 1 and not self._same(sess, messages[offset + i], i):
                return None
        # The last one may differ alone: this turn's user message gains injected context; a steer
        # note lands on the last tool result. The sidecar re-reads from there.
        return len(held) if not held or self._same(sess, messages[offset + len(held) - 1], len(held) - 1) else len(held) - 1

    def _same(self, sess, msg, i):
        role, content = sess.held[i]
        sent = _text_of(msg.get("content"))
        return msg.get("role") == role and (sent == content or (i in sess.inplace and sent == sess.inplace[i][0]))

    def _raw(self, sess, msg, i):
        """A request message as the sidecar holds it: an in-place edit of this turn maps back to raw."""
        content = _text_of(msg.get("content"))
        edited = sess.inplace.get(i)
        if edited is not None and content == edited[0]:
            content = edited[1]
        return _wire_message(msg, content)

    def _apply_view(self, sess, messages, offset):
        """Puts the view on the request: each edit where the message still holds what the sidecar
        holds; an in-place edit the view no longer wants goes back to raw."""
        changed = stale = False
        targets = dict.fromkeys(sess.inplace)
        targets.update(sess.view)
        for index in targets:
            j = offset + index
            if j >= len(messages) or index >= len(sess.held) or not self._same(sess, messages[j], index):
                stale = True
                continue
            content = sess.view.get(index, sess.held[index][1])
            if _text_of(messages[j].get("content")) != content:
                _set_text(messages[j], content)
                changed = True
        if stale:  # a message changed under us: leave it raw, and send everything next time
            sess.held, sess.view, sess.view_id = None, {}, None
        return changed

    # -- tool, command, host calls --------------------------------------------------------------
    def hmc_control(self, args, **kw):
        try:
            params = {"session_id": kw.get("session_id") or self.last_session, "args": args if isinstance(args, dict) else {}}
            answer = self.sidecar.call("hmc_control", params, CONTROL_TIMEOUT)
            if answer is None:
                return json.dumps({"error": "HMC sidecar unavailable: %s" % self._why()})
            if "error" in answer:
                return json.dumps({"error": str((answer.get("error") or {}).get("message", "error"))})
            return json.dumps(answer.get("result"), default=str)
        except Exception as exc:
            return json.dumps({"error": "hmc_control failed: %s" % exc})

    def command(self, raw_args="", *args, **kw):
        try:
            answer = self.sidecar.call("command", {"session_id": self.last_session, "raw_args": str(raw_args or "")}, CONTROL_TIMEOUT)
            if answer is None:
                return "HMC is not running: %s" % self._why()
            if "error" in answer:
                return "HMC: %s" % (answer.get("error") or {}).get("message", "error")
            result = answer.get("result")
            return result if isinstance(result, str) else json.dumps(result, indent=2, default=str)
        except Exception as exc:
            return "HMC: %s" % exc

    def _why(self):
        return self.sidecar.disabled or "the sidecar is restarting (see the hmc log lines)"

    def host_request(self, method, params):
        if method != "llm.complete" or self.llm is None:
            raise RuntimeError("host cannot answer %s" % method)
        kwargs = {"max_tokens": params["max_tokens"]} if isinstance(params.get("max_tokens"), int) else {}
        res = self.llm.complete(params.get("messages") or [], **kwargs)
        return {"text": str(getattr(res, "text", "") or ""), "model": str(getattr(res, "model", "") or "")}


def _result(answer):
    result = answer.get("result") if isinstance(answer, dict) else None
    return result if isinstance(result, dict) else {}


def _error_code(answer):
    error = answer.get("error") if isinstance(answer, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def _depth_limited(value, depth):
    """`value` as Hermes 0.16 shows it to hooks (run_agent._hook_jsonable: nothing below depth 8)."""
    if depth > 8:
        return "<%s depth limit>" % type(value).__name__
    if isinstance(value, dict):
        return {str(k): _depth_limited(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_depth_limited(v, depth + 1) for v in value]
    return value


def _approx_bytes(msg):
    """About how many bytes a message takes on the wire, cheaply (its text and tool-call arguments)."""
    if not isinstance(msg, dict):
        return 64
    content = msg.get("content")
    size = 64 + (len(content) if isinstance(content, str) else len(str(content)) if content is not None else 0)
    calls = msg.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            fn = call.get("function") if isinstance(call, dict) else None
            size += 64 + (len(str(fn.get("arguments", ""))) if isinstance(fn, dict) else 0)
    return size


def _edits(edits, length):
    """(index, content) pairs of a well-formed `edits` list, within `length` messages."""
    for edit in edits if isinstance(edits, list) else []:
        index = edit.get("index") if isinstance(edit, dict) else None
        content = edit.get("content") if isinstance(edit, dict) else None
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < length and isinstance(content, str):
            yield index, content


def _restore(sess):
    backups, sess.backups = sess.backups, []
    sess.inplace = {}
    for msg, had, original, edited in reversed(backups):
        if msg.get("content") is edited:  # someone else changed it since: leave theirs alone
            if had:
                msg["content"] = original
            else:
                msg.pop("content", None)


def _node_problem(node):
    """Why Node cannot run the sidecar (checked once, on the first start), or None."""
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as exc:
        return "Node at %s does not run (%s)" % (node, exc)
    match = re.match(r"v(\d+)\.(\d+)", out)
    if not match or (int(match.group(1)), int(match.group(2))) < MIN_NODE:
        return "Node %s at %s is too old (HMC needs >= 20.19)" % (out or "?", node)
    return None


def _sidecar_argv(node):
    override = os.environ.get("HMC_SIDECAR_COMMAND")
    if override:
        return json.loads(override)
    state_dir = _hermes_home() / "hmc_state"
    return [node, str(PLUGIN_DIR / "bin" / "hmc.js"), "sidecar", "--stdio", "--state-dir", str(state_dir), "--config", str(PLUGIN_DIR / "config.yaml")]


def _install_skill():
    source = PLUGIN_DIR / "skills" / "hmc" / "SKILL.md"
    target = _hermes_home() / "skills" / "hmc" / "SKILL.md"
    if source.is_file() and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def _host_features(ctx):
    try:
        from hermes_cli.plugins import VALID_HOOKS
    except Exception:
        VALID_HOOKS = set()
    try:
        from hermes_cli.middleware import VALID_MIDDLEWARE
    except Exception:
        VALID_MIDDLEWARE = set()
    middleware = hasattr(ctx, "register_middleware") and "llm_request" in VALID_MIDDLEWARE
    return {
        "middleware": middleware,
        # Hermes without request middleware (0.16): its pre_api_request hook gets the request's own
        # message dicts, copies made for that one call, so editing them changes that request only.
        "pre_api_request": not middleware and "pre_api_request" in VALID_HOOKS,
        "on_session_reset": "on_session_reset" in VALID_HOOKS,
    }


def _register_cli(ctx, node):
    """`hermes hmc <command>`: this plugin's `hmc` command line, which is not on PATH after an install."""
    def setup(parser):
        parser.add_argument("hmc_args", nargs=argparse.REMAINDER, metavar="COMMAND",
                            help="doctor | dashboard start|status|stop | analytics | control ACTION … (hermes hmc help lists them)")

    def run(args):
        if node is None:
            sys.stderr.write("hmc: Node.js (>= 20.19) is not on PATH; install it, then run `hermes hmc doctor`\n")
            sys.exit(1)
        sys.exit(subprocess.call([node, str(PLUGIN_DIR / "bin" / "hmc.js")] + list(getattr(args, "hmc_args", None) or [])))

    ctx.register_cli_command("hmc", "HMC's command line: doctor, dashboard, analytics, control", setup, run)


def register(ctx, **_kw):
    """Hermes entry point. Without Node it registers no hook, tool or slash command (the agent runs
    untouched), only `hermes hmc`, which says what is missing."""
    try:
        node = shutil.which("node")
        if hasattr(ctx, "register_cli_command"):
            try:
                _register_cli(ctx, node)
            except Exception as exc:  # a name clash or an older signature: only `hermes hmc` is lost
                log.info("hmc: could not add `hermes hmc` (%s)", exc)
        if node is None and not os.environ.get("HMC_SIDECAR_COMMAND"):
            log.warning("hmc: Node.js not found on PATH; HMC is off and Hermes runs untouched (install Node >= 20.19, then `hermes hmc doctor`)")
            return
        try:
            _install_skill()
        except OSError as exc:
            log.info("hmc: could not install the skill (%s)", exc)
        features = _host_features(ctx)
        try:
            llm = ctx.llm
        except Exception:
            llm = None
        per_call = features["middleware"] or features["pre_api_request"]
        caps = ["append"] + (["model_call"] if per_call else []) + (["llm.complete"] if llm is not None else [])
        hello = {"host": "hermes", "protocol": 1, "capabilities": caps, "plugin_dir": str(PLUGIN_DIR)}
        config_file = _hermes_home() / "config.yaml"
        context_length = _configured_context_length(config_file)
        bridge = Bridge(None, llm, context_length, _hermes_compression_threshold(config_file, context_length))
        precheck = None if os.environ.get("HMC_SIDECAR_COMMAND") else (lambda: _node_problem(node))
        sidecar = Sidecar(lambda: _sidecar_argv(node), bridge.host_request, hello, precheck)
        bridge.sidecar = sidecar
        atexit.register(sidecar.close)
        hooks = ["pre_tool_call", "post_tool_call", "pre_llm_call", "on_session_end", "on_session_finalize"]
        hooks += [name for name in ("pre_api_request", "on_session_reset") if features[name]]
        for name in hooks:
            ctx.register_hook(name, getattr(bridge, name))
        # transform_tool_result exists in Hermes but is deliberately not used: a string returned
        # there becomes the stored session row (docs/hermes.md). The middleware changes only the wire.
        if features["middleware"]:
            ctx.register_middleware("llm_request", bridge.llm_request)
        ctx.register_tool(name="hmc_control", toolset="hmc_tools", schema=CONTROL_SCHEMA, handler=bridge.hmc_control,
                          description=CONTROL_SCHEMA["description"], emoji="\U0001F9ED")
        if hasattr(ctx, "register_command"):
            ctx.register_command("hmc", bridge.command, description="HMC: status, stats, analytics, dashboard action=start …",
                                 args_hint="status | stats | analytics | dashboard action=start")
        return bridge
    except Exception as exc:
        log.warning("hmc: could not register (%s: %s); Hermes runs untouched", type(exc).__name__, exc)
        return None
