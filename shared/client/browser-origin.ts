import ipaddr from 'ipaddr.js';

/**
 * The same URL as a browser on this machine opens it: at `localhost` for a loopback or unspecified IP address, since
 * passkeys need a domain for their relying party, never an IP address, and `localhost` is a secure context without
 * TLS. Any other address is left as it is.
 */
export function atBrowserHost(url: URL): URL {
  const opened = new URL(url);
  const host = opened.hostname.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(host) && ['loopback', 'unspecified'].includes(ipaddr.process(host).range()))
    opened.hostname = 'localhost';
  return opened;
}

/** Where a browser on this machine opens a service at `baseUrl` (see `atBrowserHost`). */
export function browserOrigin(baseUrl: string): string {
  return atBrowserHost(new URL(baseUrl)).origin;
}
