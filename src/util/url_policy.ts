/**
 * Which URLs from a server the library will fetch, or hand to a user to
 * open: `https:` anywhere, `http:` only on this machine (development), no
 * credentials before the host, and never a link-local or cloud-metadata
 * address. One rule for OAuth endpoints, browser links and every other URL
 * a server names. Internal.
 *
 * @module
 */

/** Host names of this machine. */
const LOOPBACK_NAMES = new Set(["localhost", "[::1]"]);

/**
 * Addresses no server may send us to: link-local (169.254.0.0/16,
 * fe80::/10, where cloud metadata services answer), "this network"
 * (0.0.0.0/8), and the metadata names and addresses clouds use.
 */
const METADATA_NAMES = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "100.100.100.200",
  "[fd00:ec2::254]",
]);

/** Whether `hostname` (as `URL.hostname` spells it) is this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(host) || host.endsWith(".localhost") ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Whether `hostname` is link-local, "this network" or a cloud metadata address. */
export function isForbiddenHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return METADATA_NAMES.has(host) ||
    /^169\.254\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^0\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^\[fe[89ab][0-9a-f]?:/.test(host) ||
    // IPv4-mapped IPv6 of the same ranges.
    /^\[::ffff:(?:a9fe:|169\.254\.)/.test(host);
}

/**
 * Why `url` may not be fetched or opened, or `undefined` when it may: it
 * must be `https:` (`http:` only on a loopback host), carry no user name or
 * password (`https://bank.example@evil.example` hides where it leads), and
 * not point at a link-local or cloud-metadata address.
 */
export function webUrlProblem(url: URL): string | undefined {
  if (url.username !== "" || url.password !== "") {
    return "it carries credentials before its host";
  }
  if (isForbiddenHost(url.hostname)) {
    return "it points at a link-local or cloud-metadata address";
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:") {
    return isLoopbackHost(url.hostname)
      ? undefined
      : "it is plain http: on another machine (only https:, or http: on this machine, is allowed)";
  }
  return `its scheme ${
    JSON.stringify(url.protocol.slice(0, 20))
  } is not https: (only https:, or http: on this machine, is allowed)`;
}
