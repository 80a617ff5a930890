"""HMC's commands as a Hermes user meets them (issue 17, finding 5), once per Hermes install
(hermes_runs.py):

- Hermes' slash menu offers `/hmc` once. The plugin's `/hmc` command and the skill it installed
  both made an entry named `/hmc` (a skill becomes a slash command by its name); the guide is now
  a plugin skill (issue 27), which Hermes offers as no slash command at all.
- `hermes hmc dashboard start` says how to stop it with a command the user has (`hermes hmc
  dashboard stop`; it said `hmc dashboard stop`, and no `hmc` is on PATH), and that command works.
"""
import json
import re
import subprocess
import unittest

from hermes_runs import INSTALLS, Sandbox, needs_hermes

MENU = """
import json
from hermes_cli.plugins import discover_plugins
discover_plugins()
from agent.skill_commands import scan_skill_commands
from hermes_cli.commands import SlashCommandCompleter
from prompt_toolkit.document import Document
completer = SlashCommandCompleter(skill_commands_provider=scan_skill_commands)
print(json.dumps([c.display_text for c in completer.get_completions(Document("/hmc"), None)]))
"""


@needs_hermes
class HmcCommandsInHermes(unittest.TestCase):
    def test_one_hmc_in_the_slash_menu_and_a_stop_hint_that_works(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                box = Sandbox(self, install, {}, {})
                probe = subprocess.run([install["python"], "-c", MENU], cwd=box.work, env=box.env, capture_output=True, text=True, timeout=120)
                shown = json.loads(probe.stdout.strip().splitlines()[-1])
                self.assertEqual(shown.count("/hmc"), 1, shown)
                # The guide is a plugin skill (hmc:hmc-guide, issue 27): Hermes offers none as a slash command.
                self.assertNotIn("/hmc-guide", shown)

                hermes = lambda *args: subprocess.run([install["hermes"], "hmc", *args], cwd=box.work, env=box.env, capture_output=True, text=True, timeout=120)
                started = hermes("dashboard", "start", "--port", "0")
                try:
                    self.assertEqual(started.returncode, 0, started.stderr)
                    hint = re.search(r"`([^`]+)` stops it", started.stderr)
                    self.assertTrue(hint, started.stderr)
                    self.assertTrue(hint.group(1).startswith("hermes hmc dashboard stop"), hint.group(1))
                    stopped = hermes(*hint.group(1).split()[2:])
                    self.assertIn("stopped (pid", stopped.stderr)
                finally:
                    hermes("dashboard", "stop")
                print("\nHermes %s: slash menu %s; hint `%s`" % (install["version"], shown, hint.group(1)))


if __name__ == "__main__":
    unittest.main()
