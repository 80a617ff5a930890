/**
 * Every real session in ../shared/corpus replays with an exact restore and no invariant broken,
 * also when stretched into a long session. Skipped (with a note) on a clone without ../shared.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/keys.js';
import { parseSession, replaySession } from '../../src/app/replay.js';
import type { Message } from '../../src/core/message.js';

const CORPUS = join(import.meta.dirname, '..', '..', '..', 'shared', 'corpus', 'swe-agent');
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith('.json')) : [];
if (files.length === 0)
  console.warn(`corpus tests skipped: no sessions at ${CORPUS} (they come with ../shared beside the repo)`);

describe.skipIf(files.length === 0)('the corpus', () => {
  it.each(files)('%s replays exactly with every invariant held', (file) => {
    const messages = parseSession(readFileSync(join(CORPUS, file), 'utf8'), file);
    const report = replaySession(messages, { sessionId: file, config: defaultConfig() });
    expect(report.invariant_violations).toEqual([]);
    expect(report.restore_exact).toBe(true);
    expect(report.input_tokens.hmc).toBeLessThanOrEqual(report.input_tokens.raw);
  });

  it('a long session stitched from every corpus session (many turns) replays exactly', () => {
    const stitched: Message[] = [];
    let n = 0;
    for (const file of files) {
      for (const m of parseSession(readFileSync(join(CORPUS, file), 'utf8'), file)) {
        if (m.role === 'system' && stitched.length > 0) continue;
        // Fresh ids so calls from different sessions never collide.
        const copy: Message = JSON.parse(JSON.stringify(m)) as Message;
        if (typeof copy.tool_call_id === 'string') copy.tool_call_id = `${n}-${copy.tool_call_id}`;
        for (const c of copy.tool_calls ?? []) if (typeof c.id === 'string') c.id = `${n}-${c.id}`;
        stitched.push(copy);
      }
      n++;
    }
    const report = replaySession(stitched, { sessionId: 'stitched', config: defaultConfig() });
    expect(report.invariant_violations).toEqual([]);
    expect(report.restore_exact).toBe(true);
    expect(report.turns).toBeGreaterThan(10);
  });
});
