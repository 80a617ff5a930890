/**
 * The `hmc` command line: dispatches to one module per subcommand (DESIGN §10) through the command
 * registry (commands.ts), which loads each lazily so `hmc filter` does not pay for SQLite or the
 * HTTP server.
 *
 * Invariant: stdout carries only the command's output (the sidecar's protocol lines); every
 * diagnostic goes to stderr; an unexpected error is one line and exit code 1, never a stack dump.
 * One convention for every command (args.ts, docs/cli.md): `--help` prints its usage (exit 0), a
 * usage error names what is wrong and prints the usage (exit 2).
 */
import { EXIT_PROBLEM, EXIT_USAGE, parseArgsProblem, UsageError, wantsHelp } from './args.js';
import type { Command } from './command.js';
import { COMMANDS } from './commands.js';
import { errorText } from '../core/errors.js';
import { abandonedStores } from '../store/shm-guard.js';

const USAGE = `usage: hmc <command> [options]

commands:
${COMMANDS.map((c) => `  ${c.help}\n`).join('')}`;

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
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`hmc: unknown command "${name}"\n${USAGE}`);
    return 2;
  }
  let command: Command | undefined;
  try {
    command = await entry.load();
    if (command.usage && wantsHelp(rest)) {
      process.stdout.write(withNewline(command.usage));
      return 0;
    }
    const code = await command.run(rest);
    // A database this process had to leave alone (store/shm-guard.ts) must not be closed by Node's
    // exit cleanup, which would write to its unwritable -shm and die of SIGBUS: exit now.
    if (abandonedStores() > 0) process.exit(code);
    return code;
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
