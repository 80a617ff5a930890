/**
 * `npm run bench`: every benchmark in one run (engine, store, bridge, dashboard, reads), each
 * printing its own table. Timings only, never a test. `npm run bench -- engine store` runs a
 * subset (engine, savings, loop, store, phases, bridge, inspect, resume, dashboard, reads, pathological); folders of
 * sessions after `savings` are the corpora it replays (else the shared and development corpora).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { printRows, runEngineBench } from './engine.js';
import { runReadsBench } from './reads.js';
import { formatRows, runStoreBench } from './store.js';

const ROOT = join(import.meta.dirname, '..');
const wanted = new Set(process.argv.slice(2));
const run = (name: string) => wanted.size === 0 || wanted.has(name);

if (run('engine')) printRows('engine', runEngineBench());

if (run('pathological')) {
  const { formatPathological, runPathologicalBench } = await import('./pathological.js');
  process.stdout.write(
    '\npathological tool outputs: time per KB, 1 KB to 1 MB (flat = linear; growth = 1 MB over 16 KB)\n================================================================================================\n',
  );
  process.stdout.write(`${formatPathological(runPathologicalBench())}\n`);
}

if (run('savings')) {
  const { corpusArguments, runSavingsBench } = await import('./savings.js');
  process.stdout.write(
    '\nsavings on real sessions (ideal host, o200k tokens)\n===================================================\n',
  );
  runSavingsBench(corpusArguments(process.argv.slice(2)));
}

if (run('loop')) {
  const { runLoopBench } = await import('./loop.js');
  process.stdout.write(
    '\npre_model_call along one long tool loop (engine only, quiet calls on and off)\n===========================================================================\n',
  );
  process.stdout.write(runLoopBench());
}

if (run('reads')) {
  process.stdout.write(
    '\nfile reads per language (what the code filter does with them)\n==============================================================\n',
  );
  runReadsBench([]);
}

if (run('store')) {
  process.stdout.write('\nanalytics store (a year of history)\n===================================\n');
  process.stdout.write(`${formatRows(await runStoreBench({ log: (l) => process.stdout.write(`${l}\n`) }))}\n`);
}

if (run('phases')) {
  const { runPhasesBench } = await import('./phases.js');
  process.stdout.write(
    '\nsession index (10,000 phases across 1,000 sessions)\n===================================================\n',
  );
  for (const r of runPhasesBench()) process.stdout.write(`${r.name.padEnd(58)} ${r.value}\n`);
}

if (run('bridge')) {
  process.stdout.write(
    '\nbridge round trip (Python bridge ↔ Node sidecar)\n================================================\n',
  );
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) process.stdout.write('skipped: run `npm run build` first\n');
  else spawnSync('python3', [join(ROOT, 'bench', 'bridge.py')], { stdio: 'inherit' });
}

if (run('inspect')) {
  const { runInspectBench } = await import('./inspect.js');
  process.stdout.write(
    '\ninspector lookups (~200 MB of inspector files)\n=============================================\n',
  );
  for (const r of await runInspectBench()) process.stdout.write(`${r.name.padEnd(52)} ${r.value}\n`);
}

if (run('resume')) {
  const { runResumeBench } = await import('./resume.js');
  process.stdout.write(
    '\nresumed long session, first pre_llm_call (a real sidecar process)\n================================================================\n',
  );
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) process.stdout.write('skipped: run `npm run build` first\n');
  else
    for (const mode of ['whole', 'streamed'] as const)
      for (const r of await runResumeBench(100_000, undefined, mode))
        process.stdout.write(`${r.name.padEnd(52)} ${r.value}\n`);
}

if (run('dashboard')) {
  const file = join(ROOT, 'bench', 'dashboard.ts');
  if (existsSync(file)) {
    const mod = (await import(pathToFileURL(file).href)) as { runDashboardBench?: () => Promise<unknown> };
    process.stdout.write('\ndashboard (hook to browser)\n===========================\n');
    if (mod.runDashboardBench) await mod.runDashboardBench();
  }
}
