import { describe, expect, it } from 'vitest';
import { passkeyPlace } from '#web/authenticator/passkey-place';

const at = (href: string, secure = true) => ({ href, secure, webAuthn: true });

describe('where the web authenticator can offer a passkey', () => {
  it('offers one on localhost and on the relying party or a subdomain of it', () => {
    expect(passkeyPlace(at('http://localhost:3000/authenticator/'), 'localhost')).toBeUndefined();
    expect(passkeyPlace(at('https://mfa.example.com/authenticator/'), 'example.com')).toBeUndefined();
    expect(passkeyPlace(at('https://mfa.example.com/authenticator/'))).toBeUndefined();
  });

  it('sends a loopback address to localhost, keeping the path and the fragment', () => {
    for (const host of ['127.0.0.1', '[::1]', '0.0.0.0'])
      expect(passkeyPlace(at(`http://${host}:3000/authenticator/#code=ABCD2345`))).toEqual({
        problem: expect.stringContaining('never an IP address') as string,
        openInstead: 'http://localhost:3000/authenticator/#code=ABCD2345',
      });
  });

  it("sends another IP address, a plain http page and a foreign host to the service's own address", () => {
    expect(passkeyPlace(at('https://192.168.1.20/authenticator/#request=x'), 'mfa.example.com')).toEqual({
      problem: expect.stringContaining('192.168.1.20') as string,
      openInstead: 'https://mfa.example.com/authenticator/#request=x',
    });
    expect(passkeyPlace(at('http://mfa.example.com/authenticator/', false))).toEqual({
      problem: expect.stringContaining('https') as string,
      openInstead: 'https://mfa.example.com/authenticator/',
    });
    expect(passkeyPlace(at('https://other.example.net/authenticator/'), 'mfa.example.com')).toEqual({
      problem: expect.stringContaining('belong to mfa.example.com') as string,
      openInstead: 'https://mfa.example.com/authenticator/',
    });
  });

  it('says a browser without WebAuthn has none', () => {
    expect(
      passkeyPlace({ href: 'https://mfa.example.com/authenticator/', secure: true, webAuthn: false }),
    ).toEqual({ problem: 'This browser has no passkey support.' });
  });
});
