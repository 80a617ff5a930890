"""The sidecar process (`hmc sidecar --stdio`) as the bridge sees it: started on first use, one JSON
line per call each way (protocol v1, DESIGN §3), a writer thread and a reader thread per process,
a timeout on every call, and a restart with a growing pause after any failure.

Invariant: a call returns the sidecar's answer or None, never raises and never outlasts its
timeout by more than a moment, whatever the size of its request: the line is written by the
writer thread, so a sidecar that stopped reading its stdin holds up no hook (issue 19, finding 1:
a 200 KB request to a stopped sidecar blocked Hermes over 30 s). While one hook waits for a start
(hello, up to START_TIMEOUT), every other hook passes through at once instead of queueing behind
it (a gateway's other users). Every failure is one log line under the "hmc" logger saying what
failed (the sidecar's own last words only when they say more than that it started), the process
is stopped, and the next start waits for the backoff. Every pipe is closed by the thread that used it.
A hook past its limit passes through and its answer is abandoned by id, the sidecar kept (it may be
busy with a big request); only a sidecar silent for STUCK_LIMIT after that, ping included, is
killed. A long call (a compaction, waiting minutes for its summaries) asks the sidecar `ping` whenever it
has said nothing for PROBE_AFTER: one left unanswered for PROBE_LIMIT ends the call at once, the
sidecar stopped or hung (issue 26, finding 7: a stopped sidecar held a compaction the whole 180 s).
"""
import itertools
import json
import logging
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections import deque

log = logging.getLogger("hmc")

HOOK_TIMEOUT = float(os.environ.get("HMC_HOOK_TIMEOUT", "2"))
START_TIMEOUT = float(os.environ.get("HMC_START_TIMEOUT", "15"))
BACKOFF_MAX = 60.0
# A long call probes a sidecar silent for PROBE_AFTER; a probe unanswered for PROBE_LIMIT means stopped or hung.
PROBE_AFTER = float(os.environ.get("HMC_PROBE_AFTER", "0.5"))
PROBE_LIMIT = float(os.environ.get("HMC_PROBE_LIMIT", "2.5"))
# A hook past its limit abandons its answer by id; the sidecar is killed only when it then says
# nothing, not even to a ping, for this long (issue 26, finding 8: one slow answer cost its state).
STUCK_LIMIT = float(os.environ.get("HMC_STUCK_LIMIT", "10"))
MAX_LINE_BYTES = 256 * 1024 * 1024  # the sidecar's line limit, unless its hello says otherwise


def _dumps(record):
    # default=str: some kwargs are SDK objects; ensure_ascii keeps lone surrogates legal JSON.
    # allow_nan=False: NaN or Infinity would make the line no JSON at all; the sidecar could not
    # answer it and the hook's timeout would restart it (issue 26, finding 9): a ValueError, passed through.
    return (json.dumps(record, default=str, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")


class Sidecar:
    """One supervised sidecar process: framing, a reader thread, per-call timeouts, restarts."""

    def __init__(self, argv_fn, on_request, hello_params, precheck=None, on_hello=None, env_fn=None):
        self.argv_fn = argv_fn  # builds the command line on first use
        self.env_fn = env_fn  # the environment of each start (None: Hermes' own)
        self.precheck = precheck  # returns a reason to stay off (e.g. Node too old), or None
        self.argv = None
        self.on_request = on_request
        self.on_hello = on_hello  # told each hello answer's result (a dict)
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
        self._writer = None  # the running process's _Writer (None when there is none)
        self._lock = threading.RLock()  # process lifecycle
        self._plock = threading.Lock()  # pending table (the reader thread needs it while a start waits)
        self._stderr = deque(maxlen=40)
        self._starting = False  # a hook is waiting for hello: other hooks pass through meanwhile
        self.max_line_bytes = MAX_LINE_BYTES
        self._oversize_logged = set()
        self._heard = 0.0  # when the running process last wrote a line (any answer or request)
        self.last_failure = ""  # the last failure, in words (a context engine's hand-over line names it)
        self._late = None  # (ping's event, when, what): a hook gave up on an answer; is the sidecar alive?

    # -- supervision ---------------------------------------------------------------------------
    @property
    def starting(self):
        """True while a hook waits for the sidecar's hello (every other hook passes through meanwhile)."""
        return self._starting

    def ensure(self):
        with self._lock:
            if self.proc is not None:
                if self._starting:
                    return False  # another hook is waiting for this start: pass through, never queue behind it
                code = self.proc.poll()
                if code is None:
                    return True
                self._fail(_exited(code), self.proc)
            if self.argv is None and not self.disabled:
                self.disabled = self.precheck() if self.precheck else None
                if self.disabled:
                    log.warning("hmc: %s; HMC is off and Hermes runs untouched", self.disabled)
                self.argv = self.argv_fn()
            if self.disabled or time.monotonic() < self.next_start:
                return False
            proc = self._spawn()
            if proc is None:
                return False
            self._starting = True
        # The hello wait is outside the lock: a hook arriving meanwhile sees `_starting` and goes on.
        try:
            return self._hello(proc)
        finally:
            with self._lock:
                self._starting = False

    def _spawn(self):
        try:
            # Hermes' working directory is inherited: the engine names the project after it.
            env = self.env_fn() if self.env_fn else None
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        except OSError as exc:
            self.proc = None
            self._fail("could not start (%s)" % exc, None)
            return None
        writer = _Writer(proc, lambda exc: self._fail("could not be written to (%s)" % exc, proc))
        self.proc, self._writer = proc, writer
        self.generation += 1
        self.started_at = self._heard = time.monotonic()
        self._stderr.clear()
        err = threading.Thread(target=self._drain_stderr, args=(proc,), name="hmc-sidecar-stderr", daemon=True)
        err.start()
        threading.Thread(target=self._read, args=(proc, writer, err), name="hmc-sidecar-reader", daemon=True).start()
        return proc

    def _hello(self, proc):
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
        if self.on_hello is not None:
            try:
                self.on_hello(result)
            except Exception as exc:  # what the host does with the answer never stops the sidecar
                log.warning("hmc: the sidecar's hello answer could not be taken in (%s: %s)", type(exc).__name__, exc)
        return True

    def _fail(self, reason, proc):
        """One line per failure; stop the process; retry on a later hook after a growing pause."""
        with self._lock:
            if proc is not None and self.proc is not proc:
                return  # a stale report about a process already replaced or stopped
            writer = self._writer
            self.proc = self._writer = None
            self._late = None
            self.last_failure = reason
            self.failures += 1
            delay = min(BACKOFF_MAX, 2.0 ** (self.failures - 1))
            self.next_start = time.monotonic() + delay
            words = _last_words(self._stderr)
            last = (" (it said: %s)" % words) if words else ""
            log.warning("hmc: sidecar %s%s; hooks pass through untouched, restart in %.0fs", reason, last, delay)
        if proc is not None:
            # Killed now, reaped on a thread: the hook that found the failure passes through at its
            # limit, not after the dying process is waited for (0.8 s on a loaded machine).
            try:
                proc.kill()
            except OSError:
                pass
            threading.Thread(target=_stop, args=(proc,), name="hmc-sidecar-reaper", daemon=True).start()
        if writer is not None:
            writer.close()  # its thread ends (a write stuck on the dead process's pipe fails first)
        self._wake_all()

    def _wake_all(self):
        with self._plock:
            pending, self._pending = self._pending, {}
        for event, _slot in pending.values():
            event.set()

    def close(self):
        """Ends the sidecar: its stdin closes after what is queued (on EOF it saves and exits),
        then it has 3 s before it is killed."""
        with self._lock:
            proc, writer = self.proc, self._writer
            self.proc = self._writer = None
            self.disabled = self.disabled or "closed"
        if proc is not None:
            writer.close()
            try:
                proc.wait(timeout=3)
            except Exception:
                _stop(proc)

    # -- calls ---------------------------------------------------------------------------------
    def call(self, method, params, timeout=None):
        """The sidecar's answer (a dict with "result" or "error"), or None when it is unavailable."""
        if not self.ensure() or self._busy():
            return None
        return self._call_started(method, params, timeout or HOOK_TIMEOUT)

    def _busy(self):
        """After a hook gave up on an answer: False once the sidecar said anything since (alive: the
        late answer is dropped by its id); True while it is silent (calls pass through at once
        instead of queueing behind it); past STUCK_LIMIT of silence it is hung: stopped, restarted."""
        late = self._late
        if late is None:
            return False
        event, since, what = late
        if event.is_set() or self._heard > since:
            self._late = None
            log.debug("hmc: the sidecar answers again after %s; its late answer was dropped", what)
            return False
        if time.monotonic() - since < STUCK_LIMIT:
            return True
        self._late = None
        self._fail("said nothing for %.0fs after %s, not even to a ping: hung" % (STUCK_LIMIT, what), self.proc)
        return True

    def _call_started(self, method, params, timeout):
        writer = self._writer
        if writer is None:
            return None
        proc = writer.proc
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
        event, slot, written = threading.Event(), {}, threading.Event()
        with self._plock:
            self._pending[rid] = (event, slot)
        writer.send(data, written)
        # The wait covers the write: a sidecar that stopped reading is a hung one.
        # A start is not probed: a sidecar still loading its code reads nothing yet (START_TIMEOUT covers it).
        answered = self._wait(event, timeout, writer) if method != "hello" else event.wait(timeout)
        if answered is not True:
            with self._plock:
                self._pending.pop(rid, None)
            if answered == "silent":
                self._fail("did not answer a ping within %.1fs during %s: stopped or hung" % (PROBE_LIMIT, method), proc)
            elif proc.poll() is not None:
                self._fail("%s during %s" % (_exited(proc.returncode), method), proc)
            else:
                # Alive: this answer is abandoned by its id (dropped when it comes), the process and
                # its state kept; a ping tells a busy sidecar from a hung one (_busy).
                what = ("did not answer %s (%d bytes) within %.1fs: busy or hung" % (method, len(data), timeout) if written.is_set()
                        else "stopped reading: %s (%d bytes) not taken in within %.1fs" % (method, len(data), timeout))
                self._abandon(what, writer)
            return None
        answer = slot.get("answer")
        if answer is not None and self.failures and time.monotonic() - self.started_at > BACKOFF_MAX:
            self.failures = 0
        return answer

    def _wait(self, event, timeout, writer):
        """True once answered; False at the timeout; "silent" when a long call's probe went unanswered."""
        if timeout <= PROBE_AFTER + PROBE_LIMIT:
            return event.wait(timeout)
        deadline = time.monotonic() + timeout
        probe = None  # (its answer's event, when it was sent)
        while True:
            now = time.monotonic()
            if now >= deadline:
                return False
            if event.wait(min(0.1, deadline - now)):
                return True
            now = time.monotonic()
            if probe is not None and probe[0].is_set():
                probe = None  # answered: alive; probe again after the next silence
            if probe is None and now - self._heard >= PROBE_AFTER:
                probe = (self._probe(writer), now)
            elif probe is not None and now - probe[1] >= PROBE_LIMIT and self._heard < probe[1]:
                return "silent"

    def _abandon(self, what, writer):
        """One line; the call passes through; a ping asks whether the sidecar is alive."""
        with self._lock:
            if self._late is not None or self._writer is not writer:
                return
            self.last_failure = what
            self._late = (self._probe(writer), time.monotonic(), what.split(" (")[0].split(":")[0])
        log.warning("hmc: sidecar %s; passed through untouched, its late answer is dropped (it is killed only if it stays silent %.0fs)", what, STUCK_LIMIT)

    def _probe(self, writer):
        """Sends `ping`; the event is set when anything answers it."""
        rid, event = next(self._ids), threading.Event()
        with self._plock:
            self._pending[rid] = (event, {})
        writer.send(_dumps({"id": rid, "method": "ping", "params": {}}))
        return event

    def _read(self, proc, writer, stderr_thread):
        try:
            for line in iter(proc.stdout.readline, b""):
                if self.proc is proc:
                    self._heard = time.monotonic()
                try:
                    record = json.loads(line)
                except ValueError:
                    log.debug("hmc: ignored a non-JSON line from the sidecar")
                    continue
                if not isinstance(record, dict):
                    continue
                if "method" in record:
                    threading.Thread(target=self._answer, args=(writer, record), daemon=True).start()
                    continue
                with self._plock:
                    waiter = self._pending.pop(record.get("id"), None)
                if waiter is not None:
                    waiter[1]["answer"] = record
                    waiter[0].set()
        except (OSError, ValueError):
            pass
        _close(proc.stdout)
        code = proc.wait()
        stderr_thread.join(timeout=1)  # so the failure line can quote the sidecar's last words
        if self.proc is proc:
            self._wake_all()
            self._fail(_exited(code), proc)

    def _drain_stderr(self, proc):
        try:
            for raw in iter(proc.stderr.readline, b""):
                text = raw.decode("utf-8", "replace").rstrip()
                if text:
                    self._stderr.append(text[:300])
                    log.debug("%s", text)
        except (OSError, ValueError):
            pass
        _close(proc.stderr)

    def _answer(self, writer, record):
        rid = record.get("id")
        try:
            result = self.on_request(record.get("method"), record.get("params") or {})
            reply = {"id": rid, "result": result}
        except Exception as exc:
            reply = {"id": rid, "error": {"code": "host_error", "message": str(exc)[:300]}}
        try:
            if self._writer is writer:
                writer.send(_dumps(reply))
        except (TypeError, ValueError):
            pass


class _Writer:
    """Writes lines to one process's stdin, in order, on a thread of its own: no caller waits on a
    full pipe. A write that fails is reported once (`on_error`) and ends the thread; `close`
    closes stdin after the lines already queued."""

    def __init__(self, proc, on_error):
        self.proc = proc
        self._on_error = on_error
        self._queue = queue.SimpleQueue()
        threading.Thread(target=self._run, name="hmc-sidecar-writer", daemon=True).start()

    def send(self, data, written=None):
        """Queues one line; `written` (an Event) is set once the sidecar's pipe has taken it in."""
        self._queue.put((data, written))

    def close(self):
        self._queue.put(None)

    def _run(self):
        stdin = self.proc.stdin
        try:
            while True:
                item = self._queue.get()
                if item is None:
                    break
                data, written = item
                stdin.write(data)
                stdin.flush()
                if written is not None:
                    written.set()
        except (OSError, ValueError) as exc:
            self._on_error(exc)
        _close(stdin)


# What the sidecar says on every start and stop: never the reason for a failure.
_ROUTINE = re.compile(r"^hmc sidecar: (started|stdin closed)|^Node\.js v\d|^\s*at |^\s*\^+\s*$|^\s*$")
_TROUBLE = re.compile(r"error|fatal|exception|abort|killed|cannot|could not|out of memory|heap|denied|ENO[A-Z]+|EACCES|EPERM", re.I)


def _last_words(lines):
    """The sidecar's stderr line that says most about a failure: the last one that reads as trouble,
    else the last one that is not routine (its start line, a stack frame, Node's version), else ''."""
    lines = list(lines)
    for line in reversed(lines):
        if not _ROUTINE.search(line) and _TROUBLE.search(line):
            return line
    for line in reversed(lines):
        if not _ROUTINE.search(line):
            return line
    return ""


def _exited(code):
    """How a process ended, in words: its exit code, or the signal that killed it."""
    if isinstance(code, int) and code < 0:
        try:
            return "was killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "was killed by signal %d" % -code
    return "exited (code %s)" % code


def _close(pipe):
    try:
        pipe.close()
    except (OSError, ValueError):
        pass


def _stop(proc):
    try:
        proc.kill()
        proc.wait(timeout=2)
    except Exception:
        pass

