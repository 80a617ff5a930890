/**
 * Inspector lookups over ~200 MB of inspector files (issue 11, fault 5): the index's first build,
 * an unknown id, a known id, and an unknown id after more records were appended. Before the
 * index, every lookup of an unknown id read every file (1.4 s over 192 MB).
 * Run: `npm run bench -- inspect` or `npx tsx bench/inspect.ts [MB]`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createInspectIndex } from '../src/events/inspect-index.js';

export interface InspectBenchRow {
  name: string;
  value: string;
}

function record(session: string, call: number, bytes: number): string {
  const before = `line of build output for call ${call}\n`.repeat(Math.ceil(bytes / 36)).slice(0, bytes);
  return JSON.stringify({
    id: `${session}:call_${call}`,
    session_id: session,
    tool_call_id: `call_${call}`,
    tool_name: 'terminal',
    time: Date.now(),
    strategies: ['truncation'],
    tokens_before: bytes / 4,
    tokens_after: 100,
    before,
    after: before.slice(0, 400),
    before_truncated: false,
  });
}

export async function runInspectBench(totalMb = 200): Promise<InspectBenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hmc-bench-inspect-'));
  try {
    mkdirSync(join(dir, 'inspect'));
    const files = 6;
    const perRecord = 48 * 1024;
    const perFile = Math.ceil((totalMb * 1024 * 1024) / files / perRecord);
    for (let f = 0; f < files; f++) {
      const lines: string[] = [];
      for (let i = 0; i < perFile; i++) lines.push(record(`s${f}`, i, perRecord));
      writeFileSync(join(dir, 'inspect', `sidecar-${f}.jsonl`), `${lines.join('\n')}\n`);
    }
    const rows: InspectBenchRow[] = [];
    const ms = (t: number): string => `${(performance.now() - t).toFixed(1)} ms`;
    const index = createInspectIndex(dir);
    let t = performance.now();
    await index.refresh();
    rows.push({ name: `first build (${files} files, ${totalMb} MB, ${index.size} records)`, value: ms(t) });
    t = performance.now();
    await index.find('nobody:nothing');
    rows.push({ name: 'unknown id', value: ms(t) });
    t = performance.now();
    await index.find(`s3:call_${Math.floor(perFile / 2)}`);
    rows.push({ name: 'known id (one 48 KB record read)', value: ms(t) });
    appendFileSync(join(dir, 'inspect', 'sidecar-0.jsonl'), `${record('s0', perFile, perRecord)}\n`);
    t = performance.now();
    await index.find('nobody:nothing');
    rows.push({ name: 'unknown id after one record was appended', value: ms(t) });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await runInspectBench(Number(process.argv[2] ?? 200)))
    process.stdout.write(`${r.name.padEnd(52)} ${r.value}\n`);
}
