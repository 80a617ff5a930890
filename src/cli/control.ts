/**
 * `hmc control <action> [key=value…] [--json]`: any hmc_control action outside Hermes, over the
 * sessions saved in the state dir (the latest one unless --session names another). A person gets
 * text (engine/control/control-text.ts, what `/hmc` prints); `--json` the JSON the model's tool gets.
 *
 * Invariant: an answer that is an error goes to stderr (its JSON to stdout with --json), exit 1;
 * `recall` writes the original alone on stdout (what it is, on stderr), so `> file` is exact.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRuntime } from '../app/runtime.js';
import { latestSavedSession } from '../engine/saving/saved-sessions.js';
import { resolveConfigPath, safeFileName } from '../config/paths.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import type { Command } from './command.js';
import { explicitConfig, invokedAs, UsageError } from './args.js';
import { CONTROL_HELP } from '../engine/control/control.js';
import { controlText, recallParts } from '../engine/control/control-text.js';

/** Actions about one session: from a terminal they mean the latest one saved. */
const SESSION_ACTIONS = new Set(['status', 'context', 'stats', 'index', 'sweep', 'manual_set', 'manual_status']);
/** Actions that change the session (saved afterwards, for the next Hermes process to carry on). */
const CHANGING_ACTIONS = new Set(['sweep', 'manual_set']);

const USAGE = `usage: hmc control <action> [key=value…] [--session ID] [--state-dir D] [--config PATH] [--json]
  any hmc_control action, on the latest session saved in the state dir (or --session ID; session=ID
  says the same, but for index, where it names whose phases to show); as text, or with --json the
  JSON the model's hmc_control tool gets
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
      options: {
        'state-dir': { type: 'string' },
        config: { type: 'string' },
        session: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
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
      if (eq <= 0)
        throw new UsageError(
          `expected key=value, got ${JSON.stringify(pair.length > 80 ? `${pair.slice(0, 80)}…` : pair)}`,
        );
      const [key, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      // `recall id=… session=ID`: the session to act on, as --session (issue 17, finding 5).
      if (key === 'session' && !isIndex) {
        if (named !== undefined && named !== value)
          throw new UsageError(
            `--session ${JSON.stringify(named)} and session=${JSON.stringify(value)} name two sessions; give one`,
          );
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
    const global =
      isIndex &&
      String(args.scope ?? '')
        .trim()
        .toLowerCase() === 'global';
    if (!sessionId && !global && SESSION_ACTIONS.has(String(action).toLowerCase())) {
      process.stderr.write(
        `hmc control: no session saved in ${sessionsDir} yet (Hermes saves one after every turn; check --state-dir or $HERMES_HOME)\n`,
      );
      return 1;
    }
    // A terminal is the machine's owner: every session's analytics and index (issue 26, finding 5).
    const runtime = await createRuntime({
      stateDir,
      configPath: resolveConfigPath(explicitConfig(values.config)),
      machineOwner: true,
    });
    try {
      const result = await runtime.api.control({ ...(sessionId ? { session_id: sessionId } : {}), args });
      // Only an action that changes the session saves it: a read-only one must not write an older
      // picture over the one a running Hermes saves meanwhile.
      if (sessionId && !('error' in result) && CHANGING_ACTIONS.has(String(action).toLowerCase()))
        runtime.api.onSessionEnd({ session_id: sessionId });
      await runtime.flush();
      if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else write(String(action).toLowerCase(), result);
      return typeof result.error === 'string' ? 1 : 0;
    } finally {
      await runtime.close();
    }
  },
};

/** The answer as text: an error on stderr; a recall's original alone on stdout; the rest as `/hmc` prints it. */
function write(action: string, result: Record<string, unknown>): void {
  const how = `${invokedAs()} control`;
  if (typeof result.error === 'string') {
    process.stderr.write(`hmc control: ${result.error}\n`);
    return;
  }
  const recall = action === 'recall' ? recallParts(result, how) : null;
  if (recall) {
    process.stderr.write(`${recall.head}\n`);
    process.stdout.write(recall.body);
    if (recall.next)
      process.stderr.write(`${recall.body.endsWith('\n') || recall.body === '' ? '' : '\n'}${recall.next}\n`);
    return;
  }
  process.stdout.write(`${controlText(action, result, how, CONTROL_HELP)}\n`);
}
