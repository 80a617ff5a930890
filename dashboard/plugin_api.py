"""HMC's tab in Hermes' web dashboard, server side (issue 17, finding 7): Hermes mounts this
router under /api/plugins/hmc/ (hermes_cli/web_server.py, `_mount_plugin_api_routes`). It finds
HMC's own dashboard through <HERMES_HOME>/hmc_state/dashboard.json (the record the dashboard
process writes, docs/dashboard.md) and answers a fixed list of its read-only JSON routes, so the
tab's script reads HMC's figures with Hermes' own session auth and never talks to another port.

Invariant: standard library plus the FastAPI Hermes itself runs on; GET only; only the routes
in ROUTES are forwarded, to 127.0.0.1 and the port of a record whose process answers
/api/health with the record's pid; any failure is a JSON answer naming it, never a stack; no
figure is made here (HMC's dashboard computes them all).
"""
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

router = APIRouter()

# The read-only JSON routes of HMC's dashboard the tab uses (docs/dashboard.md "JSON API").
ROUTES = ("analytics", "models", "outputs", "work", "weeks", "days", "months", "tools", "strategies", "summary")
TIMEOUT_S = 5


def _state_dir():
    try:
        from hermes_constants import get_hermes_home

        home = Path(get_hermes_home())
    except Exception:
        home = Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes")
    return home / "hmc_state"


def _get(port, path):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as res:
        return res.status, res.read()


def _dashboard():
    """HMC's running dashboard as {port, url, version}, or (None, why)."""
    path = _state_dir() / "dashboard.json"
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
        port, pid = int(rec["port"]), int(rec["pid"])
    except FileNotFoundError:
        return None, "HMC's dashboard is not running (start it: hermes hmc dashboard start)"
    except Exception as exc:  # a half-written or foreign file
        return None, "HMC's dashboard record %s cannot be read: %s" % (path, exc)
    try:
        status, body = _get(port, "/api/health")
        health = json.loads(body.decode("utf-8"))
    except Exception:
        return None, "HMC's dashboard is not running (its record is stale; start it: hermes hmc dashboard start)"
    if status != 200 or health.get("pid") != pid:
        return None, "HMC's dashboard is not running (port %d answers for another process)" % port
    return {"port": port, "url": rec.get("url") or "http://127.0.0.1:%d/" % port, "version": rec.get("version", "")}, ""


@router.get("/status")
async def status():
    found, why = _dashboard()
    if found is None:
        return {"running": False, "error": why}
    return {"running": True, "url": found["url"], "version": found["version"]}


@router.get("/api/{name}")
async def forward(name: str, request: Request):
    if name not in ROUTES:
        return JSONResponse({"error": "unknown HMC route %r (routes: %s)" % (name, ", ".join(ROUTES))}, status_code=404)
    found, why = _dashboard()
    if found is None:
        return JSONResponse({"error": why}, status_code=503)
    query = urllib.parse.urlencode(list(request.query_params.multi_items()))
    try:
        code, body = _get(found["port"], "/api/%s%s" % (name, "?" + query if query else ""))
    except urllib.error.HTTPError as exc:  # HMC's 400 names the bad parameter: pass its words on
        return JSONResponse({"error": exc.read().decode("utf-8", "replace")[:500]}, status_code=exc.code)
    except Exception as exc:
        return JSONResponse({"error": "HMC's dashboard did not answer: %s" % exc}, status_code=502)
    return Response(content=body, media_type="application/json", status_code=code)
