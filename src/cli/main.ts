/**
 * The `hmc` command line: dispatches to one module per subcommand (DESIGN §10), loaded lazily so
 * `hmc filter` does not pay for SQLite or the HTTP server.
 *
 * Invariant: stdout carries only the command's output (the sidecar's protocol lines); every
 * diagnostic goes to stderr; an unexpected error is one line and exit code 1, never a stack dump.
 * One convention for every command (args.ts, docs/cli.md): `--help` prints its usage (exit 0), a
 * usage error names what is wrong and prints the usage (exit 2).
 */
import { EXIT_PROBLEM, EXIT_USAGE, parseArgsProblem, UsageError, wantsHelp } from './args.js';
import { errorText } from '../core/errors.js';

export interface Command {
  summary: string;
  /** `usage: hmc <name> …` and one line per option; printed by `--help` and after a usage error. */
  usage?: string;
  run(argv: string[]): Promise<number>;
}

const COMMANDS: Record<string, () => Promise<Command>> = {
  sidecar: async () => (await import('./sidecar.js')).command,
  dashboard: async () => (await import('./dashboard.js')).command,
  demo: async () => (await import('./demo.js')).command,
  replay: async () => (await import('./replay.js')).command,
  filter: async () => (await import('./filter.js')).command,
  analytics: async () => (await import('./analytics.js')).command,
  control: async () => (await import('./control.js')).command,
  doctor: async () => (await import('./doctor.js')).command,
};

const USAGE = `usage: hmc <command> [options]

commands:
  sidecar --stdio            the sidecar the Hermes plugin starts (protocol v1 on stdin/stdout)
  dashboard [start|stop|status] [--port N] [--state-dir D]
                             the live dashboard over a state dir (start: in the background)
  demo [--port N] [--state-dir D]
                             record a session on this project's files and watch it live
  replay <session.json> [--json] [--record]
                             run a recorded session through the hooks and report the savings
  filter [--tool T] [--args JSON] [--error] [--jsonl]
                             compress stdin as one tool output (or one JSON case per line)
  analytics [--scope S] [--period P] [--limit N] [--json|--csv]
                             savings history from the analytics database
  control <action> [key=value...]
                             any hmc_control action outside Hermes
  doctor                     check Node, the native SQLite module, the state dir and the config
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    const { VERSION } = await import('../core/version.js');
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`hmc: unknown command "${name}"\n${USAGE}`);
    return 2;
  }
  let command: Command | undefined;
  try {
    command = await load();
    if (command.usage && wantsHelp(rest)) {
      process.stdout.write(withNewline(command.usage));
      return 0;
    }
    return await command.run(rest);
  } catch (err) {
    const usage = err instanceof UsageError ? err.message : parseArgsProblem(err);
    if (usage !== null) {
      process.stderr.write(`hmc ${name}: ${usage}\n${withNewline(command?.usage ?? '')}`);
      return EXIT_USAGE;
    }
    process.stderr.write(`hmc ${name}: ${errorText(err)}\n`);
    if (process.env.HMC_DEBUG) process.stderr.write(`${err instanceof Error ? err.stack : ''}\n`);
    return EXIT_PROBLEM;
  }
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
