import { afterEach, describe, expect, it } from 'vitest';
import { callerAddress, viewerAddressHeader } from '#shared/http/caller-address';
import type { HttpEvent } from '#shared/http/event';
import { originSecretsVariable, originVerifyHeader } from '#shared/http/middlewares/edge-origin';
import { toHttpEvent, unsignedRequest } from '#test/support/events';

const secret = 'origin-secret-for-the-test';
const edgeServer = '130.176.0.12';

function event(headers: Record<string, string>): HttpEvent {
  const base = toHttpEvent(unsignedRequest('/public/v3/ping', { headers }));
  return {
    ...base,
    requestContext: { ...base.requestContext, http: { ...base.requestContext.http, sourceIp: edgeServer } },
  };
}

afterEach(() => {
  delete process.env[originSecretsVariable];
});

describe("the caller's address", () => {
  it("is CloudFront's viewer address when the origin secret proves CloudFront forwarded the request", () => {
    process.env[originSecretsVariable] = secret;
    expect(
      callerAddress(event({ [originVerifyHeader]: secret, [viewerAddressHeader]: '198.51.100.7:46532' })),
    ).toBe('198.51.100.7');
    expect(
      callerAddress(event({ [originVerifyHeader]: secret, [viewerAddressHeader]: '2001:db8:0:0::7:46532' })),
    ).toBe('2001:db8::7');
  });

  it('is the source address when the viewer header is forged: no edge configured, or a wrong secret', () => {
    const forged = { [viewerAddressHeader]: '198.51.100.7:46532' };
    expect(callerAddress(event(forged))).toBe(edgeServer);
    process.env[originSecretsVariable] = secret;
    expect(callerAddress(event({ ...forged, [originVerifyHeader]: 'wrong' }))).toBe(edgeServer);
  });

  it('is the source address when the viewer header holds no address', () => {
    process.env[originSecretsVariable] = secret;
    for (const value of ['', 'not-an-address:80', '198.51.100.7', ':80', `${'1'.repeat(70)}:80`]) {
      expect(callerAddress(event({ [originVerifyHeader]: secret, [viewerAddressHeader]: value }))).toBe(
        edgeServer,
      );
    }
  });
});
