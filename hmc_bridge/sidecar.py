"""The sidecar process (`hmc sidecar --stdio`) as the bridge sees it: started on first use, one JSON
line per call each way (protocol v1, DESIGN §3), a reader thread matching answers to calls, a
timeout on every call, and a restart with a growing pause after any failure.

Invariant: a call returns the sidecar's answer or None, never raises and never outlasts its
timeout by more than a moment; every failure is one log line under the "hmc" logger, the process
is stopped, and the next start waits for the backoff.
"""
import itertools
import json
import logging
import os
import subprocess
import threading
import time
from collections import deque

log = logging.getLogger("hmc")

HOOK_TIMEOUT = float(os.environ.get("HMC_HOOK_TIMEOUT", "2"))
START_TIMEOUT = float(os.environ.get("HMC_START_TIMEOUT", "15"))
BACKOFF_MAX = 60.0
MAX_LINE_BYTES = 256 * 1024 * 1024  # the sidecar's line limit, unless its hello says otherwise


def _dumps(record):
    # default=str: some kwargs are SDK objects; ensure_ascii keeps lone surrogates legal JSON.
    return (json.dumps(record, default=str, separators=(",", ":")) + "\n").encode("utf-8")


class Sidecar:
    """One supervised sidecar process: framing, a reader thread, per-call timeouts, restarts."""

    def __init__(self, argv_fn, on_request, hello_params, precheck=None, on_hello=None):
        self.argv_fn = argv_fn  # builds the command line on first use
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

