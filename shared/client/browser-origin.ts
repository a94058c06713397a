/**
 * Where a browser on this machine opens a service: at `localhost` for a loopback or unspecified address, since
 * passkeys need a domain for their relying party, never an IP address, and `localhost` is a secure context without
 * TLS. Any other address is left as it is.
 */
export function browserOrigin(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (['127.0.0.1', '0.0.0.0', '[::1]', '[::]'].includes(url.hostname)) url.hostname = 'localhost';
  return url.origin;
}
