import ipaddr from 'ipaddr.js';

/**
 * The web authenticator's page under the API's base URL. An API reached at a loopback or unspecified IP address (the
 * local runtime) is this machine, where the page must open at `localhost`: passkeys refuse an IP address as their RP id.
 */
export function webAuthenticatorUrl(baseUrl: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/authenticator/`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValid(host) && ['loopback', 'unspecified'].includes(ipaddr.process(host).range()))
    url.hostname = 'localhost';
  return url.href;
}
