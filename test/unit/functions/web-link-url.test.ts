import { describe, expect, it } from 'vitest';
import { webLinkUrl } from '#functions/public/get-qr-code';

describe("the QR image's web authenticator URL", () => {
  it('names localhost for an API reached at a loopback or unspecified IP address, where passkeys cannot work', () => {
    for (const base of [
      'http://127.0.0.1:3000',
      'http://0.0.0.0:3000',
      'http://[::1]:3000',
      'http://[::]:3000',
    ])
      expect(webLinkUrl(base, 'ABCD2345')).toBe('http://localhost:3000/authenticator/#code=ABCD2345');
  });

  it('keeps a domain and its stage path as they are', () => {
    expect(webLinkUrl('https://mfa.example.com/prod', 'ABCD2345')).toBe(
      'https://mfa.example.com/prod/authenticator/#code=ABCD2345',
    );
  });
});
