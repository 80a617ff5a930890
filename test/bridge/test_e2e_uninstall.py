"""HMC leaves with its plugin (issue 27, finding 1), in a real Hermes, once per install
(hermes_runs.py), with the plugin installed as a copy of its files (a link cannot be removed):

- enabled: a `-q` session has `hmc_control`; the guide is a plugin skill Hermes resolves by name
  (`skill_view("hmc:hmc-guide")`), nothing is copied into $HERMES_HOME/skills/ and the system
  prompt's skill index does not list it; `hermes hmc dashboard start` runs the background dashboard.
- `hermes plugins disable hmc`: the dashboard exits by itself (its log says why), the next session
  has no `hmc_control` and no HMC skill in its system prompt, and no HMC process is left.
- `hermes plugins enable hmc`: HMC works again (the tool, the session's events, the dashboard).
- `hermes plugins remove hmc`: the dashboard exits by itself (its files are gone), nothing of HMC
  runs or is advertised; the state dir stays (README "Uninstall").

Before: the dashboard ran on after both (its `/` a 404 once the files were deleted), and the skill
stayed in $HERMES_HOME/skills/ and in the system prompt.
"""
import json
import subprocess
import time
import unittest
from pathlib import Path

from hermes_runs import INSTALLS, Sandbox, needs_hermes

SKILL_VIEW = """
import json
from hermes_cli.plugins import discover_plugins
discover_plugins()
from tools.skills_tool import skill_view
print(json.dumps(json.loads(skill_view("hmc:hmc-guide"))))
"""
ORPHAN_WAIT = 30.0  # the rule's bound is 10 s (two checks 5 s apart); room for a loaded machine


def hmc_processes(plugin):
    """Pids of processes running from the plugin's folder (the sidecar, the dashboard)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if str(plugin) in text:
            found.append(int(cmdline.parent.name))
    return found


def alive(pid):
    try:
        stat = Path("/proc/%d/stat" % pid).read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@needs_hermes
class HmcLeavesWithItsPlugin(unittest.TestCase):
    def test_disable_enable_remove(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                # The skills toolset on: Hermes puts its skill index in the system prompt only then.
                box = Sandbox(self, install, {}, {}, plugin_copy=True, toolsets="file,terminal,skills,hmc_tools")
                note = box.home / "skills" / "my-note" / "SKILL.md"
                note.parent.mkdir(parents=True)
                note.write_text("---\nname: my-note\ndescription: A note of the user's own.\n---\n\nHello.\n")
                self.lifecycle(box)

    def hermes(self, box, *args):
        return subprocess.run([box.install["hermes"], *args], cwd=box.work, env=box.env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=240)

    def turn(self, box, text):
        """One `-q` session; its first agent request (tools, system prompt)."""
        rc, out, err, sid = box.run_q(text)
        self.assertTrue(rc == 0 and "All done." in out, err[-2000:])
        req = next(r for r in box.server.requests if r["user"].startswith(text.split(":")[0]) and r["tools"])
        names = [t if isinstance(t, str) else (t.get("function") or t).get("name") for t in req["tools"]]
        system = next((m.get("content") for m in req["messages"] if m.get("role") == "system"), "") or ""
        return sid, names, system

    def start_dashboard(self, box):
        started = self.hermes(box, "hmc", "dashboard", "start", "--port", "0")
        self.assertEqual(started.returncode, 0, started.stderr)
        pid = json.loads((box.state / "dashboard.json").read_text())["pid"]
        self.assertTrue(alive(pid))
        return pid

    def wait_gone(self, pid):
        t0 = time.monotonic()
        while alive(pid) and time.monotonic() - t0 < ORPHAN_WAIT:
            time.sleep(0.2)
        return time.monotonic() - t0

    def lifecycle(self, box):
        plugin = box.home / "plugins" / "hmc"
        log = box.state / "dashboard.log"
        held = []

        # Enabled: the tool, the guide as the plugin's own skill, the dashboard.
        sid, tools, system = self.turn(box, "T1: hello")
        self.assertIn("hmc_control", tools)
        self.assertIn("my-note", system, "the skill index is in the system prompt")
        self.assertNotIn("hmc-guide", system)
        self.assertFalse((box.home / "skills" / "hmc-guide").exists(), "nothing copied into Hermes' skills")
        self.assertFalse((box.home / "skills" / "hmc").exists())
        probe = subprocess.run([box.install["python"], "-c", SKILL_VIEW], cwd=box.work, env=box.env, capture_output=True, text=True, timeout=120)
        viewed = json.loads(probe.stdout.strip().splitlines()[-1])
        self.assertTrue(viewed.get("success"), viewed)
        self.assertIn("hmc_control", viewed.get("content", ""))
        self.assertTrue(box.events(sid, "turn"), "HMC saw the session")
        pid = self.start_dashboard(box)

        # Disabled: the dashboard leaves by itself; the next session knows nothing of HMC.
        self.assertEqual(self.hermes(box, "plugins", "disable", "hmc").returncode, 0)
        took = self.wait_gone(pid)
        self.assertFalse(alive(pid), "the dashboard still runs %.0f s after `hermes plugins disable hmc`" % ORPHAN_WAIT)
        self.assertIn("hmc dashboard: exiting: the hmc plugin is disabled in %s" % (box.home / "config.yaml"), log.read_text())
        held.append("disable: dashboard gone in %.1f s" % took)
        sid2, tools, system = self.turn(box, "T2: hello")
        self.assertNotIn("hmc_control", tools)
        self.assertNotIn("hmc-guide", system)
        self.assertEqual(box.events(sid2, "turn"), [], "HMC is off")
        self.assertEqual(hmc_processes(plugin), [], "no HMC process after disable")
        held.append("disable: no hmc_control, no skill, 0 processes")

        # Enabled again: HMC works as before.
        self.assertEqual(self.hermes(box, "plugins", "enable", "hmc").returncode, 0)
        sid3, tools, _ = self.turn(box, "T3: hello")
        self.assertIn("hmc_control", tools)
        self.assertTrue(box.events(sid3, "turn"), "HMC saw the session again")
        pid = self.start_dashboard(box)
        held.append("enable: works again")

        # Removed: the files are gone, and the dashboard with them.
        removed = self.hermes(box, "plugins", "remove", "hmc")
        self.assertEqual(removed.returncode, 0, removed.stderr)
        self.assertFalse(plugin.exists())
        took = self.wait_gone(pid)
        self.assertFalse(alive(pid), "the dashboard still runs %.0f s after `hermes plugins remove hmc`" % ORPHAN_WAIT)
        self.assertIn("hmc dashboard: exiting: the files it runs from are gone", log.read_text())
        held.append("remove: dashboard gone in %.1f s" % took)
        _, tools, system = self.turn(box, "T4: hello")
        self.assertNotIn("hmc_control", tools)
        self.assertNotIn("hmc-guide", system)
        self.assertEqual(hmc_processes(plugin), [], "no HMC process after remove")
        self.assertTrue((box.state / "analytics.db").is_file(), "the state dir stays (README: Uninstall)")
        held.append("remove: no hmc_control, no skill, 0 processes, state dir kept")
        print("\nUninstall (Hermes %s) held: %s" % (box.install["version"], "; ".join(held)))


if __name__ == "__main__":
    unittest.main()
