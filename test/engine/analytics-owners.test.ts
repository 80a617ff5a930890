/**
 * A gateway user's analytics show only their own sessions (issue 26, finding 5): as a second
 * sender on a gateway, `hmc_control analytics scope=global period=recent` listed the first user's
 * session ids, project paths (`/srv/alice/…`), model, platform, times and figures, and
 * `period=project` their project paths. Every period × scope, through `hmc_control` and `/hmc`,
 * from Bob's session, must answer nothing of Alice's; a CLI session (no sender: the machine's own)
 * sees every session as before. Real runtime, real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { defaultConfig } from '../../src/config/keys.js';
import { analyticsAction, PERIODS, SCOPES } from '../../src/store/action.js';
import { migrate, openStore } from '../../src/store/index.js';
import { user } from '../helpers/conversation.js';

const runtimes: Runtime[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Two Telegram users and one CLI session, each in a project and with a model of its own. */
const PEOPLE = {
  alice: { platform: 'telegram', sender_id: '1001', project_path: '/srv/alice/payroll', model: 'alice-model-x' },
  bob: { platform: 'telegram', sender_id: '2002', project_path: '/srv/bob/web', model: 'bob-model-y' },
  cli1: { platform: 'cli', project_path: '/home/me/tool', model: 'cli-model-z' },
} as const;

/** What of Alice's must never reach Bob. */
const ALICE = ['alice', '/srv/alice', 'alice-model-x', '1001'];

async function gateway(across = false, dir = mkdtempSync(join(tmpdir(), 'hmc-analytics-owners-'))): Promise<Runtime> {
  dirs.push(dir);
  const config = defaultConfig();
  config.background_compression.index_across_users = across;
  const rt = await createRuntime({ stateDir: dir, config, log: () => {} });
  runtimes.push(rt);
  for (const [id, who] of Object.entries(PEOPLE)) {
    const out = 'x\n'.repeat(4000);
    rt.api.preLlmCall({ session_id: id, messages: [user(`hello from ${id}`)], ...who });
    rt.api.preToolCall({ session_id: id, tool_name: 'terminal', args: { command: 'ls' }, tool_call_id: `${id}-c1` });
    rt.api.postToolCall({
      session_id: id,
      tool_name: 'terminal',
      args: { command: 'ls' },
      tool_call_id: `${id}-c1`,
      result: out,
    });
    rt.api.updateFromResponse?.({
      session_id: id,
      model: who.model,
      provider: 'p',
      usage: {
        prompt_tokens: 100,
        completion_tokens: 5,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      },
    });
    await rt.api.onSessionEnd({ session_id: id });
  }
  await rt.flush();
  return rt;
}

const analytics = (rt: Runtime, from: string | undefined, args: Record<string, unknown>) =>
  rt.api.control({ ...(from ? { session_id: from } : {}), args: { action: 'analytics', ...args } });

describe('analytics across gateway users', () => {
  it('answers Bob nothing of Alice in every period and scope, through hmc_control and /hmc', async () => {
    const rt = await gateway();
    let ownRows = 0;
    for (const period of PERIODS) {
      for (const scope of SCOPES) {
        const answer = await analytics(rt, 'bob', { period, scope, since: '2000-01-01' });
        expect(answer.error, `${period} ${scope}`).toBeUndefined();
        const text = JSON.stringify(answer);
        for (const secret of ALICE) expect(text, `${period} ${scope}: ${secret}`).not.toContain(secret);
        if (text.includes('/srv/bob') || text.includes('bob-model-y') || text.includes('"bob"')) ownRows++;
        const slash = await rt.api.command({
          session_id: 'bob',
          raw_args: `analytics period=${period} scope=${scope}`,
        });
        for (const secret of ALICE) expect(slash, `/hmc ${period} ${scope}: ${secret}`).not.toContain(secret);
      }
    }
    // Bob's own sessions are there (recent, project and model in both scopes at least).
    expect(ownRows).toBeGreaterThanOrEqual(6);
    const all = await analytics(rt, 'bob', { period: 'all' });
    expect(all).toMatchObject({ total_sessions: 1 });
    // Naming Alice's session does not open it: the reconcile of her calls is not Bob's to read.
    const named = await analytics(rt, 'bob', { period: 'usage', session: 'alice' });
    expect(named).toMatchObject({ calls: 0 });
    expect(await analytics(rt, 'bob', { period: 'usage', session: 'bob' })).toMatchObject({ calls: 1 });
    expect(await analytics(rt, 'cli1', { period: 'usage', session: 'alice' })).toMatchObject({ calls: 1 });
  });

  it('lets a CLI session (the machine\u2019s own) see every session, as before', async () => {
    const rt = await gateway();
    const recent = JSON.stringify(await analytics(rt, 'cli1', { period: 'recent' }));
    for (const id of ['alice', 'bob', 'cli1']) expect(recent).toContain(`"session_id":"${id}"`);
    expect(await analytics(rt, 'cli1', { period: 'all' })).toMatchObject({ total_sessions: 3 });
    const projects = JSON.stringify(await analytics(rt, 'cli1', { period: 'project' }));
    expect(projects).toContain('/srv/alice/payroll');
  });

  it('opens every session to all with background_compression.index_across_users, as the index does', async () => {
    const rt = await gateway(true);
    expect(await analytics(rt, 'bob', { period: 'all' })).toMatchObject({ total_sessions: 3 });
  });

  it('guesses no session for a control call that names none once several users are held', async () => {
    const rt = await gateway();
    for (const action of ['stats', 'context', 'status', 'analytics']) {
      const answer = JSON.stringify(await rt.api.control({ args: { action, period: 'recent' } }));
      for (const secret of ALICE) expect(answer, `${action}: ${secret}`).not.toContain(secret);
    }
  });

  it('lets the machine’s owner at a terminal (`hmc control`) see every session, even from a user’s session', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-analytics-owners-'));
    const rt = await gateway(false, dir);
    await rt.close();
    runtimes.splice(runtimes.indexOf(rt), 1);
    const terminal = await createRuntime({ stateDir: dir, config: defaultConfig(), log: () => {}, machineOwner: true });
    runtimes.push(terminal);
    expect(await analytics(terminal, 'alice', { period: 'all' })).toMatchObject({ total_sessions: 3 });
    expect(JSON.stringify(await analytics(terminal, 'alice', { period: 'project' }))).toContain('/srv/bob/web');
  });
});

describe('sessions recorded before owners were kept (schema v7)', () => {
  it('read as the machine’s own: a gateway user never sees them, the machine’s owner does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-analytics-owners-'));
    dirs.push(dir);
    const path = join(dir, 'analytics.db');
    const db = new Database(path);
    migrate(db, 7);
    db.prepare(`INSERT INTO sessions (id, project_path, platform, model, started_at, turns, tool_calls, input_raw, input_hmc, saved,
      context_peak, recorded_at) VALUES ('old', '/srv/alice/old', 'telegram', 'old-model', 1, 1, 1, 100, 50, 50, 0, 1)`).run();
    db.close();
    const store = openStore(path);
    try {
      for (const period of PERIODS) {
        const theirs = JSON.stringify(analyticsAction(store, { period }, { project: '/srv', owner: 'telegram:2002' }));
        expect(theirs, period).not.toContain('/srv/alice/old');
        expect(theirs, period).not.toContain('old-model');
      }
      expect(analyticsAction(store, { period: 'all' }, { project: '/srv' })).toMatchObject({ total_sessions: 1 });
    } finally {
      store.close();
    }
  });
});
