/**
 * `hmc sidecar --stdio [--state-dir D] [--config PATH]`: the process the Hermes bridge starts.
 * Protocol v1 (DESIGN §3) on stdin/stdout, the engine behind it, logs on stderr and in
 * `<state dir>/sidecar.log`.
 *
 * Invariant: stdout carries protocol records and nothing else (console output is rerouted to
 * stderr before the engine loads); the process exits 0 when stdin closes, after answering what it
 * was still computing.
 */
import { format } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import type { HmcHostApi } from '../core/host-api.js';
import { resolveStateDir } from '../hosts/state-dir.js';
import { resolveConfigPath } from '../config/paths.js';
import { Connection } from '../protocol/dispatch.js';
import { llmCompleteParams } from '../protocol/guards.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, serializeRecord } from '../protocol/jsonl.js';
import type { Command } from './command.js';
import { LogFile } from './log-file.js';

const USAGE = 'usage: hmc sidecar --stdio [--state-dir D] [--config PATH]';

export interface SidecarArgs {
  stateDir?: string;
  configPath?: string;
}

/** Parses the sidecar's flags; returns an error sentence for anything unknown. */
export function parseSidecarArgs(argv: string[]): SidecarArgs | string {
  const out: SidecarArgs = {};
  let stdio = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--stdio') stdio = true;
    else if (flag === '--state-dir') out.stateDir = value();
    else if (flag === '--config') out.configPath = value();
    else return `unknown option "${arg}"`;
    if ((flag === '--state-dir' || flag === '--config') && !(flag === '--state-dir' ? out.stateDir : out.configPath))
      return `${flag} needs a value`;
  }
  return stdio ? out : 'only --stdio is supported';
}

/** What `serveStdio` needs: streams, and a factory for the engine (the real runtime or a stub). */
export interface ServeOptions {
  input: Readable;
  output: Writable;
  log: (line: string) => void;
  /** The longest request line read (default 256 MiB; $HMC_MAX_LINE_BYTES lowers it for tests). */
  maxLineBytes?: number;
  createApi: (
    hostCall: (method: string, params: Record<string, unknown>) => Promise<unknown>,
    io: ServeIo,
  ) => Promise<{ api: HmcHostApi; close(): Promise<void> }>;
}

/** What the connection tells the engine about its pipes. */
export interface ServeIo {
  /**
   * A request is being read (part of its line is in, the last bytes at most READING_MS ago): the
   * background work waits, so a long request is not read in pieces between slices of it.
   */
  reading: () => boolean;
}

/** How long a part-read line holds the background work after its last bytes (a stalled writer must not hold it for ever). */
const READING_MS = 500;

/** Runs one connection until `input` ends. Resolves when everything is answered and closed. */
export async function serveStdio(options: ServeOptions): Promise<void> {
  const { input, output, log } = options;
  let outputBroken = false;
  output.on('error', (err) => {
    if (!outputBroken) log(`stdout closed: ${err.message}`);
    outputBroken = true;
  });
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const connection = new Connection({
    write: (record) => {
      if (outputBroken) throw new Error('stdout is closed');
      output.write(serializeRecord(record));
    },
    log,
    maxLineBytes,
  });
  const splitter = new LineSplitter({
    maxLineBytes,
    onLine: (line) => connection.handleLine(line),
    onOversize: (bytes, head) => {
      log(`skipped a line of ${bytes} bytes (over the limit of ${maxLineBytes})`);
      connection.oversize(bytes, head);
    },
  });
  let lastData = 0;
  const io: ServeIo = { reading: () => splitter.midLine && performance.now() - lastData < READING_MS };
  const ended = new Promise<void>((resolve) => {
    input.on('data', (chunk: Buffer | string) => {
      lastData = performance.now();
      splitter.push(chunk);
    });
    input.on('end', resolve);
    input.on('close', resolve);
    input.on('error', (err) => {
      log(`stdin error: ${err.message}`);
      resolve();
    });
  });
  const hostCall = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    if (method !== 'llm.complete') throw new Error(`unknown host method "${method}"`);
    const checked = llmCompleteParams(params);
    if (!checked)
      throw new Error('llm.complete needs "messages" (a message list) and "max_tokens" (a positive integer)');
    return connection.hostCalls.llmComplete(checked);
  };
  const runtime = await options.createApi(hostCall, io);
  connection.attach(runtime.api);
  await ended;
  splitter.end();
  await connection.drain();
  await runtime.close();
}

/** Console output from any module goes to stderr: stdout belongs to the protocol. */
function rerouteConsole(log: (line: string) => void): void {
  const toLog = (...args: unknown[]): void => log(format(...args));
  console.log = toLog;
  console.info = toLog;
  console.warn = toLog;
  console.debug = toLog;
  console.error = toLog;
}

export const command: Command = {
  summary: 'the sidecar the Hermes plugin starts (protocol v1 on stdin/stdout)',
  usage: `${USAGE}\n  --stdio         protocol v1 on stdin/stdout (the only mode)\n  --state-dir D   where sessions, events and analytics.db live (default $HERMES_HOME/hmc_state)\n  --config PATH   the config file, watched while running (default: $HMC_CONFIG, else config.yaml beside the plugin)\n`,
  async run(argv) {
    const parsed = parseSidecarArgs(argv);
    if (typeof parsed === 'string') {
      process.stderr.write(`hmc sidecar: ${parsed}\n${USAGE}\n`);
      return 2;
    }
    const stateDir = resolveStateDir(parsed.stateDir);
    const file = new LogFile(stateDir);
    const log = (line: string): void => {
      const stamped = `${new Date().toISOString()} [${process.pid}] ${line}\n`;
      process.stderr.write(`hmc sidecar: ${line}\n`);
      file.write(stamped);
    };
    rerouteConsole(log);
    process.on('SIGPIPE', () => undefined);
    log(`started (node ${process.version}, state dir ${stateDir})`);
    const { createRuntime } = await import('../app/runtime.js');
    const limit = Number(process.env.HMC_MAX_LINE_BYTES);
    await serveStdio({
      input: process.stdin,
      output: process.stdout,
      log,
      ...(Number.isInteger(limit) && limit > 0 ? { maxLineBytes: limit } : {}),
      createApi: (hostCall, io) =>
        createRuntime({
          stateDir,
          log,
          hostCall,
          configPath: resolveConfigPath(parsed.configPath),
          // An answer still in the pipe goes out, and a request coming in is read whole, before
          // background work takes the next turn.
          holdBackground: () => process.stdout.writableLength > 0 || io.reading(),
        }),
    });
    log('stdin closed; exiting');
    await file.end();
    // Anything the engine left open (a watcher, a timer) must not keep an orphan sidecar alive.
    setTimeout(() => process.exit(0), 1000).unref();
    return 0;
  },
};
