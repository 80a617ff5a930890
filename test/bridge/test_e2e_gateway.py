"""`/hmc` in Hermes' gateway after a restart (issue 27): the gateway passes no session to a plugin
command, and after a restart no hook has named one yet, so `/hmc` showed whichever session a hook
named last (another chat's) or none. Driven through the gateway's own code, once per Hermes install
(hermes_runs.py), no network: a real `GatewayRunner` and its real `SessionStore` in a temporary
HERMES_HOME, messages handed to `GatewayRunner._handle_message` as a platform adapter hands them.

- Process 1: chat 1001 gets a session from the store and HMC sees a turn of it (its hook).
- Process 2 (the restart): another chat's turn makes HMC's last session that one; then `/hmc stats`
  from chat 1001 answers about chat 1001's session, from the store; `/hmc stats` from a chat with
  no session answers about that chat (nothing yet, under the store's key for it), never another's.
"""
import re
import subprocess
import unittest

from hermes_runs import INSTALLS, Sandbox, needs_hermes

GATEWAY = """
import asyncio, sys
from gateway.config import GatewayConfig, Platform
from gateway.platforms.base import MessageEvent
from gateway.run import GatewayRunner
from gateway.session import SessionSource
from hermes_cli.plugins import discover_plugins, invoke_hook

runner = GatewayRunner(GatewayConfig())
discover_plugins()
source = lambda chat: SessionSource(platform=Platform.TELEGRAM, chat_id=chat, user_id=chat, chat_type="dm")
turn = lambda sid, chat: invoke_hook("pre_llm_call", session_id=sid, conversation_history=[{"role": "user", "content": "hello"}],
                                     user_message="hello", is_first_turn=True, model="m", platform="telegram", sender_id=chat)
if sys.argv[1] == "first":
    sid = runner.session_store.get_or_create_session(source("1001")).session_id
    turn(sid, "1001")
    print("SESSION " + sid)
else:
    turn("other-chat-session", "2002")
    for chat in ("1001", "3003"):
        answer = asyncio.run(runner._handle_message(MessageEvent(text="/hmc stats", source=source(chat))))
        print("ANSWER %s %s" % (chat, " ".join(str(answer).split())))
"""


@needs_hermes
class HmcInTheGatewayAfterARestart(unittest.TestCase):
    def test_hmc_answers_about_the_chats_own_session(self):
        for install in INSTALLS:
            with self.subTest(hermes=install["version"]):
                box = Sandbox(self, install, {}, {})
                env = dict(box.env, GATEWAY_ALLOW_ALL_USERS="true")
                run = lambda step: subprocess.run([install["python"], "-c", GATEWAY, step], cwd=box.work, env=env,
                                                  capture_output=True, text=True, timeout=180)
                first = run("first")
                found = re.search(r"^SESSION (\S+)$", first.stdout, re.M)
                self.assertTrue(found, first.stdout[-2000:] + first.stderr[-3000:])
                sid = found.group(1)
                self.assertTrue(box.hmc_session(sid), "HMC saved the chat's session")

                after = run("restart")
                answers = dict(re.findall(r"^ANSWER (\d+) (.*)$", after.stdout, re.M))
                self.assertIn('HMC stats, session %s ' % sid, answers.get("1001", ""), after.stdout[-2000:] + after.stderr[-3000:])
                self.assertNotIn("other-chat-session", answers.get("1001", ""))
                # No session in the store for that chat: its own (empty) figures under the chat's key.
                self.assertIn('HMC stats, session gateway-chat:agent:main:telegram:dm:3003 ', answers.get("3003", ""))
                self.assertNotIn("other-chat-session", answers.get("3003", ""))
                print("\nGateway (Hermes %s): /hmc stats after a restart shows %s (before: other-chat-session)" % (install["version"], sid))


if __name__ == "__main__":
    unittest.main()
