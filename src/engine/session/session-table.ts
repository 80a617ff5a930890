/**
 * The sessions this process holds: found by id (loaded from their saved state when first met),
 * the one a control call means, which ones a host hook touched, and whose each one is.
 *
 * Invariant: a session is held at most once per id; a session loaded for a control call alone is
 * never marked as hooked (so letting it go writes no record); an id never met and never saved is
 * made up only when a hook or a control call names it, never when a host only lets it go.
 */
import type { PersistedSession } from './persisted.js';
import { ownerKey } from './owner.js';
import { Session } from './session.js';

export interface SessionTableOptions {
  /** A session's saved state, or null when none was saved. */
  load: (id: string) => PersistedSession | null;
  /** Whether a new session starts in manual mode (read when one is made). */
  manualMode: () => boolean;
  now: () => number;
  /** The host process' project (its working directory's real path). */
  projectPath: string;
}

export class SessionTable {
  readonly held = new Map<string, Session>();
  /** Sessions a hook touched in this process (not only a control call that read them). */
  private readonly hooked = new Set<string>();
  private lastActiveId: string | null = null;

  constructor(private readonly opts: SessionTableOptions) {}

  /** The session `id`, held or loaded from its saved state; `hook`: a host hook touches it. */
  get(id: string | undefined, hook = true): Session | null {
    if (!id) return null;
    if (hook) this.hooked.add(id);
    let s = this.held.get(id);
    if (!s) {
      s = new Session(id, this.opts.now(), this.opts.manualMode(), this.opts.load(id) ?? undefined);
      s.meta.defaultProject(this.opts.projectPath);
      this.held.set(id, s);
    }
    s.meta.touched(this.opts.now());
    this.lastActiveId = id;
    return s;
  }

  /** A session finished elsewhere or earlier, from its saved state (never an empty one made up). */
  saved(id: string): Session | undefined {
    return this.opts.load(id) ? (this.get(id, false) ?? undefined) : undefined;
  }

  /**
   * The session a control call means: the one named, else the most recently active one. Never an
   * earlier process' session: `/hmc status` in a brand-new Hermes session is about that session
   * (`hmc control` in a terminal names the latest saved one itself).
   */
  resolve(id: string | undefined): Session | null {
    if (id && this.held.has(id)) return this.held.get(id) as Session;
    if (id) return this.get(id, false);
    // Unnamed on a gateway serving several people: the latest session may be another user's
    // (issue 26, finding 5), so none is guessed once the sessions held are not all one owner's.
    if (!this.oneOwner()) return null;
    if (this.lastActiveId && this.held.has(this.lastActiveId)) return this.held.get(this.lastActiveId) as Session;
    if (this.held.size === 1) return [...this.held.values()][0] as Session;
    return null;
  }

  /** Every session held is the same owner's (owner.ts). */
  private oneOwner(): boolean {
    return this.owners() <= 1;
  }

  /** How many owners the sessions held have (owner.ts). */
  owners(): number {
    return new Set([...this.held.values()].map((s) => ownerKey(s.meta.platform, s.meta.user))).size;
  }

  /** The session starts afresh, whatever an earlier process saved of it (a replay that records it again). */
  startOver(id: string): void {
    this.held.delete(id);
    const s = new Session(id, this.opts.now(), this.opts.manualMode());
    s.meta.defaultProject(this.opts.projectPath);
    this.held.set(id, s);
  }

  /** Whose a session is (owner.ts): held here, else as its saved file says; null when neither knows it. */
  ownerOf(id: string): string | null {
    const held = this.held.get(id);
    if (held) return ownerKey(held.meta.platform, held.meta.user);
    const saved = this.opts.load(id);
    return saved ? ownerKey(saved.platform, saved.user ?? '') : null;
  }

  /** The session leaves this process; true when a hook touched it here. */
  leave(s: Session): boolean {
    const hooked = this.hooked.delete(s.id);
    this.held.delete(s.id);
    if (this.lastActiveId === s.id) this.lastActiveId = null;
    return hooked;
  }
}
