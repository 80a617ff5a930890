/**
 * `hmc control <action> [key=value…]`: any hmc_control action outside Hermes, over the sessions
 * saved in the state dir (the latest one unless --session names another).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRuntime } from '../app/runtime.js';
import { latestSavedSession } from '../engine/saved-sessions.js';
import { resolveConfigPath, safeFileName } from '../config/paths.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import type { Command } from './command.js';
import { explicitConfig, UsageError } from './args.js';

/** Actions about one session: from a terminal they mean the latest one saved. */
const SESSION_ACTIONS = new Set(['status', 'context', 'stats', 'index', 'sweep', 'manual_set', 'manual_status']);
/** Actions that change the session (saved afterwards, for the next Hermes process to carry on). */
const CHANGING_ACTIONS = new Set(['sweep', 'manual_set']);

const USAGE = `usage: hmc control <action> [key=value…] [--session ID] [--state-dir D] [--config PATH]
  any hmc_control action, on the latest session saved in the state dir (or --session ID; session=ID
  says the same, but for index, where it names whose phases to show)
  actions: status context stats index recall analytics dashboard sweep manual_set manual_status config help
  hmc control index [words…] [scope=global] [phase=N]: the session index (list, search, one phase)
`;

export const command: Command = {
  summary: 'any hmc_control action outside Hermes',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'state-dir': { type: 'string' }, config: { type: 'string' }, session: { type: 'string' } },
    });
    const [action, ...pairs] = positionals;
    if (!action) throw new UsageError('name an action');
    const args: Record<string, unknown> = { action };
    const isIndex = String(action).toLowerCase() === 'index';
    let named = values.session;
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      // `hmc control index flaky test`: bare words are search words.
      if (eq <= 0 && isIndex) {
        args.query = typeof args.query === 'string' && args.query ? `${args.query} ${pair}` : pair;
        continue;
      }
      if (eq <= 0) throw new UsageError(`expected key=value, got ${JSON.stringify(pair.length > 80 ? `${pair.slice(0, 80)}…` : pair)}`);
      const [key, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      // `recall id=… session=ID`: the session to act on, as --session (issue 17, finding 5).
      if (key === 'session' && !isIndex) {
        if (named !== undefined && named !== value) throw new UsageError(`--session ${JSON.stringify(named)} and session=${JSON.stringify(value)} name two sessions; give one`);
        named = value;
        continue;
      }
      args[key] = value;
    }
    const stateDir = resolveStateDir(values['state-dir']);
    const sessionsDir = join(stateDir, 'sessions');
    // A named session must exist: control would otherwise answer for an empty one it made up.
    if (named !== undefined && !existsSync(join(sessionsDir, `${safeFileName(named)}.json`))) {
      throw new UsageError(`no session ${JSON.stringify(named)} saved in ${sessionsDir} (--session)`);
    }
    const sessionId = named ?? latestSavedSession(stateDir);
    // A search across sessions needs none.
    const global = isIndex && String(args.scope ?? '').trim().toLowerCase() === 'global';
    if (!sessionId && !global && SESSION_ACTIONS.has(String(action).toLowerCase())) {
      process.stderr.write(`hmc control: no session saved in ${sessionsDir} yet (Hermes saves one after every turn; check --state-dir or $HERMES_HOME)\n`);
      return 1;
    }
    // A terminal is the machine's owner: every session's analytics and index (issue 26, finding 5).
    const runtime = await createRuntime({ stateDir, configPath: resolveConfigPath(explicitConfig(values.config)), machineOwner: true });
    try {
      const result = await runtime.api.control({ ...(sessionId ? { session_id: sessionId } : {}), args });
      // Only an action that changes the session saves it: a read-only one must not write an older
      // picture over the one a running Hermes saves meanwhile.
      if (sessionId && !('error' in result) && CHANGING_ACTIONS.has(String(action).toLowerCase())) runtime.api.onSessionEnd({ session_id: sessionId });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      await runtime.flush();
      return typeof result.error === 'string' ? 1 : 0;
    } finally {
      await runtime.close();
    }
  },
};
