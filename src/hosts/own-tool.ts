/**
 * HMC's own tool in every host. HMC registers one tool, `hmc_control`, under that exact name
 * wherever it plugs in (Hermes' tool registry, the in-process host); a host that reaches it as an
 * MCP server names it with a prefix (Claude Code: `mcp__<server>__hmc_control`; others join with
 * `.`, `/` or `:`). Its answers (a recall, the index, status…) are what HMC itself made for the
 * model, so no strategy may shorten them and they never count as savings (issue 17, finding 1).
 * `/hmc` answers go to the user, never into the conversation, and need no rule.
 *
 * Invariant: the name alone decides (never the output's text, which a tool could imitate); any
 * case; a prefix must end in one of the separators, so `my_hmc_control` is not ours.
 */

/** The name HMC registers its tool under. */
export const OWN_TOOL = 'hmc_control';

const NAMESPACED = /(?:__|[./:])hmc_control$/;

/** True when `name` is HMC's own tool, as any host names it. */
export function isOwnTool(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === OWN_TOOL || NAMESPACED.test(lower);
}
