"""HMC's tab in Hermes' web dashboard, server side (issue 17, finding 7): Hermes mounts this
router under /api/plugins/hmc/ (hermes_cli/web_server.py, `_mount_plugin_api_routes`). It finds
HMC's own dashboard through <HERMES_HOME>/hmc_state/dashboard.json (the record the dashboard
process writes, docs/dashboard.md) and answers a fixed list of its read-only JSON routes, so the
tab's script reads HMC's figures with Hermes' own session auth and never talks to another port.
POST /start starts HMC's dashboard the way `hermes hmc dashboard start` does.

Invariant: never blocks Hermes' event loop (issue 26, finding 1): HMC's dashboard is read with
asyncio streams under a whole-request deadline (HEALTH_S for /api/health, FORWARD_S for a route)
and an answer over CAP_BYTES is refused, so a stopped, hung or dripping process on the recorded
port costs the tab one clear error and Hermes nothing. Standard library plus the FastAPI Hermes
itself runs on; reads are GET only; only the routes in ROUTES are forwarded, to 127.0.0.1 and the
port of a record whose process answers /api/health with the record's pid; the one state-changing
route, /start, is POST only and checks Hermes' session like Hermes' own state-changing routes;
any failure is a JSON answer naming it, never a stack; no figure is made here.
"""
import asyncio
import json
import os
import re
import shutil
import urllib.parse
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

router = APIRouter()

PLUGIN_DIR = Path(__file__).resolve().parents[1]  # the plugin's root: bin/hmc.js, dist/
# The read-only JSON routes of HMC's dashboard the tab uses (docs/dashboard.md "JSON API").
ROUTES = ("analytics", "models", "outputs", "work", "weeks", "days", "months", "tools", "strategies", "summary")
HEALTH_S = 1.5  # the same as HMC's own probe of a record (src/server/dashboard-record.ts)
FORWARD_S = 5.0  # connect, send, read the whole answer: one deadline, not one per read
START_S = 30.0  # `hmc dashboard start` waits up to 15 s for the new process to listen
CAP_BYTES = 4 * 1024 * 1024  # the largest answer forwarded (HMC's biggest tab answer is a few KB)
HEAD_CAP = 16 * 1024
MIN_NODE = (20, 0)  # as hmc_bridge/plugin.py checks it
START_HINT = "start it with the button, or: hermes hmc dashboard start"


class Failed(Exception):
    """HMC's dashboard did not give a usable answer; `status` is the tab's HTTP status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _state_dir():
    try:
        from hermes_constants import get_hermes_home

        home = Path(get_hermes_home())
    except Exception:
        home = Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")
    return home / "hmc_state"


def _dechunk(body):
    out, rest = bytearray(), body
    while True:
        line, sep, rest = rest.partition(b"\r\n")
        if not sep:
            raise ValueError("a chunked answer ends early")
        size = int(line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            return bytes(out)
        out += rest[:size]
        rest = rest[size + 2:]


async def _exchange(port, path):
    """One GET to 127.0.0.1:port: (status, body); raises Failed on an answer over CAP_BYTES."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=HEAD_CAP)
    try:
        # HTTP/1.0 and Connection: close: the answer ends when the connection does (no keep-alive).
        writer.write(("GET %s HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nAccept: application/json\r\nConnection: close\r\n\r\n" % (path, port)).encode("ascii"))
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        fields = dict((k.strip().lower(), v.strip()) for k, _, v in (h.partition(":") for h in head[1:] if h))
        length = int(fields["content-length"]) if fields.get("content-length", "").isdigit() else None
        if length is not None and length > CAP_BYTES:
            raise Failed(502, "HMC's answer to %s is %d bytes, larger than %d MiB: not forwarded" % (path.split("?")[0], length, CAP_BYTES >> 20))
        body = bytearray()
        while length is None or len(body) < length:
            chunk = await reader.read(65536)
            if not chunk:
                break
            body += chunk
            if len(body) > CAP_BYTES:
                raise Failed(502, "HMC's answer to %s is larger than %d MiB: not forwarded" % (path.split("?")[0], CAP_BYTES >> 20))
        if "chunked" in fields.get("transfer-encoding", "").lower():
            body = _dechunk(bytes(body))
        return status, bytes(body)
    finally:
        writer.close()


async def _get(port, path, deadline_s, what):
    """`_exchange` under one deadline for the whole request; every failure is a Failed naming it."""
    try:
        return await asyncio.wait_for(_exchange(port, path), deadline_s)
    except Failed:
        raise
    except asyncio.TimeoutError:
        raise Failed(503 if what == "health" else 504,
                     "HMC's dashboard (port %d) did not answer %swithin %g s: stopped or hung? (restart it: hermes hmc dashboard stop, then start)"
                     % (port, "/api/health " if what == "health" else "", deadline_s))
    except (ConnectionError, OSError):
        raise Failed(503, "HMC's dashboard is not running (its record is stale; %s)" % START_HINT)
    except Exception as exc:  # a malformed answer
        raise Failed(502, "HMC's dashboard (port %d) gave a malformed answer: %s" % (port, exc))


async def _dashboard():
    """HMC's running dashboard as {port, url, version}; raises Failed (503) when there is none."""
    path = _state_dir() / "dashboard.json"
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        port, pid = int(rec["port"]), int(rec["pid"])
    except FileNotFoundError:
        raise Failed(503, "HMC's dashboard is not running (%s)" % START_HINT)
    except Exception as exc:  # a half-written or foreign file
        raise Failed(503, "HMC's dashboard record %s cannot be read: %s" % (path, exc))
    status, body = await _get(port, "/api/health", HEALTH_S, "health")
    try:
        health = json.loads(body.decode("utf-8"))
    except Exception:
        health = {}
    if status != 200 or not isinstance(health, dict) or health.get("pid") != pid:
        raise Failed(503, "HMC's dashboard is not running (port %d answers for another process; %s)" % (port, START_HINT))
    return {"port": port, "url": rec.get("url") or "http://127.0.0.1:%d/" % port, "version": rec.get("version", "")}


@router.get("/status")
async def status():
    try:
        found = await _dashboard()
    except Failed as exc:
        return {"running": False, "error": str(exc)}
    return {"running": True, "url": found["url"], "version": found["version"]}


@router.get("/api/{name}")
async def forward(name: str, request: Request):
    if name not in ROUTES:
        return JSONResponse({"error": "unknown HMC route %r (routes: %s)" % (name, ", ".join(ROUTES))}, status_code=404)
    query = urllib.parse.urlencode(list(request.query_params.multi_items()))
    try:
        found = await _dashboard()
        code, body = await _get(found["port"], "/api/%s%s" % (name, "?" + query if query else ""), FORWARD_S, "route")
    except Failed as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)
    if code >= 400:  # HMC's 400 names the bad parameter: pass its words on
        try:
            words = json.loads(body.decode("utf-8")).get("error")
        except Exception:
            words = None
        return JSONResponse({"error": str(words or body.decode("utf-8", "replace"))[:500]}, status_code=code)
    return Response(content=body, media_type="application/json", status_code=code)


async def _node_problem(node):
    """Why this Node cannot run HMC (as hmc_bridge/plugin.py says it), or None."""
    if node is None:
        return "Node.js (>= 20.19) is not on the PATH of Hermes' dashboard; install it, then run hermes hmc doctor"
    try:
        proc = await asyncio.create_subprocess_exec(node, "--version", stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        out, _ = await asyncio.wait_for(proc.communicate(), 10)
    except Exception as exc:
        return "Node at %s does not run (%s)" % (node, exc or type(exc).__name__)
    version = out.decode("utf-8", "replace").strip()
    match = re.match(r"v(\d+)\.(\d+)", version)
    if not match or (int(match.group(1)), int(match.group(2))) < MIN_NODE:
        return "Node %s at %s is too old (HMC needs >= 20.19)" % (version or "?", node)
    return None


def _refused(request):
    """Why this state-changing request is refused (None: allowed). Hermes' auth middleware already
    requires its session on /api/plugins/; checked again here as Hermes' own state-changing routes
    do (`_require_token`), so the route stays closed even if a later Hermes opened plugin routes.
    A browser's Origin, when sent, must be this dashboard's own."""
    try:
        from hermes_cli.web_server import _require_token
    except Exception:
        return JSONResponse({"error": "cannot check Hermes' dashboard session here: refused"}, status_code=403)
    try:
        _require_token(request)
    except Exception:
        return JSONResponse({"error": "Unauthorized: Hermes' dashboard session is required"}, status_code=401)
    origin = request.headers.get("origin")
    # Behind a proxy (Hermes' gated mode) the browser's host may arrive as X-Forwarded-Host.
    own = {request.headers.get(k, "").lower() for k in ("host", "x-forwarded-host")} - {""}
    if origin and urllib.parse.urlsplit(origin).netloc.lower() not in own:
        return JSONResponse({"error": "refused: the request comes from another site (%s)" % origin[:100]}, status_code=403)
    return None


@router.post("/start")
async def start(request: Request):
    """Starts HMC's shared background dashboard (idempotent: a running one is answered as it is)."""
    refused = _refused(request)
    if refused is not None:
        return refused
    try:
        found = await _dashboard()
        return {"running": True, "already_running": True, "url": found["url"]}
    except Failed:
        pass
    node = shutil.which("node")
    problem = await _node_problem(node)
    if problem:
        return JSONResponse({"error": "cannot start HMC's dashboard: %s" % problem}, status_code=503)
    cli = PLUGIN_DIR / "bin" / "hmc.js"
    if not (PLUGIN_DIR / "dist" / "cli" / "main.js").is_file() or not cli.is_file():
        return JSONResponse({"error": "cannot start HMC's dashboard: HMC is not built (no dist/cli/main.js in %s); run npm run build there" % PLUGIN_DIR}, status_code=503)
    # Exactly `hermes hmc dashboard start` (hmc_bridge/plugin.py), over the state dir this tab reads.
    env = dict(os.environ, HMC_INVOKED_AS="hermes hmc")
    try:
        proc = await asyncio.create_subprocess_exec(
            node, str(cli), "dashboard", "start", "--state-dir", str(_state_dir()), cwd=str(PLUGIN_DIR), env=env,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    except OSError as exc:
        return JSONResponse({"error": "cannot start HMC's dashboard: %s" % exc}, status_code=503)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), START_S)
    except asyncio.TimeoutError:
        proc.kill()
        return JSONResponse({"error": "HMC's dashboard did not start within %g s (see %s)" % (START_S, _state_dir() / "dashboard.log")}, status_code=504)
    said = err.decode("utf-8", "replace").strip().splitlines()
    url = out.decode("utf-8", "replace").strip()
    if proc.returncode != 0 or not url:
        return JSONResponse({"error": (said[-1] if said else "hmc dashboard start failed (exit %s)" % proc.returncode)[:500]}, status_code=502)
    return {"running": True, "already_running": any("already running" in line for line in said), "url": url}
