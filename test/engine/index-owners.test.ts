/**
 * Sessions never read each other's summaries across users (issue 19, finding 4): on a gateway
 * serving several people, `hmc_control index session=A phase=1` and `scope=global` from B's
 * session answer nothing of A's when A is another user's; on one person's CLI (no sender named)
 * nothing changes; `background_compression.index_across_users: true` opens every session to all.
 * The owner survives the process (the session file), so a new sidecar scopes the same way.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { defaultConfig, type HmcConfig } from '../../src/config/keys.js';
import { phase } from '../store/fixtures/phases.js';
import { user } from '../helpers/conversation.js';

const runtimes: Runtime[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Who each session is, as Hermes names them: two Telegram users, and two CLI sessions (no sender). */
const PEOPLE: Record<string, { platform: string; sender_id?: string }> = {
  alice: { platform: 'telegram', sender_id: '1001' },
  bob: { platform: 'telegram', sender_id: '2002' },
  cli1: { platform: 'cli' },
  cli2: { platform: 'cli' },
};

async function start(dir: string, across = false, analytics = true): Promise<Runtime> {
  const config: HmcConfig = defaultConfig();
  config.analytics.enabled = analytics;
  config.background_compression.index_across_users = across;
  const rt = await createRuntime({ stateDir: dir, config, log: () => {} });
  runtimes.push(rt);
  return rt;
}

async function gateway(across = false, analytics = true): Promise<{ rt: Runtime; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-owners-'));
  dirs.push(dir);
  const rt = await start(dir, across, analytics);
  for (const [id, who] of Object.entries(PEOPLE))
    rt.api.preLlmCall({ session_id: id, messages: [user(`hello from ${id}`)], ...who });
  rt.phases.record(
    phase({
      session_id: 'alice',
      phase_id: 1,
      topic: 'Alice payroll export',
      summary: 'Goal: export the payroll of ACME.\nFacts: salary file at /srv/payroll.csv',
    }),
  );
  rt.phases.record(
    phase({ session_id: 'cli1', phase_id: 1, topic: 'CLI payroll build', summary: 'Goal: build the payroll tool.' }),
  );
  await rt.flush();
  return { rt, dir };
}

const index = (rt: Runtime, from: string, args: Record<string, unknown>) =>
  rt.api.control({ session_id: from, args: { action: 'index', ...args } });

describe('the session index across users', () => {
  it('answers nothing of another user\u2019s session, by name or by search', async () => {
    const { rt } = await gateway();
    const named = await index(rt, 'bob', { session: 'alice', phase: 1 });
    expect(named).toMatchObject({ error: expect.stringContaining('no phase 1 in session "alice"') });
    expect(JSON.stringify(named)).not.toContain('payroll');
    expect(await index(rt, 'bob', { session: 'alice' })).toMatchObject({ session_id: 'alice', count: 0, entries: [] });
    const global = await index(rt, 'bob', { query: 'payroll', scope: 'global' });
    expect(global).toMatchObject({ count: 0, hits: [] });
    expect(await index(rt, 'bob', { query: 'payroll', scope: 'session', session: 'alice' })).toMatchObject({
      count: 0,
    });
    // Nor the machine's own (CLI) sessions, nor does the CLI read Alice's.
    expect(await index(rt, 'cli2', { query: 'payroll', scope: 'global' })).toMatchObject({
      count: 1,
      hits: [{ session_id: 'cli1' }],
    });
    expect(await index(rt, 'cli2', { session: 'alice', phase: 1 })).toMatchObject({
      error: expect.stringContaining('no phase 1'),
    });
  });

  it('lets a user read their own sessions, and a CLI its own, as before', async () => {
    const { rt } = await gateway();
    expect(await index(rt, 'alice', { query: 'payroll', scope: 'global' })).toMatchObject({
      count: 1,
      hits: [{ session_id: 'alice' }],
    });
    expect(await index(rt, 'alice', { phase: 1 })).toMatchObject({ phase: { topic: 'Alice payroll export' } });
    expect(await index(rt, 'cli2', { session: 'cli1', phase: 1 })).toMatchObject({
      phase: { topic: 'CLI payroll build' },
    });
  });

  it('reads across users when background_compression.index_across_users is true', async () => {
    const { rt } = await gateway(true);
    expect(await index(rt, 'bob', { session: 'alice', phase: 1 })).toMatchObject({
      phase: { topic: 'Alice payroll export' },
    });
    expect((await index(rt, 'bob', { query: 'payroll', scope: 'global' })).count).toBe(2);
  });

  it('scopes the same without analytics (the index files are searched) and in a new process (the owner is in the session file)', async () => {
    const { rt, dir } = await gateway(false, false);
    expect(await index(rt, 'bob', { query: 'payroll', scope: 'global' })).toMatchObject({ count: 0, search: 'scan' });
    await rt.api.onSessionFinalize({ session_id: 'alice', reason: 'x' });
    await rt.flush();
    await rt.close();
    runtimes.splice(runtimes.indexOf(rt), 1);
    expect(JSON.parse(readFileSync(join(dir, 'sessions', 'alice.json'), 'utf8'))).toMatchObject({
      platform: 'telegram',
      user: '1001',
    });
    const next = await start(dir);
    // Bob's first call in the new process is the control call: his owner comes from his file too.
    expect(await index(next, 'bob', { session: 'alice', phase: 1 })).toMatchObject({
      error: expect.stringContaining('no phase 1'),
    });
    expect(await index(next, 'alice', { phase: 1 })).toMatchObject({ phase: { topic: 'Alice payroll export' } });
  });
});
