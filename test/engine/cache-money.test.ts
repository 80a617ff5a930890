/**
 * Money with the prompt cache (issue 24, parts 1-2): the engine models the provider's cache for
 * both requests of every model call (the one it sent and the raw one it was given), fills the
 * cached figures of turns and sessions, and the cost priced from a real SQLite file reads the
 * unchanged prefix at the cache-read price. Before, cached_raw and cached_hmc were never filled
 * and every token was priced as a cache write. Provider usage is matched to HMC's record of the
 * call by the host's id; a call HMC never saw is recorded as unseen; a cache break the provider's
 * figures show is attributed to its cause.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { Engine } from '../../src/engine/engine.js';
import { sessionRecord } from '../../src/engine/turn/events.js';
import { NULL_SINK } from '../../src/events/types.js';
import { openStore } from '../../src/store/index.js';
import { priceModels } from '../../src/store/pricing.js';
import type { UsageRecord } from '../../src/store/usage.js';
import { moneyLine, sessionMoney } from '../../src/engine/control/money.js';
import {
  assistantCall,
  config,
  longLog,
  readFile,
  reply,
  terminal,
  toolResult,
  user,
} from '../helpers/conversation.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** One turn of `n` reads and builds, as a tool loop grows it. */
function loop(n: number): Message[] {
  const out: Message[] = [user('fix the build')];
  for (let i = 0; i < n; i++) {
    out.push(
      assistantCall(`r${i}`, 'read_file', { path: `src/${i}.ts` }),
      toolResult(`r${i}`, 'read_file', readFile(Array.from({ length: 40 }, (_, k) => `const v${i}_${k} = ${k};`))),
    );
    out.push(
      assistantCall(`t${i}`, 'terminal', { command: `make step${i}` }),
      toolResult(`t${i}`, 'terminal', terminal(longLog(200, 100 + i))),
    );
  }
  return out;
}

let clock = Date.UTC(2026, 10, 28, 12);
function make(usage: UsageRecord[] = []): Engine {
  const c = config();
  const recorder = { record: () => {}, recordUsage: (row: UsageRecord) => usage.push(row) };
  return new Engine({
    config: () => c,
    stateDir: null,
    sink: NULL_SINK,
    recorder,
    log: () => {},
    autoSettle: false,
    now: () => clock,
  });
}

/** The tool loop's model calls, each sending what the loop holds by then (the system prompt and tools with the first). */
function run(e: Engine, id: string, messages: readonly Message[], calls: number): void {
  const step = Math.floor(messages.length / calls);
  for (let k = 1; k <= calls; k++) {
    const upto = k === calls ? messages.length : 1 + step * k;
    e.preModelCall({
      session_id: id,
      messages: messages.slice(0, upto),
      call_id: `${id}-${k}`,
      model: 'claude-sonnet-4',
      ...(k === 1
        ? {
            system: 'You are a coding agent. '.repeat(40),
            tools: [{ name: 'read_file', description: 'reads a file', parameters: {} }],
          }
        : {}),
    });
  }
  e.settle();
}

describe('the cache model fills the cached figures, and cost is priced with it', () => {
  it('reads every call\u2019s unchanged prefix at the cache-read price, on both sides (failed before: every token at the write price)', () => {
    const e = make();
    run(e, 'S', loop(6), 6);
    const rec = sessionRecord(e.sessions.get('S')!);
    expect(rec.model_calls).toBe(6);
    // Every call but the first sends the previous call's request again, then more.
    expect(rec.cached_raw).toBeGreaterThan(0);
    expect(rec.cached_hmc).toBeGreaterThan(0);
    expect(rec.cached_raw).toBeLessThan(rec.input_tokens_raw);
    expect(rec.cached_hmc).toBeLessThan(rec.input_tokens_hmc);
    expect(rec.plain_raw).toBe(0);
    // The turn's figures add up to the session's.
    expect(rec.timeline.reduce((a, p) => a + (p.cached_raw ?? 0), 0)).toBe(rec.cached_raw);
    expect(rec.timeline.reduce((a, p) => a + (p.cached_hmc ?? 0), 0)).toBe(rec.cached_hmc);

    const dir = mkdtempSync(join(tmpdir(), 'hmc-money-'));
    dirs.push(dir);
    const store = openStore(join(dir, 'a.db'));
    store.recordSession(rec);
    const [row] = store.byModel();
    expect(row).toMatchObject({
      cached_input: rec.cached_raw,
      cached_sent: rec.cached_hmc,
      plain_input: 0,
      plain_sent: 0,
    });
    const pricing = config().pricing;
    const [priced] = priceModels(store.byModel(), pricing);
    store.close();
    // claude-sonnet-4: 3 input, 0.30 cache read, 3.75 cache write per million.
    const cost = (tokens: number, cached: number) => ((tokens - cached) * 3.75 + cached * 0.3) / 1e6;
    expect(priced?.price.source).toBe('built-in');
    expect(priced?.cost.without_hmc).toBeCloseTo(cost(rec.input_tokens_raw, rec.cached_raw ?? 0), 7);
    expect(priced?.cost.spent).toBeCloseTo(cost(rec.input_tokens_hmc, rec.cached_hmc ?? 0), 7);
    // Today's figure priced every saved token as a write: the cache-priced saving is well under it.
    const allWrites = ((rec.input_tokens_raw - rec.input_tokens_hmc) * 3.75) / 1e6;
    expect(priced?.cost.saved).toBeLessThan(allWrites * 0.9);
  });

  it('reads nothing from the cache for either request after the host rewrote its history, and names the host as the cause', () => {
    const e = make();
    const messages = loop(4);
    run(e, 'H', messages, 2);
    // Hermes' own compaction: the history from message 1 on replaced by one summary.
    const compacted = [messages[0]!, user('[summary of the earlier work]'), reply('Continuing.')];
    e.preModelCall({ session_id: 'H', messages: compacted, call_id: 'H-3', model: 'claude-sonnet-4' });
    e.settle();
    const calls = e.sessions.get('H')!.ledger.calls;
    const last = calls[calls.length - 1]!;
    expect(last).toMatchObject({ id: 'H-3', cause: 'hermes' });
    // Only the system prompt, the tools and the first user message are still the previous call's.
    expect(last.cached_raw).toBe(last.cached);
    expect(last.cached_raw).toBeLessThan(calls[1]!.cached_raw!);
  });

  it('keeps a rewrite seen at the turn\u2019s pre_llm_call for the pre_model_call that follows (failed before: read whole)', () => {
    const e = make();
    const messages = loop(4);
    run(e, 'T', messages, 2);
    // Hermes' /compress replaces two messages in the middle by one; the next turn opens with
    // pre_llm_call (it sees the rewrite), then its first model call.
    const compacted = [
      ...messages.slice(0, 4),
      user('[CONTEXT COMPACTION] earlier work'),
      ...messages.slice(6),
      reply('All done.'),
      user('next'),
    ];
    e.preLlmCall({ session_id: 'T', messages: compacted });
    e.preModelCall({ session_id: 'T', messages: compacted, call_id: 'T-3', model: 'claude-sonnet-4' });
    e.settle();
    const last = e.sessions.get('T')!.ledger.calls.at(-1)!;
    expect(last).toMatchObject({ id: 'T-3', cause: 'hermes' });
    expect(last.cached_raw).toBeLessThan(last.raw * 0.9);
  });

  it('names a model switch and a changed tool list as the host\u2019s breaks, reading nothing', () => {
    const e = make();
    const messages = loop(2);
    run(e, 'M', messages, 2);
    e.preModelCall({
      session_id: 'M',
      messages,
      call_id: 'M-3',
      model: 'claude-sonnet-4',
      tools: [{ name: 'terminal', description: 'runs', parameters: {} }],
    });
    e.settle();
    const last = e.sessions.get('M')!.ledger.calls.at(-1)!;
    expect(last).toMatchObject({ id: 'M-3', cause: 'hermes', cached: 0, cached_raw: 0 });
  });
});

describe('provider usage matched to HMC\u2019s record of the call', () => {
  const u = (prompt: number, read: number, write: number) => ({
    prompt_tokens: prompt,
    completion_tokens: 20,
    cache_read_tokens: read,
    cache_write_tokens: write,
    reasoning_tokens: 0,
  });

  it('matches by the host\u2019s call id, records a call HMC never saw as unseen, and attributes the breaks', () => {
    const usage: UsageRecord[] = [];
    const e = make(usage);
    const messages = loop(4);
    run(e, 'U', messages, 2);
    // Out of order and with an auxiliary call HMC never saw between them.
    e.updateFromResponse({
      session_id: 'U',
      model: 'claude-sonnet-4',
      provider: 'anthropic',
      usage: u(3000, 0, 3000),
      call_id: 'U-1',
      source: 'hook',
    });
    e.updateFromResponse({
      session_id: 'U',
      model: 'claude-haiku-4-5',
      provider: 'anthropic',
      usage: u(400, 0, 0),
      call_id: 'title-1',
      source: 'hook',
    });
    e.updateFromResponse({
      session_id: 'U',
      model: 'claude-sonnet-4',
      provider: 'anthropic',
      usage: u(6000, 2990, 3010),
      call_id: 'U-2',
      source: 'hook',
    });
    e.settle();
    expect(usage.map((r) => [r.call_id, r.seen])).toEqual([
      ['U-1', true],
      ['title-1', false],
      ['U-2', true],
    ]);
    const calls = e.sessions.get('U')!.ledger.calls;
    expect(usage[0]).toMatchObject({
      hmc_input: calls[0]!.hmc,
      raw_input: calls[0]!.raw,
      hmc_cached: calls[0]!.cached,
      raw_cached: calls[0]!.cached_raw,
      turn: calls[0]!.turn,
    });
    expect(usage[1]).toMatchObject({ hmc_input: null, raw_input: null, turn: null });
    expect(usage[2]).toMatchObject({ hmc_input: calls[1]!.hmc, break_cause: '' });

    // The host's compaction: the provider reads only the head again.
    const compacted = [messages[0]!, user('[summary]'), reply('Continuing.')];
    e.preModelCall({ session_id: 'U', messages: compacted, call_id: 'U-3', model: 'claude-sonnet-4' });
    e.updateFromResponse({
      session_id: 'U',
      model: 'claude-sonnet-4',
      provider: 'anthropic',
      usage: u(1500, 900, 600),
      call_id: 'U-3',
      source: 'hook',
    });
    // A pause past the cache's lifetime, nothing changed: the provider reads nothing.
    e.settle();
    clock += 6 * 60_000;
    e.preModelCall({ session_id: 'U', messages: compacted, call_id: 'U-4', model: 'claude-sonnet-4' });
    e.updateFromResponse({
      session_id: 'U',
      model: 'claude-sonnet-4',
      provider: 'anthropic',
      usage: u(1500, 0, 1500),
      call_id: 'U-4',
      source: 'hook',
      at: clock,
    });
    e.settle();
    expect(usage[3]).toMatchObject({ call_id: 'U-3', break_cause: 'hermes', break_tokens: 6000 - 900 });
    expect(usage[4]).toMatchObject({ call_id: 'U-4', break_cause: 'ttl', break_tokens: 1500 });
  });
});

describe('/hmc status and stats: the session\u2019s money', () => {
  it('prices its input with the cache (modelled), the provider\u2019s figures beside it (measured), and names an unknown model', () => {
    const e = make();
    run(e, 'P', loop(4), 4);
    const s = e.sessions.get('P')!;
    const t = s.ledger.totals();
    const m = sessionMoney(s, config().pricing, null);
    const cost = (tokens: number, cached: number) => ((tokens - cached) * 3.75 + cached * 0.3) / 1e6;
    expect(m.modelled.saved).toBeCloseTo(cost(t.inputRaw, t.cachedRaw) - cost(t.inputHmc, t.cachedHmc), 7);
    expect(m.measured).toBeNull();
    expect(moneyLine(m)).toMatch(/saved [0-9.]+ \(modelled, with the prompt cache\)$/);
    const measured = sessionMoney(s, config().pricing, {
      calls: 4,
      cost: { measured_input: 0.02, measured_output: 0.001, saved: 0.01 },
      cached_share: { measured: 0.7 },
      breaks: { count: 0 },
    });
    expect(moneyLine(measured)).toContain(
      'provider: input 0.0200 + output 0.0010 over 4 calls, saved 0.0100 (measured sent side)',
    );
    s.meta.takeHints({ model: 'my-local-llama' });
    expect(moneyLine(sessionMoney(s, config().pricing, null))).toContain('unknown model: priced at pricing.default_*');
  });
});
