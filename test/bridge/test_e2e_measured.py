"""The provider's own numbers on the export surfaces, from a real Hermes (issue 24, part 6): the
three scripted turns of test_e2e_shapes.py against the model server playing a provider's prefix
cache (`real_usage`), chat completions, hook mode; then the real `hmc analytics --push` sends the
store's lifetime figures to a collector here. Its measured series (`hmc.provider.tokens`: the same
figures /metrics shows, test/server/measured-metrics.test.ts compares the two) must equal what the
server reported, call for call summed: prompt, cache read, cache write; the calls as many as the
server answered; the money series present with the sent side measured.
"""
import json
import subprocess
import threading
import unittest
from http.server import BaseHTTPRequestHandler, HTTPServer

import wire_shapes as W
from harness import REPO
from hermes_runs import INSTALLS, Sandbox, needs_hermes
from model_server import AGENT
from test_e2e_hermes import files
from test_e2e_shapes import SCRIPT, TURNS


class Collector:
    """An OTLP/HTTP collector on 127.0.0.1: keeps every JSON body posted to it."""

    def __init__(self):
        bodies = self.bodies = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def points(body, name):
    """One metric's points as {(attribute values...): value}."""
    for m in body["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]:
        if m["name"] == name:
            pts = (m.get("sum") or m.get("gauge"))["dataPoints"]
            return {tuple(a["value"]["stringValue"] for a in p["attributes"]): p.get("asDouble", int(p.get("asInt", 0))) for p in pts}
    return {}


@needs_hermes
class MeasuredExport(unittest.TestCase):
    def test_push_carries_what_the_server_reported(self):
        for install in INSTALLS:
            with self.subTest(version=install["version"]):
                box = Sandbox(self, install, SCRIPT, files(), shape=W.CHAT, toolsets="file,terminal", real_usage=True)
                session = None
                for text in TURNS:
                    rc, out, err, session = box.run_q(text, session)
                    self.assertTrue(rc == 0 and "All done." in out, "%s: %s" % (text, err[-2000:]))
                served = [r["usage"] for r in box.server.requests if r["kind"] == AGENT]
                served_sum = {k: sum(u[k] for u in served) for k in ("prompt", "cache_read", "cache_write", "completion")}
                db = str(box.state / "analytics.db")
                # The test server's model is in no price table: pushed as is, it is named and in no money point;
                # priced in the config (input 3 per million: cache read 0.3, write 3.75, output 15), it is priced.
                priced = box.home / "priced.yaml"
                priced.write_text("pricing:\n  models:\n    scripted-e2e-model:\n      input: 3\n")
                bodies = []
                for extra in ([], ["--config", str(priced)]):
                    collector = Collector()
                    self.addCleanup(collector.close)
                    push = subprocess.run(["node", str(REPO / "bin" / "hmc.js"), "analytics", "--push", "--db", db,
                                           "--endpoint", "http://127.0.0.1:%d" % collector.port, *extra], capture_output=True, text=True, timeout=60)
                    self.assertEqual(push.returncode, 0, push.stderr)
                    bodies.append(collector.bodies[0])
                unpriced_body, body = bodies
                tokens = points(body, "hmc.provider.tokens")
                calls = points(body, "hmc.provider.calls")
                model = {k[0] for k in calls}
                self.assertEqual(len(model), 1, calls)
                model = model.pop()
                for kind in ("prompt", "cache_read", "cache_write"):
                    self.assertEqual(tokens.get((model, kind, "seen")), served_sum[kind], "%s: %s" % (install["version"], kind))
                self.assertEqual(tokens.get((model, "output", "seen")), served_sum["completion"])
                self.assertEqual(calls, {(model, "seen"): len(served)})
                self.assertEqual(points(unpriced_body, "hmc.model.unpriced"), {(model,): 1})
                self.assertFalse([k for k in points(unpriced_body, "hmc.cost") if k[0] == model])
                cost = points(body, "hmc.cost")
                self.assertEqual(points(body, "hmc.model.unpriced"), {})
                plain = served_sum["prompt"] - served_sum["cache_read"] - served_sum["cache_write"]
                sent = (plain * 3 + served_sum["cache_read"] * 0.3 + served_sum["cache_write"] * 3.75) / 1e6
                self.assertAlmostEqual(cost[(model, "sent", "measured", "seen", "USD")], sent, places=8)
                self.assertAlmostEqual(cost[(model, "output", "measured", "seen", "USD")], served_sum["completion"] * 15 / 1e6, places=8)
                self.assertGreater(cost[(model, "raw", "modelled", "seen", "USD")], sent, cost)
                unpriced = points(unpriced_body, "hmc.model.unpriced")
                print("\n%s: %d calls; pushed hmc.provider.tokens prompt %d, cache read %d, cache write %d (server: %d, %d, %d); unpriced %s" % (
                    install["version"], len(served), tokens[(model, "prompt", "seen")], tokens[(model, "cache_read", "seen")],
                    tokens[(model, "cache_write", "seen")], sum(u["prompt"] for u in served), sum(u["cache_read"] for u in served),
                    sum(u["cache_write"] for u in served), sorted(unpriced)))
                print("priced at input 3/M: sent %.6f USD measured, output %.6f measured, raw %.6f modelled" % (
                    cost[(model, "sent", "measured", "seen", "USD")], cost[(model, "output", "measured", "seen", "USD")], cost[(model, "raw", "modelled", "seen", "USD")]))


if __name__ == "__main__":
    unittest.main()
