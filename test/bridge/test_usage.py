"""The bridge's reading of Hermes' `post_api_request` usage (hmc_bridge/usage.py, issue 24): the
normalised buckets Hermes hands the hook become update_from_response params with the call's ids,
and Hermes' own price of the model; a hook without usage or session sends nothing."""
import sys
import types
import unittest

from harness import REPO

sys.path.insert(0, str(REPO))
from hmc_bridge import usage  # noqa: E402


# What Hermes 0.19.0 passes: asdict(CanonicalUsage) with prompt_tokens and total_tokens added.
HOOK = {"session_id": "S1", "model": "claude-sonnet-4", "provider": "anthropic", "base_url": "", "api_request_id": "req-7",
        "turn_id": "turn-2", "api_call_count": 3, "ended_at": 1764331200.5,
        "usage": {"input_tokens": 120, "output_tokens": 40, "cache_read_tokens": 3000, "cache_write_tokens": 500,
                  "reasoning_tokens": 7, "request_count": 1, "prompt_tokens": 3620, "total_tokens": 3660}}


class UsageParams(unittest.TestCase):
    def test_a_hooks_usage_becomes_the_sidecars_params_with_the_calls_ids(self):
        p = usage.params(HOOK, lambda *a: None)
        self.assertEqual(p, {"session_id": "S1", "model": "claude-sonnet-4", "provider": "anthropic", "source": "hook",
                             "usage": {"prompt_tokens": 3620, "completion_tokens": 40, "cache_read_tokens": 3000,
                                       "cache_write_tokens": 500, "reasoning_tokens": 7},
                             "call_id": "req-7", "turn_id": "turn-2", "call_count": 3, "at": 1764331200500})

    def test_the_prompt_is_the_three_input_buckets_when_hermes_gives_no_total(self):
        kw = dict(HOOK, usage={"input_tokens": 120, "output_tokens": 40, "cache_read_tokens": 3000, "cache_write_tokens": 500})
        self.assertEqual(usage.params(kw, lambda *a: None)["usage"]["prompt_tokens"], 3620)

    def test_no_usage_or_no_session_sends_nothing(self):
        self.assertIsNone(usage.params(dict(HOOK, usage=None)))
        self.assertIsNone(usage.params(dict(HOOK, session_id="")))

    def test_hermes_price_goes_with_it_a_cache_price_left_out_is_the_input_price(self):
        entry = types.SimpleNamespace(input_cost_per_million=2.5, output_cost_per_million=10, cache_read_cost_per_million=1.25,
                                      cache_write_cost_per_million=None, source="official_docs_snapshot")
        module = types.ModuleType("agent.usage_pricing")
        module.get_pricing_entry = lambda model, provider=None, base_url=None: entry if model == "gpt-4o" else None
        sys.modules["agent"] = types.ModuleType("agent")
        sys.modules["agent.usage_pricing"] = module
        self.addCleanup(sys.modules.pop, "agent")
        self.addCleanup(sys.modules.pop, "agent.usage_pricing")
        usage._PRICES.clear()
        self.assertEqual(usage.host_price("gpt-4o", "openai", ""),
                         {"input": 2.5, "output": 10.0, "cache_read": 1.25, "cache_write": 2.5, "source": "official_docs_snapshot"})
        self.assertIsNone(usage.host_price("my-local-llama", "custom", ""))
        self.assertEqual(usage.params(dict(HOOK, model="gpt-4o"))["price"]["input"], 2.5)


if __name__ == "__main__":
    unittest.main()
