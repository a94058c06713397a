/** Why passkeys cannot work where the page is open, and the address where they can, when there is one. */
export interface PasskeyPlace {
  readonly problem: string;
  readonly openInstead?: string;
}

/** What the page knows of where it is: its address, whether it is a secure context, whether it has WebAuthn. */
export interface Where {
  readonly href: string;
  readonly secure: boolean;
  readonly webAuthn: boolean;
}

const ipv4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** This machine by address: a browser on it reaches the same server at `localhost`. */
const thisMachine = (host: string) =>
  host.startsWith('127.') || host === '[::1]' || host === '0.0.0.0' || host === '[::]';

/**
 * Where passkeys cannot work, said before a button offers one: WebAuthn takes only a domain as its relying party (RP)
 * id, never an IP address (so not 127.0.0.1, though loopback is a secure context); it needs a secure context (https, or
 * `localhost`); and a passkey is bound to the service's configured RP id (`rpId`, once the service has named it), so a
 * page on another host cannot make or use one. Undefined where passkeys can work.
 */
export function passkeyPlace(where: Where, rpId?: string): PasskeyPlace | undefined {
  const url = new URL(where.href);
  const host = url.hostname;
  if (ipv4.test(host) || host.startsWith('[')) {
    if (thisMachine(host)) {
      url.hostname = 'localhost';
      return {
        problem: `Passkeys cannot work at ${host}: browsers take only a domain name for a passkey, never an IP address. Open this page at localhost instead, on this computer.`,
        openInstead: url.href,
      };
    }
    return {
      problem: `Passkeys cannot work at ${host}: browsers take only a domain name for a passkey, never an IP address.`,
      ...(rpId ? { openInstead: configured(url, rpId) } : {}),
    };
  }
  if (!where.secure) {
    url.protocol = 'https:';
    return {
      problem: 'Passkeys need a secure page: this one was opened over plain http. Open it over https.',
      openInstead: url.href,
    };
  }
  if (rpId && host !== rpId && !host.endsWith(`.${rpId}`))
    return {
      problem: `This service’s passkeys belong to ${rpId}, and this page is open at ${host}, where the browser refuses them. Open the service’s own address.`,
      openInstead: configured(url, rpId),
    };
  if (!where.webAuthn) return { problem: 'This browser has no passkey support.' };
  return undefined;
}

/** The page at the service's configured host: https, except on `localhost`, which keeps this page's scheme and port. */
function configured(url: URL, rpId: string): string {
  const target = new URL(url.href);
  if (rpId !== 'localhost') {
    target.protocol = 'https:';
    target.port = '';
  }
  target.hostname = rpId;
  return target.href;
}
