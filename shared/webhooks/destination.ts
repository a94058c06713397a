import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Where webhooks may go: https always, http only if allowed; public unicast addresses, and the networks allowed. */
export interface DestinationPolicy {
  readonly allowHttp: boolean;
  readonly allowedNetworks: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

/**
 * A webhook URL that must not be fetched, and why. A refusal by the policy is final (the message goes to the DLQ with
 * the reason); a host that does not resolve now may later, so that one is `transient`.
 */
export class DestinationRefused extends Error {
  override readonly name = 'DestinationRefused';

  constructor(
    message: string,
    readonly transient = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The operator's policy from the environment: `WEBHOOK_ALLOW_HTTP=true` permits plain http, and
 * `WEBHOOK_ALLOWED_NETWORKS` (comma-separated CIDRs, e.g. `127.0.0.0/8,::1/128`) permits addresses the guard would
 * otherwise refuse. The local runtime allows loopback and http; a deployment allows neither unless told to.
 */
export function destinationPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): DestinationPolicy {
  const networks = (env.WEBHOOK_ALLOWED_NETWORKS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((cidr) => {
      if (!ipaddr.isValidCIDR(cidr)) throw new Error(`WEBHOOK_ALLOWED_NETWORKS: ${cidr} is not a CIDR`);
      return ipaddr.parseCIDR(cidr);
    });
  return { allowHttp: env.WEBHOOK_ALLOW_HTTP === 'true', allowedNetworks: networks };
}

/** Why an address must not be connected to, or undefined when it may be. */
export function refusedAddress(address: string, policy: DestinationPolicy): string | undefined {
  const text = canonical(address);
  if (text === undefined || !ipaddr.isValid(text)) return `${address} is not an IP address`;
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(text);
  const allowed = policy.allowedNetworks.some(
    ([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits),
  );
  if (allowed) return undefined;
  const range = parsed.range();
  if (range !== 'unicast') return `${address} is a ${range} address`;
  // ::a.b.c.d (IPv4-compatible, deprecated by RFC 4291) is not routed on the Internet, and stacks that still map it
  // reach the IPv4 address inside: refused outright, whatever that address is.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    return `${address} is an IPv4-compatible IPv6 address`;
  }
  return undefined;
}

/**
 * IPv6 text in its canonical hex form (`::127.0.0.1` → `::7f00:1`), as the WHATWG URL parser writes it. ipaddr.js
 * reads any dotted IPv6 suffix as the IPv4-mapped form, so `::127.0.0.1` would be judged as `::ffff:127.0.0.1` while a
 * socket connects to the IPv4-compatible address the text names.
 */
function canonical(address: string): string | undefined {
  if (!address.includes(':')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    // A zone index (`fe80::1%eth0`) is valid to ipaddr.js but names no address a webhook may reach.
    return undefined;
  }
}

export interface Destination {
  readonly url: URL;
  /** The checked address to connect to: resolution happens once, so a changed DNS answer cannot redirect it. */
  readonly address: string;
  readonly family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Checks a webhook URL at delivery time: its scheme, that it carries no credentials, and every address its host
 * resolves to; the first allowed address is the one to connect to.
 *
 * @throws DestinationRefused naming the reason.
 */
export async function resolveDestination(
  target: string,
  policy: DestinationPolicy,
  resolve: Resolver = systemResolver,
): Promise<Destination> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new DestinationRefused('the URL does not parse');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new DestinationRefused(`the ${url.protocol.replace(':', '')} scheme is not allowed`);
  }
  if (url.username || url.password) throw new DestinationRefused('the URL carries credentials');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let candidates: readonly { address: string; family: number }[];
  if (ipaddr.isValid(host)) {
    candidates = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      candidates = await resolve(host);
    } catch (cause) {
      throw new DestinationRefused(`${host} does not resolve`, true, { cause });
    }
  }
  const reasons: string[] = [];
  for (const candidate of candidates) {
    const reason = refusedAddress(candidate.address, policy);
    if (reason === undefined) {
      return { url, address: candidate.address, family: candidate.family === 6 ? 6 : 4 };
    }
    reasons.push(reason);
  }
  throw new DestinationRefused(reasons.length ? `${host}: ${reasons.join('; ')}` : `${host} has no address`);
}
