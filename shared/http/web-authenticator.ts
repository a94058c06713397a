import { atBrowserHost } from '#shared/client/browser-origin';

/**
 * The web authenticator's page under the API's base URL. An API reached at a loopback or unspecified IP address (the
 * local runtime) is this machine, where the page must open at `localhost`: passkeys refuse an IP address as their RP id.
 */
export function webAuthenticatorUrl(baseUrl: string): string {
  return atBrowserHost(new URL(`${baseUrl.replace(/\/+$/, '')}/authenticator/`)).href;
}
