/**
 * No secret of a session reaches the summariser or anything layer 1 stores (issue 19, finding 3):
 * a real engine summarises a tool loop seeded with credentials (as tool outputs show them and as
 * prose) through the real summariser, whose model knows every secret some other way and writes
 * each of them into its note, and echoes what it read (issue 26, finding 6). Neither the request, nor the index file, the session file,
 * SQLite, the index answer nor what the dashboard's /api/phases reads holds any of them. (The
 * recall copies and the inspector keep raw tool outputs on purpose, as the host's own session
 * store does: DESIGN §8.)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/message.js';
import { Engine } from '../../src/engine/engine.js';
import { NULL_SINK } from '../../src/events/types.js';
import { InProcessHost } from '../../src/hosts/in-process.js';
import { openStore } from '../../src/store/db.js';
import { createPhaseIndex } from '../../src/store/phase-index.js';
import { createRecorder } from '../../src/store/recorder.js';
import { createSummariser } from '../../src/summarise/summariser.js';
import { assistantCall, config, toolResult, user } from '../helpers/conversation.js';
import { echoSeeds, fakeSecrets, proseForm, type FakeSecret } from '../summarise/fake-secrets.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Every file under `dir` but the recall copies and the inspector's raw records. */
function storedText(dir: string): string {
  let out = '';
  const walk = (p: string): void => {
    if (statSync(p).isDirectory()) {
      for (const f of readdirSync(p)) if (f !== 'recall' && !f.startsWith('inspect')) walk(join(p, f));
      return;
    }
    out += readFileSync(p).toString('latin1');
  };
  walk(dir);
  return out;
}

function leaked(text: string, secrets: readonly FakeSecret[]): string[] {
  return secrets
    .filter((s) => text.includes(s.secret) || (s.secret.length >= 16 && text.includes(s.secret.slice(2, 14))))
    .map((s) => `${s.kind}: ${s.secret}`);
}

describe('layer 1 on a session full of secrets', () => {
  it('sends none to the summariser and stores none, in the note, the index file, the session file, SQLite or the index answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hmc-l1-secrets-'));
    dirs.push(dir);
    // Issue 26, finding 6: also a key's body lines without BEGIN/END and a service account's fields, echoed back.
    const secrets = [...fakeSecrets(19, 40), ...echoSeeds(19)];
    const recorder = createRecorder({ path: join(dir, 'analytics.db'), retentionDays: 90, log: () => {} });
    const index = createPhaseIndex({ stateDir: dir, log: () => {}, mirror: () => (e) => recorder.recordPhase(e) });
    const requests: string[] = [];
    const note = [
      '## Goal',
      'Mail and cache configured',
      '## Done',
      '1. Wrote the .env.',
      '## Files',
      '- .env',
      '## Commands',
      '- make deploy',
      '## Facts',
      ...secrets.map((s, i) => `- ${proseForm(s, 500 + i)}`),
    ].join('\n');
    const summariser = createSummariser({
      complete: async (ms) => {
        const request = ms.map((m) => String(m.content)).join('\n');
        requests.push(request);
        // It knows every secret some other way, and it echoes what it read.
        return {
          text: `${note}\n${request
            .split('\n')
            .map((l) => `- ${l}`)
            .join('\n')}`,
          model: 'leaky',
        };
      },
      timeoutMs: 10_000,
      log: () => {},
    });
    const c = config((k) => {
      k.cache.first_break_after = 0;
      k.cache.max_breaks_per_100_calls = 100;
      k.cache.min_batch_tokens = 0;
      k.strategies.clearing.enabled = false;
      k.background_compression.protect_recent_calls = 5;
    });
    const e = new Engine({
      config: () => c,
      stateDir: dir,
      sink: NULL_SINK,
      recorder,
      log: () => {},
      autoSettle: false,
      summariser: () => summariser,
      phases: index,
    });
    const messages: Message[] = [
      { role: 'system', content: 'You are a coding agent.' },
      user('set up mail and the cache, then deploy'),
    ];
    secrets.forEach((s, i) => {
      const said = i % 2 === 0 ? s.text : proseForm(s, i);
      const page = [
        `step ${i}`,
        ...Array.from({ length: 30 }, (_, k) => `log ${i}.${k} ${'detail '.repeat(10)}`),
        said,
      ].join('\n');
      messages.push(
        assistantCall(`c${i}`, 'terminal', { command: `cat config${i}.env` }),
        toolResult(`c${i}`, 'terminal', JSON.stringify({ output: page, exit_code: 0, error: null })),
      );
    });
    const host = new InProcessHost(e);
    const live: Message[] = [];
    for (const m of messages) {
      if (m.role === 'assistant') {
        host.restore('S');
        host.apply('S', live, e.preModelCall({ session_id: 'S', messages: live, context_length: 60_000 }).edits);
        await new Promise((r) => setTimeout(r, 1));
      }
      live.push(m);
    }
    // The summary comes back asynchronously; a loaded machine may need more calls for it to land.
    for (let i = 0; i < 500 && (e.sessions.get('S')?.layer1.phases.length ?? 0) === 0; i++) {
      host.restore('S');
      host.apply('S', live, e.preModelCall({ session_id: 'S', messages: live, context_length: 60_000 }).edits);
      await new Promise((r) => setTimeout(r, 10));
    }
    host.restore('S');
    e.settle();
    const phases = e.sessions.get('S')?.layer1.phases ?? [];
    expect(phases.length).toBeGreaterThan(0); // layer 1 ran
    expect(requests.length).toBeGreaterThan(0);
    expect(leaked(requests.join('\n'), secrets)).toEqual([]);
    for (const p of phases) expect(leaked(`${p.summary}\n${p.topic}`, secrets)).toEqual([]);

    const listed = JSON.stringify(
      await e.control({ session_id: 'S', args: { action: 'index', session: 'S', phase: 1 } }),
    );
    expect(listed).toContain('Mail and cache');
    expect(leaked(listed, secrets)).toEqual([]);
    await e.onSessionFinalize({ session_id: 'S', reason: 'done' });
    e.settle();
    await e.closeSaves();
    index.flush();
    await recorder.close();
    index.close();
    const db = openStore(join(dir, 'analytics.db'), { readonly: true });
    const api = JSON.stringify(db.phases('S'));
    db.close();
    expect(api).toContain('Mail and cache');
    expect(leaked(api, secrets)).toEqual([]);
    expect(leaked(storedText(dir), secrets)).toEqual([]);
  });
});
