/**
 * Layer 1 and the session index together: a real engine summarising a growing tool loop into a
 * real index (JSONL file + SQLite mirror through the recorder). The phase that is updated as the
 * work grows stays one entry everywhere; `hmc_control index` lists and finds it; its recall id
 * gives the exact messages back.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { safeJson } from '../../src/engine/session/hashing.js';
import type { Message } from '../../src/core/message.js';
import { NULL_SINK } from '../../src/events/types.js';
import { openStore } from '../../src/store/db.js';
import { phaseFilePath } from '../../src/store/phase-file.js';
import { createPhaseIndex } from '../../src/store/phase-index.js';
import { createRecorder } from '../../src/store/recorder.js';
import type { Summariser, SummaryRequest, SummaryResult } from '../../src/summarise/types.js';
import { assistantCall, config, terminal, toolResult, user } from '../helpers/conversation.js';
import { recallAll } from '../helpers/recall.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Summarises a range as the number of commands it ran: deterministic, made only from its input. */
class CountingSummariser implements Summariser {
  async summarise(request: SummaryRequest): Promise<SummaryResult> {
    const commands = request.messages.flatMap((m) => m.tool_calls ?? []).length;
    return {
      ok: true,
      text: `## Goal\nget the widget build green\n## Done\n${commands} make steps`,
      topic: 'Widget build',
      model: 'counting',
      tokensIn: 500,
      tokensOut: 20,
      redactions: 0,
    };
  }
}

const PAGE = (i: number) =>
  terminal(Array.from({ length: 40 }, (_, k) => `step ${i}.${k} ${'detail '.repeat(12)}`).join('\n'));

describe('layer 1 with the real session index', () => {
  it('keeps one entry per phase in the file and in SQLite as the phase is updated, and hmc_control index lists, finds and recalls it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-l1-index-'));
    dirs.push(dir);
    const recorder = createRecorder({ path: join(dir, 'analytics.db'), retentionDays: 90, log: () => {} });
    const index = createPhaseIndex({ stateDir: dir, log: () => {}, mirror: () => (e) => recorder.recordPhase(e) });
    const c = config((k) => {
      k.cache.first_break_after = 0;
      k.cache.max_breaks_per_100_calls = 100;
      k.cache.min_batch_tokens = 0;
      k.strategies.clearing.enabled = false;
      k.background_compression.protect_recent_calls = 5;
      k.background_compression.cooldown_calls = 3;
      k.background_compression.min_return = 0;
    });
    const e = new Engine({
      config: () => c,
      stateDir: dir,
      sink: NULL_SINK,
      recorder: null,
      log: () => {},
      autoSettle: false,
      summariser: () => new CountingSummariser(),
      phases: index,
    });
    const messages: Message[] = [{ role: 'system', content: 'You are a coding agent.' }, user('fix the widget build')];
    for (let i = 0; i < 60; i++)
      messages.push(
        assistantCall(`c${i}`, 'terminal', { command: `make step${i}` }),
        toolResult(`c${i}`, 'terminal', PAGE(i)),
      );
    const host = new InProcessHost(e);
    const live: Message[] = [];
    for (const m of messages) {
      if (m.role === 'assistant') {
        host.restore('W');
        host.apply('W', live, e.preModelCall({ session_id: 'W', messages: live, context_length: 60_000 }).edits);
        await new Promise((r) => setImmediate(r));
      }
      live.push(m);
    }
    host.restore('W');
    const phases = e.sessions.get('W')?.layer1.phases ?? [];
    expect(phases).toHaveLength(1);
    expect(phases[0]?.updates).toBeGreaterThan(0); // the phase was updated as the work grew
    index.flush();
    await recorder.close();

    const lines = readFileSync(phaseFilePath(dir, 'W'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      session_id: 'W',
      phase_id: 1,
      updates: phases[0]?.updates,
      topic: 'Widget build',
      message_to: phases[0]?.to,
    });
    expect(JSON.stringify(lines)).not.toContain('detail detail');
    const db = openStore(join(dir, 'analytics.db'), { readonly: true });
    expect(db.phases('W')).toEqual([expect.objectContaining({ phase_id: 1, updates: phases[0]?.updates })]);
    expect(db.searchPhases('widget', { limit: 5 }).hits.map((h) => h.phase_id)).toEqual([1]);
    db.close();

    const listed = await e.control({ session_id: 'W', args: { action: 'index' } });
    expect(listed).toMatchObject({
      count: 1,
      entries: [{ phase_id: 1, topic: 'Widget build', recall_id: phases[0]?.recallId }],
    });
    expect(await e.control({ session_id: 'W', args: { action: 'index', query: 'make steps' } })).toMatchObject({
      count: 1,
      hits: [{ phase_id: 1 }],
    });
    expect(safeJson(await recallAll(e, 'W', String(phases[0]?.recallId)))).toBe(
      safeJson(messages.slice(phases[0]?.from, (phases[0]?.to ?? 0) + 1)),
    );
    index.close();
  });
});
