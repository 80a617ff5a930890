"""Running a real Hermes for the end-to-end tests: which Hermes installs to test, a sandbox (a
temporary HERMES_HOME with the plugin enabled, a work dir, a recording model server, an offline
and prompt-free environment: reference/hermes-agent-loop.md Part 1 §2), Hermes one process per
turn (`hermes chat -Q -q … --resume`) or one interactive process driven through a pty, and what
HMC left in the state dir. Standard library only.

Installs: `HMC_HERMES_PYTHON` names the python of one or more Hermes venvs (separated by
os.pathsep; `.ci/run` sets it to the venvs it installs), else `hermes` on PATH. Without one the
tests skip with a note, except under CI (`CI` set), where they fail: CI must test a real Hermes.
Invariant: nothing outside the sandbox is touched; every process started is stopped.
"""
import json
import os
import pty
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import wire_shapes as W
from harness import REPO, built
from model_server import MODEL, ModelServer

ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>78]|\r")


def _install(python):
    exe = Path(python).parent / "hermes"
    if not exe.exists():
        return None
    probe = ("import importlib.util, hermes_cli\n"
             "print(hermes_cli.__version__)\n"
             "print(__import__('anthropic').__version__ if importlib.util.find_spec('anthropic') else '')\n")
    lines = subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.splitlines() + ["", ""]
    # `anthropic`: the version of the package Hermes needs for the anthropic_messages shape ("" if absent).
    return {"python": str(python), "hermes": str(exe), "version": lines[0].strip() or "?", "anthropic": lines[1].strip()}


def hermes_installs():
    """The Hermes installs to test: [{python, hermes, version, anthropic}]."""
    listed = [p for p in os.environ.get("HMC_HERMES_PYTHON", "").split(os.pathsep) if p]
    if not listed:
        exe = shutil.which("hermes")
        if exe:
            first = Path(exe).read_text(errors="replace").splitlines()[0]
            listed = [first[2:].strip() if first.startswith("#!") else sys.executable]
    return [i for i in (_install(p) for p in listed) if i]


INSTALLS = hermes_installs()


def needs_hermes(cls):
    """Skips the class when no Hermes (or no build, or no node) is here, with a note; under CI the
    missing piece is a failure instead."""
    missing = [reason for absent, reason in (
        (not INSTALLS, "no Hermes found: set HMC_HERMES_PYTHON to the python of a venv with hermes-agent installed (docs/hermes.md)"),
        (not built(), "dist/ is missing: run `npm run build` first"),
        (shutil.which("node") is None, "node is not on PATH")) if absent]
    if not missing:
        return cls
    if os.environ.get("CI"):
        def fail(self):
            self.fail("CI must run the real-Hermes tests: " + "; ".join(missing))
        return type(cls.__name__, (unittest.TestCase,), {"test_a_real_hermes_is_installed": fail})
    return unittest.skip("; ".join(missing))(cls)


# How Hermes is pointed at the model server in each request shape (docs/hermes.md "Request shapes"):
# chat completions through a `custom` provider; Anthropic messages through the same with
# `api_mode: anthropic_messages` (hermes_cli/runtime_provider.py _resolve_plain_custom_api_mode
# honours it; the `anthropic` package must be installed beside Hermes); Responses through a named
# provider under `providers:` with `transport: codex_responses` (_get_named_custom_provider; a plain
# `custom` provider ignores `api_mode: codex_responses` for a URL that is not OpenAI's).
RESPONSES_PROVIDER = "e2e-responses"
MODEL_CONFIG = {
    W.CHAT: """model:
  provider: custom
  default: {model}
  base_url: http://127.0.0.1:{port}/v1
  api_key: sk-e2e
  context_length: {context_length}
""",
    W.ANTHROPIC: """model:
  provider: custom
  default: {model}
  base_url: http://127.0.0.1:{port}/v1
  api_key: sk-e2e
  api_mode: anthropic_messages
  context_length: {context_length}
""",
    W.RESPONSES: """model:
  provider: %s
  default: {model}
  context_length: {context_length}
providers:
  %s:
    base_url: http://127.0.0.1:{port}/v1
    api_key: sk-e2e
    default_model: {model}
    transport: codex_responses
""" % (RESPONSES_PROVIDER, RESPONSES_PROVIDER),
}
# A model name with "claude" in it: Hermes then places its Anthropic prompt-cache markers on an
# `anthropic_messages` route (agent/agent_runtime_helpers.py anthropic_prompt_cache_policy).
SHAPE_MODEL = {W.CHAT: MODEL, W.ANTHROPIC: "claude-scripted-e2e", W.RESPONSES: MODEL}

HOME_CONFIG = """plugins:
  enabled: [{plugins}]
security:
  tirith_enabled: false
tools:
  tool_search:
    enabled: "off"
compression:
{compression}
curator:
  enabled: false
memory:
  memory_enabled: false
  user_profile_enabled: false
  provider: ""
lsp:
  enabled: false
model_catalog:
  enabled: false
approvals:
  mode: "off"
hooks_auto_accept: true
agent:
  coding_context: "off"
  environment_probe: false
tool_loop_guardrails:
  warnings_enabled: false
"""


class Sandbox:
    """One Hermes install in a throwaway HERMES_HOME, talking to a scripted model server."""

    def __init__(self, case, install, script, files, hmc_config=None, root=None, hmc=True, context_length=131072,
                 compression=None, toolsets="file,terminal,hmc_tools", real_usage=False, shape=W.CHAT, hermes_config="",
                 plugin_copy=False, model=None):
        """`root`: a folder to build the sandbox in and keep (scripts/real-session.py), else a
        temporary one removed when the test ends. `hmc` False: the plugin is installed but not
        enabled (Hermes as it runs without HMC). `compression`: Hermes' own compressor off (None)
        or on with these `compression:` keys. `real_usage`: the model server reports a request's
        size as its prompt tokens, as a provider does. `shape`: the request shape Hermes sends
        (wire_shapes.CHAT, ANTHROPIC or RESPONSES; MODEL_CONFIG). `hermes_config`: more YAML for
        Hermes' config.yaml (e.g. `context:` with `engine: hmc`). `plugin_copy`: the plugin is a copy
        of the package's files (what an install puts there; `hermes plugins remove` deletes it), not
        a link to the repo. `toolsets` None: no `-t`, Hermes offers its default toolsets (hermes-cli).
        `model`: the model's name (default: the shape's scripted name, SHAPE_MODEL), e.g. one the price
        table knows (scripts/real-session.py)."""
        model = model or SHAPE_MODEL[shape]
        self.install = install
        self.shape = shape
        self.toolsets = toolsets
        tmp = Path(root) if root else Path(tempfile.mkdtemp(prefix="hmc-e2e-"))
        if not root:
            case.addCleanup(shutil.rmtree, tmp, True)
        self.home, self.work, user_home = tmp / "home", tmp / "work", tmp / "user"
        for d in (self.work, user_home, self.home / "plugins"):
            d.mkdir(parents=True)
        for name, text in files.items():
            (self.work / name).parent.mkdir(parents=True, exist_ok=True)
            (self.work / name).write_text(text)
        self.server = ModelServer(script, real_usage, model)
        case.addCleanup(self.server.close)
        if plugin_copy:
            copy_plugin(self.home / "plugins" / "hmc")
        else:
            (self.home / "plugins" / "hmc").symlink_to(REPO)
        (self.home / ".update_check").write_text(json.dumps({"ts": time.time(), "behind": 0, "rev": None, "ver": install["version"]}))
        compression = "\n".join("  %s: %s" % kv for kv in dict({"enabled": "true"}, **compression).items()) if compression is not None else "  enabled: false"
        (self.home / "config.yaml").write_text(
            MODEL_CONFIG[shape].format(model=model, port=self.server.port, context_length=context_length)
            + HOME_CONFIG.format(plugins="hmc" if hmc else "", compression=compression) + hermes_config)
        self.state = self.home / "hmc_state"
        proxy = "http://127.0.0.1:%d" % self.server.port
        self.env = {"PATH": os.environ["PATH"], "HOME": str(user_home), "HERMES_HOME": str(self.home), "LANG": "C.UTF-8",
                    "HERMES_YOLO_MODE": "1", "HERMES_ACCEPT_HOOKS": "1", "TIRITH_ENABLED": "false",
                    "CUSTOM_BASE_URL": "http://127.0.0.1:%d/v1" % self.server.port, "HTTP_PROXY": proxy, "HTTPS_PROXY": proxy,
                    "ALL_PROXY": proxy, "NO_PROXY": "127.0.0.1,localhost"}
        if hmc_config is not None:
            # The plugin's own config.yaml lives in the repo: point the sidecar at a sandboxed one.
            config = tmp / "hmc-config.yaml"
            config.write_text(hmc_config)
            self.env["HMC_SIDECAR_COMMAND"] = json.dumps([shutil.which("node"), str(REPO / "bin" / "hmc.js"), "sidecar", "--stdio",
                                                          "--state-dir", str(self.state), "--config", str(config)])

    def argv(self, *extra):
        toolsets = ["-t", self.toolsets] if self.toolsets else []
        return [self.install["hermes"], "chat", *extra, *toolsets, "--yolo", "--accept-hooks", "--ignore-rules", "--cli"]

    def run_q(self, text, session=None, timeout=240, during=None):
        """One turn in its own process: (returncode, stdout, stderr, session id)."""
        argv = self.argv(*(["--resume", session] if session else []), "-Q", "-q", text)
        proc = subprocess.Popen(argv, cwd=self.work, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if during:
            during(proc.pid)
        out, err = proc.communicate(timeout=timeout)
        sid = next((line.split("session_id:", 1)[1].strip() for line in err.splitlines() if "session_id:" in line), session)
        return proc.returncode, out, err, sid

    def interactive(self, *extra):
        """`hermes chat` in a pseudo-terminal; `extra` goes on its command line (`"--resume", ID`)."""
        return Interactive(self, extra)

    # -- what Hermes and HMC left behind ---------------------------------------------------------
    def stored_tools(self, session):
        db = sqlite3.connect(self.home / "state.db")
        try:
            rows = db.execute("SELECT tool_call_id, tool_name, content FROM messages WHERE session_id=? AND role='tool' ORDER BY timestamp, id", (session,)).fetchall()
        finally:
            db.close()
        return {r[0]: (r[1], r[2]) for r in rows}

    def hmc_session(self, session):
        """HMC's saved picture of a session (state dir `sessions/<id>.json`)."""
        name = re.sub(r"[^A-Za-z0-9._-]", "_", session)
        return json.loads((self.state / "sessions" / (name + ".json")).read_text())

    def analytics_session(self, session):
        """The session's row in HMC's analytics.db (a dict), or None."""
        db = sqlite3.connect(self.state / "analytics.db")
        try:
            db.row_factory = sqlite3.Row
            row = db.execute("SELECT * FROM sessions WHERE id=?", (session,)).fetchone()
        finally:
            db.close()
        return dict(row) if row else None

    def events(self, session, kind=None):
        """HMC's events of a session (`session` None: of every session), oldest first."""
        out = []
        for path in sorted((self.state / "events").glob("*.jsonl")) if (self.state / "events").is_dir() else []:
            for line in path.read_text().splitlines():
                try:
                    e = json.loads(line)
                except ValueError:
                    continue  # a line still being written
                if session in (None, e.get("session_id")) and (kind is None or e.get("type") == kind):
                    out.append(e)
        return sorted(out, key=lambda e: (e.get("time", 0), e.get("id", "")))


def copy_plugin(target):
    """The package's files (package.json `files`) copied to `target`, its node_modules a link to the
    repo's (rmtree removes a link, never what it points at)."""
    spec = json.loads((REPO / "package.json").read_text())
    target.mkdir(parents=True)
    for entry in spec["files"] + ["package.json"]:
        for src in REPO.glob(entry):
            dst = target / src.relative_to(REPO)
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, dst)
            else:
                shutil.copy2(src, dst)
    (target / "node_modules").symlink_to(REPO / "node_modules")


class Interactive:
    """`hermes chat` as a person runs it, through a pseudo-terminal."""

    def __init__(self, box, extra=()):
        self.box = box
        self.buf = b""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: Hermes in the sandbox
            try:
                os.chdir(box.work)
                os.execve(box.install["hermes"], box.argv(*extra), dict(box.env, TERM="xterm", COLUMNS="120", LINES="40"))
            finally:
                os._exit(127)

    def text(self):
        return ANSI.sub(b"", self.buf).decode("utf-8", "replace")

    def _read(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            self.buf += data
        return True

    def wait_for(self, pattern, timeout=120, since=0):
        """Waits until `pattern` shows in the output after character `since`; returns the output."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if re.search(pattern, self.text()[since:]):
                return self.text()
            if not self._read(0.3):
                break
        raise AssertionError("Hermes did not show %r within %ss; its last output:\n%s" % (pattern, timeout, self.text()[-3000:]))

    def say(self, line, expect, timeout=180):
        """Types a line and waits for `expect` (a pattern in what follows, or a function that says
        when the line is done) while reading the terminal; returns what followed."""
        since = len(self.text())
        os.write(self.fd, line.encode() + b"\r")
        if not callable(expect):
            return self.wait_for(expect, timeout, since)[since:]
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if expect() and self.idle():
                return self.text()[since:]
            if not self._read(0.3):
                break
        raise AssertionError("Hermes did not finish %r within %ss; its last output:\n%s" % (line, timeout, self.text()[-3000:]))

    def idle(self):
        """The prompt waits for input: a line typed now starts a turn (typed while the agent runs,
        it would interrupt it). Busy, Hermes' prompt line reads `❯ msg=interrupt · /queue …`."""
        text = self.text()
        at = text.rfind("❯")
        return at >= 0 and "msg=interrupt" not in text[at:at + 40]

    def quit(self, timeout=60):
        """/quit, then the session id Hermes prints on the way out."""
        since = len(self.text())
        os.write(self.fd, b"/quit\r")
        end = time.monotonic() + timeout
        while time.monotonic() < end and self._read(0.5):
            pass
        self.close()
        found = re.search(r"Session:\s+(\S+)", self.text()[since:])
        return found.group(1) if found else None

    def close(self):
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid == 0:
                os.kill(self.pid, signal.SIGTERM)
                os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        try:
            os.close(self.fd)
        except OSError:
            pass


def wire_tokens(requests):
    """The input tokens of each request body, by the engine's own rule (`requestTokens`, o200k)."""
    script = ("import('%s').then((t) => { let s = ''; process.stdin.on('data', (c) => (s += c));"
              " process.stdin.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(s).map((r) => t.requestTokens(r))))); })"
              % (REPO / "dist" / "core" / "tokens.js").as_uri())
    out = subprocess.run([shutil.which("node"), "-e", script], input=json.dumps(requests), capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise AssertionError("tokenizing the wire failed: " + out.stderr[-2000:])
    return json.loads(out.stdout)


def sidecar_children(pid):
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if int(fields[1]) == pid and b"sidecar" in cmdline:
            found.append(int(stat.parent.name))
    return found
