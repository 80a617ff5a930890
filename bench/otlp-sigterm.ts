/**
 * `hmc dashboard` stopping while an OTLP export is stuck (issue 26, finding 2): starts the real
 * command against a collector on 127.0.0.1 that answers 200 and drips its body, waits until the
 * first export is out, sends SIGTERM and prints how long the process took to exit (it gives up,
 * and kills it, after `--give-up-s`, default 120).
 *
 * Run: `npx tsx bench/otlp-sigterm.ts [--give-up-s 120]`.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const at = process.argv.indexOf('--give-up-s');
const giveUpMs = (at > 0 ? Number(process.argv[at + 1]) : 120) * 1000;
const sockets = new Set<Socket>();
let posts = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    posts++;
    res.writeHead(200, { 'Content-Length': '100000000' });
    const t = setInterval(() => res.write(' '), 1000);
    res.on('close', () => clearInterval(t));
  });
});
server.on('connection', (s: Socket) => {
  sockets.add(s);
  s.on('close', () => sockets.delete(s));
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const port = (server.address() as { port: number }).port;
const dir = mkdtempSync(join(tmpdir(), 'hmc-otlp-sigterm-'));
writeFileSync(
  join(dir, 'config.yaml'),
  `dashboard:\n  otlp:\n    endpoint: http://127.0.0.1:${port}\n    interval_seconds: 60\n`,
);
const runner = join(import.meta.dirname, '..', 'test', 'server', 'run-cli.ts');
const child = spawn(
  process.execPath,
  ['--import', 'tsx', runner, 'dashboard', '--port', '0', '--state-dir', dir, '--config', join(dir, 'config.yaml')],
  { stdio: 'ignore' },
);
while (posts === 0) await new Promise((r) => setTimeout(r, 100));
await new Promise((r) => setTimeout(r, 2000));
const sent = Date.now();
const exited = await new Promise<boolean>((resolve) => {
  const t = setTimeout(() => resolve(false), giveUpMs);
  child.once('exit', () => {
    clearTimeout(t);
    resolve(true);
  });
  child.kill('SIGTERM');
});
process.stdout.write(
  exited
    ? `exited ${Date.now() - sent} ms after SIGTERM\n`
    : `still running ${giveUpMs / 1000} s after SIGTERM (killed)\n`,
);
if (!exited) child.kill('SIGKILL');
for (const s of sockets) s.destroy();
server.close();
rmSync(dir, { recursive: true, force: true });
