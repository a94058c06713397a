import { createPrivateKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FcmServiceAccount, parseAndroidKey } from '#shared/domain/android-key';
import type { FcmChannel } from '#shared/push/channel';
import { fcmProvider } from '#shared/push/fcm';
import type { AuthRequestNotification } from '#shared/push/provider';
import { type FcmServer, startFcmServer } from '#test/support/fcm-server';
import { makeServiceAccount, type TestServiceAccount } from '#test/support/service-account';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../fixtures/apns/${name}`, import.meta.url), 'utf8');

let testAccount: TestServiceAccount;
let account: FcmServiceAccount;
let server: FcmServer;

// A new account per test: the provider's token cache is per account, and outlives a provider by design.
beforeEach(async () => {
  testAccount = makeServiceAccount(`fcm-test-${randomUUID().slice(0, 8)}`);
  account = parseAndroidKey(testAccount.json);
  server = await startFcmServer({ account: testAccount });
});

afterEach(async () => {
  vi.useRealTimers();
  await server.close();
});

const provider = (timeoutMs = 5_000) =>
  fcmProvider({ account, sendUrl: server.origin, tokenUrl: server.tokenUrl, timeoutMs });

const channel = (token = `reg-${randomUUID()}`): FcmChannel => ({
  type: 'fcm',
  token,
  registered: '2025-01-01T00:00:00.000Z',
});

const requestId = 'b3a1c2d4-0000-4000-8000-00000000abcd';
const prompt: AuthRequestNotification = {
  kind: 'prompt',
  authRequestId: requestId,
  title: 'Acme wants you to sign in',
  body: 'Approve or deny in the app',
  ttlSeconds: 299.7,
};
const ended: AuthRequestNotification = {
  kind: 'ended',
  authRequestId: requestId,
  title: 'Answered elsewhere',
  body: 'This request is no longer waiting',
  ttlSeconds: 60,
};

describe('the FCM provider', () => {
  it('sends a prompt as a high-priority notification carrying only the type and the request id', async () => {
    const to = channel();
    expect(await provider().send(to, prompt)).toEqual({ outcome: 'delivered', status: 200 });
    expect(server.rejected).toEqual([]);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]).toMatchObject({ project: account.projectId, token: to.token, status: 200 });
    expect(server.received[0]?.body).toEqual({
      message: {
        token: to.token,
        data: { type: 'auth_request', auth_request: requestId },
        android: {
          priority: 'HIGH',
          ttl: '299s',
          collapse_key: requestId,
          notification: { title: prompt.title, body: prompt.body, tag: requestId },
        },
      },
    });
  });

  it('sends an ended push as a normal-priority data-only message', async () => {
    const to = channel();
    expect(await provider().send(to, ended)).toEqual({ outcome: 'delivered', status: 200 });
    expect(server.rejected).toEqual([]);
    expect(server.received[0]?.body).toEqual({
      message: {
        token: to.token,
        data: { type: 'auth_request_ended', auth_request: requestId },
        android: { priority: 'NORMAL', ttl: '60s', collapse_key: requestId },
      },
    });
  });

  it('gets one access token and reuses it across sends and across providers', async () => {
    const first = provider();
    expect((await first.send(channel(), prompt)).outcome).toBe('delivered');
    expect((await first.send(channel(), prompt)).outcome).toBe('delivered');
    expect((await provider().send(channel(), ended)).outcome).toBe('delivered');
    expect(server.tokensIssued).toHaveLength(1);
    expect(server.received).toHaveLength(3);
    expect(server.rejected).toEqual([]);
  });

  it('makes one token request for concurrent first sends', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => provider().send(channel(), prompt)));
    expect(results.map((result) => result.outcome)).toEqual(Array(8).fill('delivered'));
    expect(server.tokensIssued).toHaveLength(1);
  });

  it('gets a new token before the old one expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect((await provider().send(channel(), prompt)).outcome).toBe('delivered');
    vi.setSystemTime(Date.now() + 3_599_000 - 30_000);
    expect(await provider().send(channel(), prompt)).toEqual({ outcome: 'delivered', status: 200 });
    expect(server.tokensIssued).toHaveLength(2);
    expect(server.rejected).toEqual([]);
  });

  it('drops a token FCM refuses with 401 and gets a new one for the next attempt', async () => {
    const send = provider();
    expect((await send.send(channel(), prompt)).outcome).toBe('delivered');
    server.expireTokens();
    expect(await send.send(channel(), prompt)).toEqual({
      outcome: 'retry-after',
      reason: 'FCM answered 401 UNAUTHENTICATED',
      status: 401,
    });
    expect(await send.send(channel(), prompt)).toEqual({ outcome: 'delivered', status: 200 });
    expect(server.tokensIssued).toHaveLength(2);
    expect(server.rejected).toEqual([]);
  });

  it('says a channel is gone on UNREGISTERED and on an invalid registration token', async () => {
    const unregistered = channel();
    const invalid = channel();
    server.answer(unregistered.token, 'UNREGISTERED');
    server.answer(invalid.token, 'INVALID_ARGUMENT');
    expect(await provider().send(unregistered, prompt)).toEqual({ outcome: 'gone', status: 404 });
    expect(await provider().send(invalid, prompt)).toEqual({ outcome: 'gone', status: 400 });
  });

  it('retries on 429 and 5xx, honouring Retry-After', async () => {
    const to = channel();
    server.answer(to.token, { error: 'QUOTA_EXCEEDED', retryAfter: '30' }, 'UNAVAILABLE', 'INTERNAL');
    expect(await provider().send(to, prompt)).toEqual({
      outcome: 'retry-after',
      reason: 'FCM answered 429 QUOTA_EXCEEDED',
      status: 429,
      seconds: 30,
    });
    expect(await provider().send(to, prompt)).toEqual({
      outcome: 'retry-after',
      reason: 'FCM answered 503 UNAVAILABLE',
      status: 503,
    });
    expect(await provider().send(to, prompt)).toMatchObject({ outcome: 'retry-after', status: 500 });
    expect(await provider().send(to, prompt)).toEqual({ outcome: 'delivered', status: 200 });
  });

  it('fails without retry on SENDER_ID_MISMATCH, naming the error but not the token', async () => {
    const to = channel();
    server.answer(to.token, 'SENDER_ID_MISMATCH');
    const result = await provider().send(to, prompt);
    expect(result).toEqual({ outcome: 'failed', reason: 'FCM answered 403 SENDER_ID_MISMATCH', status: 403 });
  });

  it('fails when the token endpoint refuses the grant, and retries when it is down', async () => {
    server.answerGrant('invalid_grant', 'unavailable');
    expect(await provider().send(channel(), prompt)).toEqual({
      outcome: 'failed',
      reason: 'the token endpoint answered 400 invalid_grant',
      status: 400,
    });
    expect(await provider().send(channel(), prompt)).toEqual({
      outcome: 'retry-after',
      reason: 'the token endpoint answered 503',
      status: 503,
    });
    expect(server.received).toEqual([]);
    expect(await provider().send(channel(), prompt)).toEqual({ outcome: 'delivered', status: 200 });
  });

  it('retries when FCM or the token endpoint does not answer in time', async () => {
    server.answerGrant('hang');
    expect(await provider(300).send(channel(), prompt)).toEqual({
      outcome: 'retry-after',
      reason: 'token endpoint: no answer within 300 ms',
    });
    const to = channel();
    server.answer(to.token, 'hang');
    expect(await provider(300).send(to, prompt)).toEqual({
      outcome: 'retry-after',
      reason: 'no answer within 300 ms',
    });
  });

  it('trusts a given CA over https, and nothing it was not given', async () => {
    const tlsServer = await startFcmServer({
      account: testAccount,
      tls: { cert: fixture('server.pem'), key: fixture('server.key.pem') },
    });
    try {
      const options = { account, sendUrl: tlsServer.origin, tokenUrl: tlsServer.tokenUrl, timeoutMs: 5_000 };
      const refused = await fcmProvider(options).send(channel(), prompt);
      expect(refused).toMatchObject({
        outcome: 'retry-after',
        reason: expect.stringMatching(/^token endpoint: the request failed/),
      });
      expect(await fcmProvider({ ...options, ca: fixture('server-ca.pem') }).send(channel(), prompt)).toEqual(
        {
          outcome: 'delivered',
          status: 200,
        },
      );
      expect(tlsServer.rejected).toEqual([]);
    } finally {
      await tlsServer.close();
    }
  });
});

describe('the FCM stand-in', () => {
  async function grant(overrides: {
    claims?: Record<string, unknown>;
    kid?: string;
    key?: string;
    form?: Record<string, string>;
  }) {
    const iat = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({
      iss: account.clientEmail,
      aud: server.tokenUrl,
      scope: 'https://www.googleapis.com/auth/firebase.messaging',
      iat,
      exp: iat + 3600,
      ...overrides.claims,
    })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: overrides.kid ?? account.privateKeyId })
      .sign(createPrivateKey(overrides.key ?? account.privateKeyPem));
    const response = await fetch(server.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion,
        ...overrides.form,
      }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('issues a token for a correct grant and refuses every wrong one', async () => {
    expect(await grant({})).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 3599 } });
    expect(server.rejected).toEqual([]);
    const iat = Math.floor(Date.now() / 1000);
    const wrongs = [
      { key: makeServiceAccount().file.private_key },
      { kid: 'someone-elses-key-id' },
      { claims: { iss: 'other@fcm-test.iam.gserviceaccount.com' } },
      { claims: { aud: 'https://oauth2.googleapis.com/token' } },
      { claims: { scope: 'https://www.googleapis.com/auth/cloud-platform' } },
      { claims: { iat: iat - 7200, exp: iat + 60 } },
      { claims: { iat: iat - 7200, exp: iat - 3600 } },
      { form: { grant_type: 'client_credentials' } },
    ];
    for (const wrong of wrongs) {
      expect(await grant(wrong)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
    expect(server.rejected).toHaveLength(wrongs.length);
  });

  it('refuses a message FCM would refuse, an unknown bearer and another project', async () => {
    const { body } = await grant({});
    const bearer = String(body.access_token);
    const post = (message: unknown, token = bearer, project = account.projectId) =>
      fetch(`${server.origin}/v1/projects/${project}/messages:send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      }).then((response) => response.status);
    expect(await post({ token: 'a', data: { type: 'x' }, android: { ttl: '30s', priority: 'HIGH' } })).toBe(
      200,
    );
    expect(server.rejected).toEqual([]);
    const bad = [
      { token: 'a', topic: 'b' },
      { data: { type: 'x' } },
      { token: 'a', data: { count: 1 } },
      { token: 'a', data: { from: 'x' } },
      { token: 'a', android: { ttl: '30' } },
      { token: 'a', android: { priority: 'URGENT' } },
      { token: 'a', android: { notification: { title: 7 } } },
      { token: 'a', android: { colapse_key: 'x' } },
    ];
    for (const message of bad) expect(await post(message)).toBe(400);
    expect(await post({ token: 'a' }, 'ya29.made-up')).toBe(401);
    expect(await post({ token: 'a' }, bearer, 'someone-else')).toBe(403);
    expect(server.rejected).toHaveLength(bad.length + 2);
  });
});
