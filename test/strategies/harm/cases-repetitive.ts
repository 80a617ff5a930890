/**
 * Short but repetitive outputs that should shrink (clean builds, rollout loops, carriage-return
 * progress bars, repeated lines), and the ones whose differing line must survive the collapse.
 */
import { bash, type HarmCase } from './case.js';
import { noise, text } from './noise.js';

const rollout = (name: string, counts: readonly number[]): string[] =>
  counts.map((n) => `Waiting for deployment "${name}" rollout to finish: ${n} of 3 updated replicas are available...`);

const bar = (label: string, steps: number): string =>
  Array.from({ length: steps + 1 }, (_, i) => {
    const pct = Math.round((i * 100) / steps);
    const filled = Math.round(pct / 10);
    return `${label} ${String(pct).padStart(3)}%|${'█'.repeat(filled)}${' '.repeat(10 - filled)}| ${i * 12}/${steps * 12} [00:${String(i).padStart(2, '0')}<00:${String(steps - i).padStart(2, '0')}, 12.0it/s]`;
  }).join('\r');

export const repetitiveCases: HarmCase[] = [
  {
    name: 'clean cargo build shrinks to its ends and the Finished line',
    klass: 'repetitive',
    ...bash('cargo build'),
    output: text(
      noise.cargoCompiling(45, 151),
      '    Finished `dev` profile [unoptimized + debuginfo] target(s) in 24.51s',
    ),
    keep: ['Finished `dev` profile', 'Compiling serde v'],
    shrinkTo: 0.35,
  },
  {
    name: 'make CC lines shrink',
    klass: 'repetitive',
    ...bash('make'),
    output: text(
      Array.from({ length: 40 }, (_, i) => `  CC       src/core/unit_${String(i).padStart(2, '0')}.o`),
      '  LD       build/app',
      '  OBJCOPY  build/app.bin',
    ),
    keep: ['LD       build/app', 'OBJCOPY'],
    shrinkTo: 0.35,
  },
  {
    name: 'webpack asset table shrinks and keeps its verdict',
    klass: 'repetitive',
    ...bash('npx webpack --mode production'),
    output: text(
      Array.from(
        { length: 40 },
        (_, i) =>
          `asset chunk-${i}.${(0xabc000 + i).toString(16)}.js ${(i + 1) * 1.5} KiB [emitted] [immutable] [minimized] (name: chunk-${i})`,
      ),
      'webpack 5.88.2 compiled successfully in 4231 ms',
    ),
    keep: ['compiled successfully in 4231 ms'],
    shrinkTo: 0.35,
  },
  {
    name: 'vite build output shrinks and keeps built in',
    klass: 'repetitive',
    ...bash('npx vite build'),
    output: text(
      'vite v5.2.0 building for production...',
      'transforming...',
      '✓ 1423 modules transformed.',
      'rendering chunks...',
      'computing gzip size...',
      Array.from(
        { length: 40 },
        (_, i) =>
          `dist/assets/page-${i}-${(0xdead00 + i).toString(16)}.js`.padEnd(48) +
          `${((i + 2) * 1.1).toFixed(2)} kB │ gzip: ${((i + 1) * 0.4).toFixed(2)} kB`,
      ),
      '✓ built in 6.21s',
    ),
    keep: ['✓ built in 6.21s', '1423 modules transformed'],
    shrinkTo: 0.4,
  },
  {
    name: 'kubectl rollout wait loop collapses, keeps every distinct state',
    klass: 'repetitive',
    ...bash('kubectl rollout status deploy/web'),
    output: text(
      rollout('web', [...Array(12).fill(0), ...Array(10).fill(1), ...Array(8).fill(2)]),
      'deployment "web" successfully rolled out',
    ),
    keep: ['0 of 3 updated', '1 of 3 updated', '2 of 3 updated', 'successfully rolled out'],
    shrinkTo: 0.3,
  },
  {
    name: 'carriage-return progress bar keeps only its final state',
    klass: 'repetitive',
    ...bash('pip download torch'),
    output: text(
      'Collecting torch',
      bar('Downloading torch-2.3.0-cp311-none-linux_x86_64.whl', 60),
      'Saved ./torch-2.3.0-cp311-none-linux_x86_64.whl',
      'Successfully downloaded torch',
    ),
    keep: ['100%|██████████| 720/720', 'Successfully downloaded torch'],
    shrinkTo: 0.2,
  },
  {
    name: 'several progress bars each keep their final state',
    klass: 'repetitive',
    ...bash('python train.py --epochs 3'),
    output: text(
      bar('epoch 1', 40),
      'epoch 1: loss=0.412 acc=0.871',
      bar('epoch 2', 40),
      'epoch 2: loss=0.301 acc=0.902',
      bar('epoch 3', 40),
      'epoch 3: loss=0.255 acc=0.917',
    ),
    keep: ['epoch 1: loss=0.412', 'epoch 2: loss=0.301', 'epoch 3: loss=0.255 acc=0.917', '480/480'],
    shrinkTo: 0.2,
  },
  {
    name: 'a progress bar that overwrote a failure keeps the failure',
    klass: 'repetitive',
    ...bash('./sync.sh'),
    output: text(`${bar('sync', 10)}\rsync: error: connection reset by peer, retrying\r${bar('sync', 10)}`, 'done'),
    keep: ['connection reset by peer'],
  },
  {
    name: 'identical retry lines collapse to one with a count',
    klass: 'repetitive',
    ...bash('./wait-for-db.sh'),
    output: text(
      Array(37).fill('Waiting for postgres at db:5432 to accept connections...'),
      'postgres is up - executing command',
    ),
    keep: ['Waiting for postgres at db:5432', 'postgres is up'],
    marks: ['repeated 36 more times'],
    shrinkTo: 0.2,
  },
  {
    name: 'a differing failure line inside repeats survives',
    klass: 'repetitive',
    ...bash('./poll.sh'),
    output: text(
      Array(20).fill('poll: queue empty, sleeping 5s'),
      'poll: error: broker closed the channel (code 320)',
      Array(20).fill('poll: queue empty, sleeping 5s'),
    ),
    keep: ['broker closed the channel (code 320)'],
    shrinkTo: 0.4,
  },
  {
    name: 'summaries that differ in a number both survive',
    klass: 'repetitive',
    ...bash('npx jest --watchAll=false --runInBand'),
    output: text(
      Array(8).fill('Tests:       40 passed, 40 total'),
      'Tests:       39 passed, 1 failed, 40 total',
      Array(8).fill('Tests:       40 passed, 40 total'),
    ),
    keep: ['39 passed, 1 failed', '40 passed, 40 total'],
  },
  {
    name: 'timestamped heartbeat lines collapse and keep both ends',
    klass: 'repetitive',
    ...bash('docker logs --tail 40 worker'),
    output: text(
      Array.from(
        { length: 40 },
        (_, i) =>
          `2024-05-02T10:${String(10 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z worker heartbeat ok`,
      ),
    ),
    keep: ['2024-05-02T10:10:00.000Z worker heartbeat ok', '2024-05-02T10:10:39.000Z worker heartbeat ok'],
    shrinkTo: 0.3,
  },
  {
    name: 'gradle UP-TO-DATE task list shrinks',
    klass: 'repetitive',
    ...bash('./gradlew assemble'),
    output: text(
      Array.from({ length: 40 }, (_, i) => `> Task :module${i}:compileJava UP-TO-DATE`),
      '',
      'BUILD SUCCESSFUL in 3s',
      '40 actionable tasks: 40 up-to-date',
    ),
    keep: ['BUILD SUCCESSFUL in 3s', '40 actionable tasks: 40 up-to-date'],
    shrinkTo: 0.35,
  },
  {
    name: 'docker pull layer progress shrinks',
    klass: 'repetitive',
    ...bash('docker pull postgres:16'),
    output: text(
      '16: Pulling from library/postgres',
      Array.from({ length: 12 }, (_, i) => `${(0xa1b2c3d4e5 + i).toString(16)}: Pulling fs layer`),
      Array.from({ length: 12 }, (_, i) => `${(0xa1b2c3d4e5 + i).toString(16)}: Verifying Checksum`),
      Array.from({ length: 12 }, (_, i) => `${(0xa1b2c3d4e5 + i).toString(16)}: Download complete`),
      Array.from({ length: 12 }, (_, i) => `${(0xa1b2c3d4e5 + i).toString(16)}: Pull complete`),
      'Digest: sha256:4aa6b6f4bb8d1e6c0b5d58d5c7f1e7a9c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8',
      'Status: Downloaded newer image for postgres:16',
      'docker.io/library/postgres:16',
    ),
    keep: ['Status: Downloaded newer image for postgres:16', 'sha256:4aa6b6f4'],
    shrinkTo: 0.5,
  },
  {
    name: 'apt install chatter shrinks and keeps its errors-free verdict',
    klass: 'repetitive',
    ...bash('apt-get install -y build-essential'),
    output: text(
      'Reading package lists...',
      Array.from(
        { length: 20 },
        (_, i) =>
          `Get:${i + 1} http://deb.debian.org/debian bookworm/main amd64 pkg${i} amd64 1.${i}-1 [${100 + i} kB]`,
      ),
      `Fetched 24.1 MB in 3s (8,012 kB/s)`,
      Array.from({ length: 20 }, (_, i) => `Setting up pkg${i} (1.${i}-1) ...`),
      'Processing triggers for man-db (2.11.2-2) ...',
    ),
    keep: ['Fetched 24.1 MB in 3s', 'Processing triggers for man-db'],
    shrinkTo: 0.5,
  },
];
