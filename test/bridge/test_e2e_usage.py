"""The provider's usage of every model call, in a real Hermes (issue 24): the three scripted turns of
test_e2e_shapes.py against the model server playing a provider's prefix cache (`real_usage`:
cached prompt tokens in each shape's own fields, streamed), in each request shape, in hook mode
and, for chat completions, with HMC as the context engine too.

Shows, per run: one provider_usage row per agent-loop request the server answered (rows = calls),
each from the `post_api_request` hook, matched to HMC's record of that call (its api_request_id)
and seen; the rows' prompt, cache-read and cache-write sums equal to what the server reported;
HMC's modelled cached share of what it sent within 10 points of the server's; the session's
cached figures filled (its input priced with the cache, none as plain input). Prints the figures
(docs/analytics.md "The provider's own numbers").
"""
import os
import sqlite3
import unittest

import wire_shapes as W
from hermes_runs import INSTALLS, Sandbox, needs_hermes
from model_server import AGENT
from test_e2e_hermes import files
from test_e2e_shapes import SCRIPT, TURNS

ENGINE = "context:\n  engine: hmc\n"
# HMC's list-wide passes may break the cache at once (as test_e2e_engine.py has them).
BREAKS = "cache:\n  min_batch_tokens: 0\n  max_breaks_per_100_calls: 100\n  first_break_after: 0\n"
# HMC_E2E_SHAPES=anthropic_messages,…: only these shapes (a quicker run); all three by default.
SHAPES = [x for x in os.environ.get("HMC_E2E_SHAPES", "").split(",") if x in W.SHAPES] or list(W.SHAPES)


def usage_rows(box, session):
    db = sqlite3.connect(box.state / "analytics.db")
    try:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM provider_usage WHERE session_id=? ORDER BY seq", (session,))]
    finally:
        db.close()


@needs_hermes
class ProviderUsage(unittest.TestCase):
    def check(self, install, shape, engine=False):
        box = Sandbox(self, install, SCRIPT, files(), shape=shape, toolsets="file,terminal", real_usage=True,
                      hermes_config=ENGINE if engine else "")
        session = None
        for text in TURNS:
            rc, out, err, session = box.run_q(text, session)
            self.assertTrue(rc == 0 and "All done." in out, "%s: %s" % (text, err[-2000:]))
        served = [r["usage"] for r in box.server.requests if r["kind"] == AGENT]
        rows = usage_rows(box, session)
        label = "%s %s%s" % (install["version"], shape, " engine" if engine else "")
        self.assertEqual(len(rows), len(served), "%s: one row per model call" % label)
        self.assertTrue(all(r["source"] == "hook" and r["call_id"] and r["seen"] == 1 for r in rows), "%s: %s" % (label, rows))
        for key, field in (("prompt", "prompt_tokens"), ("cache_read", "cache_read_tokens"), ("cache_write", "cache_write_tokens")):
            self.assertEqual(sum(r[field] for r in rows), sum(u[key] for u in served), "%s: %s" % (label, field))
        server_share = sum(u["cache_read"] for u in served) / sum(u["prompt"] for u in served)
        hmc_share = sum(r["hmc_cached"] for r in rows) / sum(r["hmc_input"] for r in rows)
        self.assertLess(abs(server_share - hmc_share), 0.10, "%s: cached share %.3f (HMC) vs %.3f (server)" % (label, hmc_share, server_share))
        s = box.analytics_session(session)
        self.assertGreater(s["cached_hmc"], 0)
        self.assertGreater(s["cached_raw"], 0)
        self.assertEqual((s["plain_raw"], s["plain_hmc"]), (0, 0))
        print("\n%s: %d calls, prompt %d (read %d, write %d) by the server; HMC sent %d (o200k), cached %.1f%% modelled vs %.1f%% served; "
              "session cached raw %d / %d, sent %d / %d" % (
                  label, len(rows), sum(u["prompt"] for u in served), sum(u["cache_read"] for u in served),
                  sum(u["cache_write"] for u in served), sum(r["hmc_input"] for r in rows), hmc_share * 100, server_share * 100,
                  s["cached_raw"], s["input_raw"], s["cached_hmc"], s["input_hmc"]))

    def test_hook_mode_every_shape(self):
        for install in INSTALLS:
            for shape in SHAPES:
                with self.subTest(version=install["version"], shape=shape):
                    self.check(install, shape)

    def test_cache_breaks_are_attributed_to_hmc_and_to_hermes(self):
        """Turn 2 reads the file again: HMC's dedup rewrites the earlier read, which the provider had
        cached: the provider's figures show the break, attributed to HMC. Then `/compress`: Hermes'
        own compressor replaces two messages in the middle by one (0.19.0 compacts in place): the
        next turn's first call breaks the cache, attributed to Hermes."""
        install = INSTALLS[0]
        box = Sandbox(self, install, SCRIPT, files(), hmc_config=BREAKS, toolsets="file,terminal", real_usage=True,
                      compression={"threshold": 0.9})
        hermes = box.interactive()
        try:
            hermes.wait_for("\u276f", 120)
            for n, text in enumerate(TURNS[:2], 1):
                hermes.say(text, lambda: any(e["turn"] == n for e in box.events(None, "turn")), 240)
            hermes.say("/compress", r"Compress(ed|ion)[^\n]*\n", 240)
            hermes.wait_for("\u276f", 60)
            hermes.say(TURNS[2], lambda: any(e["turn"] >= 3 for e in box.events(None, "turn")), 240)
            session = hermes.quit()
        finally:
            hermes.close()
        db = sqlite3.connect(box.state / "analytics.db")
        try:
            rows = db.execute("SELECT session_id, seq, call_id, prompt_tokens, cache_read_tokens, break_tokens, break_cause FROM provider_usage ORDER BY at, seq").fetchall()
        finally:
            db.close()
        print("\n%s breaks: %s" % (install["version"], [(r[1], r[3], r[4], r[5], r[6]) for r in rows if r[6]]))
        calls = box.hmc_session(session)["ledger"]["calls"]
        print("HMC's calls (raw, sent, cached raw, cached sent, cause): %s" % [(c.get("raw"), c.get("hmc"), c.get("cached_raw"), c.get("cached"), c.get("cause")) for c in calls])
        causes = [r[6] for r in rows if r[6]]
        self.assertIn("hmc", causes, rows)
        self.assertIn("hermes", causes, rows)
        self.assertTrue(session)

    def test_engine_mode(self):
        for install in INSTALLS:
            with self.subTest(version=install["version"]):
                self.check(install, W.CHAT, engine=True)


if __name__ == "__main__":
    unittest.main()
