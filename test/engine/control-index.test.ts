/**
 * `hmc_control action=index` and `/hmc index …` over a real runtime (state dir, SQLite): the list
 * (newest last), one phase with its whole summary, search in this session and across sessions,
 * and errors that name the bad argument.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { Engine } from '../../src/engine/engine.js';
import { createRuntime, type Runtime } from '../../src/app/runtime.js';
import { NULL_SINK } from '../../src/events/types.js';
import { phase } from '../store/fixtures/phases.js';
import { user } from '../helpers/conversation.js';

let runtime: Runtime | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await runtime?.close();
  runtime = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

async function started(analytics = true): Promise<Runtime> {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-index-'));
  dirs.push(dir);
  const config = defaultConfig();
  config.analytics.enabled = analytics;
  runtime = await createRuntime({ stateDir: dir, config, log: () => {} });
  runtime.api.preLlmCall({ session_id: 'me', messages: [user('hello')] });
  runtime.phases.record(
    phase({
      session_id: 'me',
      phase_id: 1,
      topic: 'Repo set-up',
      summary: 'Goal: clone and build.\nDone: npm install, npm run build.',
      tokens_before: 14_200,
      tokens_after: 950,
    }),
  );
  runtime.phases.record(
    phase({
      session_id: 'me',
      phase_id: 2,
      topic: 'Flaky payment test',
      summary: 'Goal: fix the flaky payment test.\nDone: pinned the clock in payment.test.ts.',
      updates: 2,
    }),
  );
  runtime.phases.record(
    phase({
      session_id: 'other',
      phase_id: 1,
      topic: 'Payment gateway',
      summary: 'Goal: switch the payment gateway to the new API.',
    }),
  );
  await runtime.flush();
  return runtime;
}

const control = (rt: Runtime, args: Record<string, unknown>, session = 'me') =>
  rt.api.control({ session_id: session, args: { action: 'index', ...args } });

describe('hmc_control index', () => {
  it('lists this session\u2019s phases, newest last, without their summaries', async () => {
    const rt = await started();
    const answer = await control(rt, {});
    expect(answer).toMatchObject({ session_id: 'me', count: 2 });
    expect(answer.entries).toEqual([
      {
        phase_id: 1,
        turns: '1-2',
        topic: 'Repo set-up',
        tokens_before: 14_200,
        tokens_after: 950,
        recall_id: 'p0000000001',
        updates: 0,
      },
      {
        phase_id: 2,
        turns: '3-4',
        topic: 'Flaky payment test',
        tokens_before: 10_000,
        tokens_after: 800,
        recall_id: 'p0000000002',
        updates: 2,
      },
    ]);
    expect(JSON.stringify(answer)).not.toContain('npm install');
    expect(String(answer.how)).toContain('recall id=');
  });

  it('answers one phase with its whole summary', async () => {
    const rt = await started();
    const answer = await control(rt, { phase: '1' });
    expect(answer).toMatchObject({
      session_id: 'me',
      phase: {
        phase_id: 1,
        turns: '1-2',
        summary: 'Goal: clone and build.\nDone: npm install, npm run build.',
        recall_id: 'p0000000001',
        message_from: 10,
        message_to: 19,
      },
    });
    expect(await control(rt, { phase: 1, session: 'other' })).toMatchObject({
      session_id: 'other',
      phase: { topic: 'Payment gateway' },
    });
  });

  it('searches this session by default and every session with scope=global, through SQLite\u2019s FTS5', async () => {
    const rt = await started();
    const mine = await control(rt, { query: 'payment' });
    expect(mine).toMatchObject({
      query: 'payment',
      scope: 'session',
      session_id: 'me',
      search: 'scan',
      count: 1,
      hits: [{ session_id: 'me', phase_id: 2, turns: '3-4' }],
    });
    const all = await control(rt, { query: 'payment', scope: 'global' });
    expect(all).toMatchObject({ scope: 'global', search: 'fts', count: 2 });
    expect((all.hits as { session_id: string }[]).map((h) => h.session_id).sort()).toEqual(['me', 'other']);
    expect((all.hits as { snippet: string }[])[0]?.snippet).toMatch(/payment/i);
    expect(await control(rt, { query: 'payment', scope: 'global', limit: '1' })).toMatchObject({ count: 1 });
    expect(await control(rt, { query: 'nothing-like-this' })).toMatchObject({ count: 0, hits: [] });
  });

  it('searches every session\u2019s index file when analytics is off', async () => {
    const rt = await started(false);
    expect(await control(rt, { query: 'gateway', scope: 'global' })).toMatchObject({
      search: 'scan',
      count: 1,
      hits: [{ session_id: 'other' }],
    });
  });

  it('answers a bad argument with an error naming it', async () => {
    const rt = await started();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ scope: 'everywhere', query: 'x' }, /^scope must be session or global, got "everywhere"$/],
      [{ query: 'x', limit: '0' }, /^limit must be a whole number from 1 to 100, got "0"$/],
      [{ query: 'x', limit: 'ten' }, /^limit must be a whole number from 1 to 100, got "ten"$/],
      [{ phase: 'two' }, /^phase must be a whole number from 1 to \d+, got "two"$/],
      [{ phase: 7 }, /^no phase 7 in session "me": its phases are 1, 2$/],
      [{ phase: 1, session: 'nobody' }, /^no phase 1 in session "nobody": it has none yet$/],
      [{ query: 'x', phase: 1 }, /not both/],
      [{ limit: 3 }, /^limit applies to a search/],
      [{ scope: 'global' }, /^scope=global applies to a search/],
      [{ query: '*** ---' }, /^query has no word to search for, got "\*\*\* ---"$/],
      [{ query: 'x'.repeat(501) }, /^query must be at most 500 characters, got 501$/],
    ];
    for (const [args, error] of cases)
      expect(String((await control(rt, args)).error), JSON.stringify(args).slice(0, 80)).toMatch(error);
  });

  it('searches all sessions before any session has started in this process, and says what it needs otherwise', async () => {
    const rt = await started();
    const fresh = new Engine({
      config: () => defaultConfig(),
      stateDir: rt.stateDir,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
      phases: rt.phases,
    });
    expect(await fresh.control({ args: { action: 'index', query: 'gateway', scope: 'global' } })).toMatchObject({
      count: 1,
    });
    expect(await fresh.control({ args: { action: 'index' } })).toMatchObject({
      error: expect.stringContaining('Could not determine session'),
    });
    expect(await fresh.control({ args: { action: 'index', query: 'gateway' } })).toMatchObject({
      error: expect.stringContaining('scope=global'),
    });
  });

  it('reads the state dir\u2019s index files in a bare engine (no runtime), in the original\u2019s {entries, count} shape', async () => {
    const rt = await started();
    const bare = new Engine({
      config: () => defaultConfig(),
      stateDir: rt.stateDir,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
    });
    bare.preLlmCall({ session_id: 'me', messages: [user('hello')] });
    expect(await bare.control({ session_id: 'me', args: { action: 'index' } })).toMatchObject({
      count: 2,
      entries: [{ phase_id: 1 }, { phase_id: 2 }],
    });
  });
});

describe('/hmc index', () => {
  it('lists, searches with bare words, shows a phase, and names a bad argument, as text', async () => {
    const rt = await started();
    const command = (raw: string) => rt.api.command({ session_id: 'me', raw_args: raw });
    expect(await command('index')).toBe(
      [
        'HMC index: 2 phases summarised in this session',
        '',
        'phase  turns  tokens before  after  recall id    topic',
        '-----  -----  -------------  -----  -----------  ------------------',
        '    1  1-2           14,200    950  p0000000001  Repo set-up',
        '    2  3-4           10,000    800  p0000000002  Flaky payment test',
        '',
        '/hmc index phase=N shows a summary; /hmc index <words> searches; /hmc recall id=… gives the original back',
      ].join('\n'),
    );
    const found = await command('index flaky test');
    expect(found.split('\n')).toEqual([
      'HMC index: 1 phase matches "flaky test" in this session',
      '',
      'phase  turns  tokens before  after  recall id    topic',
      '-----  -----  -------------  -----  -----------  ------------------',
      '    2  3-4           10,000    800  p0000000002  Flaky payment test',
      '',
      '#2: Goal: fix the flaky payment test. Done: pinned the clock in payment.test.ts.',
      '',
      '/hmc index phase=N shows a summary (session=ID for another session)',
    ]);
    expect(JSON.parse(await command('index flaky test --json'))).toMatchObject({
      query: 'flaky test',
      count: 1,
      hits: [{ phase_id: 2, recall_id: 'p0000000002' }],
    });
    expect((await command('index query=payment scope=global')).split('\n')[0]).toBe(
      'HMC index: 2 phases match "payment" in all sessions',
    );
    expect(await command('index phase=2')).toBe(
      [
        'Phase 2 of session me: turns 3-4, 10.0K → 800 tokens, updated 2×, recall id=p0000000002',
        'Topic: Flaky payment test',
        '',
        'Goal: fix the flaky payment test.\nDone: pinned the clock in payment.test.ts.',
      ].join('\n'),
    );
    expect(await command('index phase=9')).toBe('hmc: no phase 9 in session "me": its phases are 1, 2');
    expect(await command('index zzzz')).toBe('HMC index: no phase matches "zzzz" in this session');
  });
});
