"""Hermes' own figures (split from test_bridge.py): the context window and the compression
threshold read from its config.yaml by the sidecar, answered in the hello and sent with each call;
a summary priced from Hermes' price table; a hello without host figures, or with odd ones."""
import json
import sys
import unittest

from harness import BridgeCase, fake_sidecar_command, needs_build, needs_node, spy_calls
from fake_host import FakeCtx


class HostFigureTests(BridgeCase):
    @needs_node
    @needs_build  # the sidecar reads Hermes' config.yaml (its cases: test/hosts/hermes/config-file.test.ts)
    def test_the_context_window_comes_from_hermes_config(self):
        (self.home / "config.yaml").write_text(
            "plugins:\n  enabled: [hmc]\nmodel:\n  provider: custom\n  # the window\n  context_length: 131072  # tokens\n  default: m\ncompression:\n  context_length: 5\n"
        )
        mod, bridge = self.load_bridge(FakeCtx())
        assert bridge.sidecar.hello_params["host_config_file"] == str(self.home / "config.yaml")
        seen = spy_calls(bridge)
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        assert bridge.context_length == 131072
        assert ("pre_llm_call", sorted(["session_id", "messages", "model", "context_length", "compression_threshold"])) in seen

    @needs_node
    @needs_build
    def test_hermes_compression_threshold_comes_from_its_config(self):
        (self.home / "config.yaml").write_text("model:\n  context_length: 200000\ncompression:\n  enabled: true\n  threshold: 0.6  # share\n")
        mod, bridge = self.load_bridge(FakeCtx())
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        try:
            import agent.context_compressor  # noqa: F401  (a real Hermes applies its own floors)
            has_hermes = True
        except Exception:
            has_hermes = False
        if not has_hermes:
            assert bridge.compression_threshold == 0.6
        assert mod.hmc_bridge.hermes.trigger_share(None, 0.6) == 0.6  # no window: the share as it is
        (self.home / "config.yaml").write_text("compression:\n  enabled: false\n  threshold: 0.6\n")
        _, off = self.load_bridge(FakeCtx())
        seen = spy_calls(off)
        off.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        assert off.compression_threshold is None and off.context_length is None
        assert ("pre_llm_call", sorted(["session_id", "messages", "model"])) in seen

    def test_a_summary_is_priced_from_hermes_own_price_table_when_it_knows_both_models(self):
        import types
        from decimal import Decimal
        from unittest import mock

        mod, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command())
        table = {"big": (Decimal("3"), Decimal("15")), "aux-model": (Decimal("0.8"), Decimal("4")), "free": (Decimal("0"), Decimal("0"))}

        def get_pricing_entry(model, provider=None, base_url=None, api_key=None):
            if model not in table:
                return None
            return types.SimpleNamespace(input_cost_per_million=table[model][0], output_cost_per_million=table[model][1])

        pricing = types.ModuleType("agent.usage_pricing")
        pricing.get_pricing_entry = get_pricing_entry
        with mock.patch.dict(sys.modules, {"agent": types.ModuleType("agent"), "agent.usage_pricing": pricing}):
            price = mod.hmc_bridge.hermes.summariser_price
            assert price(("big", "anthropic", None), "aux-model", "anthropic") == {"input": 0.8 / 3, "output": 4 / 3}
            assert price(("big", "anthropic", None), "", None) == {"input": 1.0, "output": 5.0}  # no model named: the main one
            assert price(("big", "anthropic", None), "unknown-model", "x") is None
            assert price(("free", "local", None), "aux-model", None) is None  # a free main model: no multiple
            assert price(None, "aux-model", None) is None  # no model call seen yet
            # Through llm.complete: the answer carries the price once a model call named the main model.
            assert "price" not in bridge.host_request("llm.complete", {"messages": [{"role": "user", "content": "x"}], "max_tokens": 5})
            bridge.main_model = ("big", "anthropic", None)
            answer = bridge.host_request("llm.complete", {"messages": [{"role": "user", "content": "x"}], "max_tokens": 5})
            assert answer["price"] == {"input": 0.8 / 3, "output": 4 / 3} and answer["model"] == "aux-model"

    def test_a_hello_without_host_figures_sends_none_and_odd_figures_are_ignored(self):
        for figures in (None, {"context_length": "131072", "compression_threshold": True}, {"context_length": -1, "compression_threshold": 0}):
            with self.subTest(figures=figures):
                extra = ("--host-config", json.dumps(figures)) if figures is not None else ()
                _, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command(*extra))
                seen = spy_calls(bridge)
                bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
                assert (bridge.context_length, bridge.compression_threshold, bridge.stream_bytes) == (None, None, None)
                assert ("pre_llm_call", sorted(["session_id", "messages", "model"])) in seen
        _, bridge = self.load_bridge(FakeCtx(), HMC_SIDECAR_COMMAND=fake_sidecar_command("--host-config", json.dumps({"context_length": 64000, "compression_threshold": 0.7})))
        seen = spy_calls(bridge)
        bridge.pre_llm_call(session_id="s", conversation_history=[{"role": "user", "content": "hi"}], model="m")
        assert bridge.context_length == 64000
        assert ("pre_llm_call", sorted(["session_id", "messages", "model", "context_length", "compression_threshold"])) in seen


if __name__ == "__main__":
    unittest.main()
