/**
 * What a `hmc` subcommand is: one module per command exports one of these as `command`, and the
 * registry (commands.ts) names it; main.ts reads the registry and never the commands themselves.
 *
 * Invariant: `run` resolves to the exit code; a usage error is thrown as UsageError (args.ts)
 * or a parseArgs error, and main.ts prints it with `usage`.
 */
export interface Command {
  summary: string;
  /** `usage: hmc <name> …` and one line per option; printed by `--help` and after a usage error. */
  usage?: string;
  run(argv: string[]): Promise<number>;
}
