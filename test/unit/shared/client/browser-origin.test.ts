import { describe, expect, it } from 'vitest';
import { browserOrigin } from '#shared/client/browser-origin';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';

describe('where a browser on this machine opens the service', () => {
  it('is localhost for every loopback or unspecified address, for the CLIs and the QR image alike', () => {
    for (const base of [
      'http://127.0.0.1:8080',
      'http://127.0.0.2:8080',
      'http://0.0.0.0:8080',
      'http://[::1]:8080',
    ]) {
      expect(browserOrigin(base)).toBe('http://localhost:8080');
      expect(webAuthenticatorUrl(base)).toBe('http://localhost:8080/authenticator/');
    }
  });

  it('leaves any other address as it is', () => {
    expect(browserOrigin('http://192.168.1.20:8080')).toBe('http://192.168.1.20:8080');
    expect(browserOrigin('https://mfa.example.com/prod')).toBe('https://mfa.example.com');
  });
});
