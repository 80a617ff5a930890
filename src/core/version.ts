/** The package version, reported by `hmc --version`, `hello` and the dashboard. */
export const VERSION = '0.1.0';
/** The sidecar protocol version (DESIGN §3). */
export const PROTOCOL_VERSION = 1;
