#!/usr/bin/env node
// The `hmc` command: a thin launcher for the compiled CLI. When the build is missing (an
// `npm install` that failed, or never ran), `hmc doctor` still runs the install checks
// (bin/install-check.js) and says what is missing; every other command points at it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const entry = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  const self = `node ${join(root, 'bin', 'hmc.js')}`;
  if (process.argv[2] === 'doctor') {
    const { formatCheck, installChecks } = await import('./install-check.js');
    const checks = await installChecks(root);
    for (const check of checks) process.stdout.write(`${formatCheck(check)}\n`);
    const failed = checks.filter((c) => !c.ok).length;
    process.stdout.write(
      `${failed} check(s) failed; the state dir, config, database and Hermes checks run once HMC is built\n`,
    );
    process.exit(1);
  }
  process.stderr.write(
    `hmc: not built yet (${entry} is missing): \`npm install\` in ${root} did not finish; \`${self} doctor\` says why and how to fix it\n`,
  );
  process.exit(2);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
