/**
 * The command registry: every `hmc` subcommand, loaded lazily (so `hmc filter` does not pay for
 * SQLite or the HTTP server), with the lines `hmc --help` shows for it. A new command is its
 * module and one entry here.
 *
 * Invariant: the order here is the order of `hmc --help`.
 */
import type { Command } from './command.js';

export interface CommandEntry {
  name: string;
  /** Its lines in `hmc --help`: the synopsis, then what it does. */
  help: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'sidecar',
    help: 'sidecar --stdio            the sidecar the Hermes plugin starts (protocol v1 on stdin/stdout)',
    load: async () => (await import('./sidecar.js')).command,
  },
  {
    name: 'dashboard',
    help: 'dashboard [start|stop|status] [--port N] [--state-dir D]\n                             the live dashboard over a state dir (start: in the background)',
    load: async () => (await import('./dashboard.js')).command,
  },
  {
    name: 'demo',
    help: "demo [--port N] [--state-dir D]\n                             record a session on this project's files and watch it live",
    load: async () => (await import('./demo.js')).command,
  },
  {
    name: 'replay',
    help: 'replay <session.json> [--json] [--record]\n                             run a recorded session through the hooks and report the savings',
    load: async () => (await import('./replay.js')).command,
  },
  {
    name: 'filter',
    help: 'filter [--tool T] [--args JSON] [--error] [--jsonl]\n                             compress stdin as one tool output (or one JSON case per line)',
    load: async () => (await import('./filter.js')).command,
  },
  {
    name: 'analytics',
    help: 'analytics [--scope S] [--period P] [--limit N] [--json|--csv]\n                             savings history from the analytics database',
    load: async () => (await import('./analytics.js')).command,
  },
  {
    name: 'control',
    help: 'control <action> [key=value...]\n                             any hmc_control action outside Hermes',
    load: async () => (await import('./control.js')).command,
  },
  {
    name: 'doctor',
    help: 'doctor                     check Node, the native SQLite module, the state dir and the config',
    load: async () => (await import('./doctor.js')).command,
  },
];
