#!/usr/bin/env node
// The `hmc` command: a thin launcher for the compiled CLI, so a missing build gets a clear line.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const entry = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write(`hmc: not built yet (${entry} is missing); run \`npm install\` (or \`npm run build\`) in ${root}\n`);
  process.exit(2);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
