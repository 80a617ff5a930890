/**
 * Prints the harm suite (test/strategies/harm/: realistic tool outputs with the facts a
 * compression must keep) as JSON lines, for `bench/harm-vs-original.py`, which runs every case
 * through HMC (`hmc filter --jsonl`) and through the Python original's single-output strategies
 * side by side. Run: `npx tsx bench/harm-cases.ts > cases.jsonl`.
 */
import { HARM_CASES } from '../test/strategies/harm/all.js';

for (const c of HARM_CASES) {
  process.stdout.write(
    `${JSON.stringify({ name: c.name, klass: c.klass, tool: c.tool, args: c.args ?? {}, output: c.output, is_error: c.isError === true, keep: c.keep, absent: c.absent ?? [], pairs: c.pairs ? c.pairs.map((re) => re.source) : null, shrink_to: c.shrinkTo ?? null })}\n`,
  );
}
