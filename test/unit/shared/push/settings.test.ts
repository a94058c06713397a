import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '#shared/push/post';
import { checkVapidSubject, pushWorkerSettings } from '#shared/push/settings';
import { maxWebPushPlaintextBytes, pushTopic, webPushPayload } from '#shared/push/web-push';

describe('the push worker settings', () => {
  it('take a VAPID contact push services accept, and refuse made-up ones', () => {
    for (const good of [
      'mailto:security@example.org',
      'https://mfa.example.com',
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
    ]) {
      expect(checkVapidSubject(good)).toBe(good);
    }
    for (const bad of [
      'mailto:x@localhost',
      'https://localhost',
      'http://mfa.example.com',
      'ops@example.com',
      'mailto:nobody',
    ]) {
      expect(() => checkVapidSubject(bad)).toThrow(/PUSH_VAPID_SUBJECT/);
    }
  });

  it('default to a valid contact and the documented retries', () => {
    expect(pushWorkerSettings({})).toMatchObject({
      timeoutMs: 5_000,
      maxAttempts: 5,
      retryBaseSeconds: 2,
      vapidSubject: 'mailto:postmaster@example.com',
    });
    expect(() => pushWorkerSettings({ PUSH_MAX_ATTEMPTS: '0' })).toThrow(/positive integer/);
  });
});

describe('Web Push', () => {
  it('reads Retry-After as seconds or as a date', () => {
    const now = Date.parse('2026-11-25T00:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Wed, 25 Nov 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });

  it('collapses per request with a Topic of at most 32 URL-safe characters', () => {
    expect(pushTopic('0f8e4b7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b')).toBe('0f8e4b7a1c2d4e5f8a9b0c1d2e3f4a5b');
  });

  it('carries the request id, a title and a line, and nothing else', () => {
    const payload = JSON.parse(
      webPushPayload({ kind: 'ended', authRequestId: 'id', title: 'Acme', body: 'Expired', ttlSeconds: 600 }),
    ) as Record<string, unknown>;
    expect(payload).toEqual({
      type: 'auth_request_ended',
      auth_request: 'id',
      title: 'Acme',
      body: 'Expired',
      tag: 'id',
    });
  });

  it("is a declarative push message that opens the request's page, keeping today's fields while they fit", () => {
    const page = 'https://mfa.example.com/authenticator/';
    const prompt = {
      kind: 'prompt',
      authRequestId: 'id',
      title: 'Acme',
      body: 'Sign in?',
      ttlSeconds: 60,
    } as const;
    expect(JSON.parse(webPushPayload(prompt, page))).toEqual({
      web_push: 8030,
      notification: {
        title: 'Acme',
        body: 'Sign in?',
        tag: 'id',
        navigate: `${page}#request=id`,
        require_interaction: true,
      },
      mutable: true,
      type: 'auth_request',
      auth_request: 'id',
      title: 'Acme',
      body: 'Sign in?',
      tag: 'id',
    });
    // The longest text a service may send, in three-byte characters: the copy goes, the declarative message stays.
    const long = { ...prompt, title: '€'.repeat(200), body: '€'.repeat(1000) };
    const payload = webPushPayload(long, page);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(maxWebPushPlaintextBytes);
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    expect(parsed).toMatchObject({ web_push: 8030, notification: { title: long.title, body: long.body } });
    expect(parsed.title).toBeUndefined();
  });
});
