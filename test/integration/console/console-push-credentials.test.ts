import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusal, type SignedIn } from '#test/integration/console/console-client';
import { apnsFixture, testTokenKey } from '#test/support/apns-server';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { makeServiceAccount } from '#test/support/service-account';

/**
 * A directory's push credentials in the console (docs/console.md#push-credentials), over real HTTP against the local
 * runtime: the .p12 and the FCM service account through the signed API's directory update, shown by what they push
 * to and never by a key; the operator's APNs token key, rate limit and fraud lock; the role, the organization, the
 * body's bounds and the admin's passkey checked as for every change of credentials.
 */
let runtime: TestRuntime;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;
let owner: SignedIn;
let operator: SignedIn;

const pushP12 = apnsFixture('push.p12.base64').trim();
let counter = 0;
const unique = (prefix: string) => `${prefix} ${Date.now()} ${(counter += 1)}`;

beforeAll(async () => {
  runtime = await startTestRuntime();
  client = await (await import('#test/integration/console/console-client')).consoleClient(runtime);
  [owner, operator] = await Promise.all([client.signedIn('owner'), client.signedIn('operator')]);
}, 60_000);
afterAll(() => runtime?.stop());

const newDirectory = () => client.store.directory(runtime.organizationId, unique('Directory'));
const push = (directoryId: string) => `/directories/${directoryId}/push`;

describe('push credentials on a directory’s page', () => {
  it('takes a .p12 and an FCM service account and shows what each pushes to, never a key', async () => {
    const directoryId = await newDirectory();
    const account = makeServiceAccount();
    const before = await client.call('GET', push(directoryId), { session: owner });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      apns_certificate: 'none',
      fcm: 'none',
      apns_uses: 'nothing: APNs pushes fail',
    });

    const p12 = await client.call('PUT', `${push(directoryId)}/apns-certificate`, {
      session: owner,
      body: { p12: pushP12 },
    });
    expect(p12.status).toBe(200);
    expect(p12.body).toMatchObject({
      apns_certificate: 'topic com.example.authenticator',
      apns_uses: 'certificate',
    });
    const fcm = await client.call('PUT', `${push(directoryId)}/fcm`, {
      session: owner,
      body: { service_account: account.json },
    });
    expect(fcm.status).toBe(200);

    const shown = await client.call('GET', push(directoryId), { session: owner });
    expect(shown.body).toMatchObject({
      apns_certificate: 'topic com.example.authenticator',
      apns_token_key: 'none',
      fcm: `project mfa-push-test, ${account.file.client_email}`,
      rate_limit: { count: expect.any(Number), window_seconds: expect.any(Number) },
    });
    const text = JSON.stringify(shown.body);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(pushP12.slice(0, 64));
    expect(text).not.toContain(account.file.private_key_id);

    // The signed API's record shows the certificate's fingerprint, as the signed update leaves it.
    const { getDirectory } = await import('#shared/store/directories');
    expect((await getDirectory(runtime.organizationId, directoryId))?.ios_certificate_fingerprint).toMatch(
      /^3B:65:88:BC/,
    );

    expect(
      (await client.call('DELETE', `${push(directoryId)}/apns-certificate`, { session: owner })).body,
    ).toMatchObject({
      apns_certificate: 'none',
    });
    expect((await client.call('DELETE', `${push(directoryId)}/fcm`, { session: owner })).body).toMatchObject({
      fcm: 'none',
    });
  });

  it('refuses a .p12 that is not one with ARG-001, as the signed API does, and one too large before parsing it', async () => {
    const directoryId = await newDirectory();
    // The console takes the .p12 without a password, as LaunchKey did: a protected one is refused, as by ios_p12.
    const withPassword = readFileSync(
      new URL('../../fixtures/openssl-with-password.p12.base64', import.meta.url),
      'utf8',
    ).trim();
    for (const p12 of [withPassword, Buffer.from('not a p12').toString('base64')]) {
      const bad = await client.call('PUT', `${push(directoryId)}/apns-certificate`, {
        session: owner,
        body: { p12 },
      });
      expect(refusal(bad)).toEqual({ status: 400, code: 'ARG-001' });
      expect(bad.body?.error_detail).toMatch(/^ios_p12: .*password/);
    }

    const large = await client.call('PUT', `${push(directoryId)}/apns-certificate`, {
      session: owner,
      body: { p12: 'A'.repeat(25 * 1024) },
    });
    expect(refusal(large)).toEqual({ status: 400, code: 'ARG-001' });
    expect(large.body?.error_detail).toMatch(/p12: must be at most/);

    const huge = await client.call('PUT', `${push(directoryId)}/fcm`, {
      session: owner,
      body: { service_account: 'x'.repeat(40 * 1024) },
    });
    expect(refusal(huge)).toEqual({ status: 413, code: 'HTTP-413' });
  });

  it('lets only the operator set the APNs token key, rate limit and fraud lock, each recorded once', async () => {
    const directoryId = await newDirectory();
    const since = new Date(Date.now() - 1000);
    const tokenKey = {
      key_pem: testTokenKey.keyPem,
      key_id: testTokenKey.keyId,
      team_id: testTokenKey.teamId,
      topic: testTokenKey.topic,
    };
    const settings = { rate_limit: { count: 7, window_seconds: 600 }, fraud_lock_seconds: 900 };
    for (const answer of [
      await client.call('PUT', `${push(directoryId)}/apns-token-key`, { session: owner, body: tokenKey }),
      await client.call('DELETE', `${push(directoryId)}/apns-token-key`, { session: owner }),
      await client.call('PATCH', `/directories/${directoryId}/settings`, { session: owner, body: settings }),
    ])
      expect(refusal(answer)).toEqual({ status: 403, code: 'CON-003' });

    const set = await client.call('PUT', `${push(directoryId)}/apns-token-key`, {
      session: operator,
      body: tokenKey,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      apns_token_key: `key ${testTokenKey.keyId}, team ${testTokenKey.teamId}, topic ${testTokenKey.topic}`,
      apns_uses: 'token key',
    });
    expect(JSON.stringify(set.body)).not.toContain('PRIVATE KEY');
    const wrong = await client.call('PUT', `${push(directoryId)}/apns-token-key`, {
      session: operator,
      body: { ...tokenKey, key_id: 'lower' },
    });
    expect(refusal(wrong)).toEqual({ status: 400, code: 'ARG-001' });

    const changed = await client.call('PATCH', `/directories/${directoryId}/settings`, {
      session: operator,
      body: settings,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject(settings);
    expect((await client.call('GET', push(directoryId), { session: owner })).body).toMatchObject(settings);
    const off = await client.call('PATCH', `/directories/${directoryId}/settings`, {
      session: operator,
      body: { fraud_lock_seconds: null },
    });
    expect(off.body).toMatchObject({ rate_limit: settings.rate_limit, fraud_lock_seconds: null });
    const outOfBounds = await client.call('PATCH', `/directories/${directoryId}/settings`, {
      session: operator,
      body: { rate_limit: { count: 0, window_seconds: 10 } },
    });
    expect(refusal(outOfBounds)).toEqual({ status: 400, code: 'ARG-001' });

    const removed = await client.call('DELETE', `${push(directoryId)}/apns-token-key`, { session: operator });
    expect(removed.body).toMatchObject({ apns_token_key: 'none' });

    // The console's pipeline records each change once, naming the operator; the use case adds none of its own.
    const { queryAuditRecords } = await import('#shared/store/audit-records');
    const { records } = await queryAuditRecords({
      organizationId: runtime.organizationId,
      since: since.toISOString(),
      until: new Date(Date.now() + 60_000).toISOString(),
      limit: 1000,
      maxPages: 10,
    });
    const settingsRecords = records.filter(
      (record) =>
        record.directory_id === directoryId && /settings/.test(record.operation) && record.status === 200,
    );
    expect(settingsRecords.map((record) => record.actor_type)).toEqual(['console', 'console']);
  });

  it('answers another organization’s directory as a missing one, and asks for the passkey again after 5 minutes', async () => {
    const other = (await client.store.organization(unique('Other'))).organization.id;
    const theirs = await client.store.directory(other, unique('Directory'));
    for (const answer of [
      await client.call('GET', push(theirs), { session: owner }),
      await client.call('PUT', `${push(theirs)}/apns-certificate`, {
        session: owner,
        body: { p12: pushP12 },
      }),
      await client.call('DELETE', `${push(theirs)}/fcm`, { session: owner }),
      await client.call('GET', push('not-an-id'), { session: owner }),
    ])
      expect(refusal(answer)).toEqual({ status: 404, code: 'CON-004' });

    const directoryId = await newDirectory();
    const stale = await client.signedIn('owner');
    await client.store.ageSession(stale.cookie, { idleSeconds: 30, sinceSignInSeconds: 6 * 60 });
    expect(
      refusal(
        await client.call('PUT', `${push(directoryId)}/apns-certificate`, {
          session: stale,
          body: { p12: pushP12 },
        }),
      ),
    ).toEqual({ status: 403, code: 'CON-010' });
    expect((await client.call('GET', push(directoryId), { session: stale })).status).toBe(200);
  });
});
