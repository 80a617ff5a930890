/**
 * The class of a figure that holds a name (a model): a long name takes the stats grid's whole row,
 * so `anthropic/claude-sonnet-4-20250514` is read whole instead of cut to `anthropic/claud…`.
 *
 * Invariant: only a layout hint; the name never wraps (styles.css `.stat .v.small`) and still
 * ends in an ellipsis, its whole text in the title, where even a row is too narrow.
 */

/** Names longer than this many characters do not fit a stats column of about 150 px. */
const LONG = 16;

export function statClass(name: string): string {
  return name.length > LONG ? 'stat whole-row' : 'stat';
}
