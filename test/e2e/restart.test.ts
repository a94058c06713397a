import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { openAuthorizationResponse } from '#shared/client/authorization-response';
import {
  demoOrganization,
  freePort,
  type ServiceProcess,
  startServiceProcess,
} from '#test/support/service-process';
import { setUpTenant } from '#test/support/tenant';
import { refusal } from '#test/support/tree';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver';

let dataDir: string;
let port: number;
let running: ServiceProcess;
let receiver: WebhookReceiver;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mfa-restart-'));
  port = await freePort();
  running = await startServiceProcess(['--port', String(port), '--data-dir', dataDir]);
});
afterAll(async () => {
  await running?.stop('SIGINT');
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('killing the local runtime in the middle of the work', () => {
  it('keeps what was stored: pending requests resume, expire on time, and answers still arrive', async () => {
    const { client: organization, keys } = await demoOrganization(running);
    receiver = await startWebhookReceiver({ apiBaseUrl: running.baseUrl, keys });
    const tenant = await setUpTenant(organization, running.baseUrl, {
      name: 'Kept',
      callbackUrl: receiver.url('/hooks'),
    });
    const devices: Record<string, Authenticator> = {
      ann: await tenant.linkUser('ann'),
      ben: await tenant.linkUser('ben'),
    };
    const { subject } = tenant;
    const ask = async (username: string, ttl: number) =>
      (
        await organization.call<{ auth_request: string }>('POST', '/service/v3/auths', {
          subject,
          body: { username, ttl },
        })
      ).body?.auth_request as string;
    const expiring = await ask('ben', 30);
    const expiresAt = Date.now() + 30_000;
    const kept = await ask('ann', 600);

    // No goodbye: the process dies as on a crash or an OOM kill, then starts again on the same port and data.
    const killed = await running.stop('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    running = await startServiceProcess(['--port', String(port), '--data-dir', dataDir]);
    expect(running.banner).not.toContain('(created now)');

    const ann = devices.ann as Authenticator;
    expect((await organization.call('GET', `/service/v3/auths/${kept}`, { subject })).status).toBe(204);
    const [pending] = await ann.pending();
    expect(pending?.auth_request).toBe(kept);
    await ann.answer(pending as NonNullable<typeof pending>, { approve: true });
    const read = await organization.call<Parameters<typeof openAuthorizationResponse>[0]>(
      'GET',
      `/service/v3/auths/${kept}`,
      { subject },
    );
    expect(await openAuthorizationResponse(read.body as NonNullable<typeof read.body>, keys)).toMatchObject({
      type: 'AUTHORIZED',
      auth_request: kept,
    });
    await receiver.waitFor((webhook) => webhook.body.auth_jwe === read.body?.auth_jwe);

    // The short one still expires on time, and then ben can be asked again.
    await sleep(Math.max(0, expiresAt - Date.now() + 1_500));
    expect(
      await refusal(organization.call('GET', `/service/v3/auths/${expiring}`, { subject })),
    ).toMatchObject({ status: 408 });
    expect(await ask('ben', 60)).not.toBe(expiring);
    expect(receiver.rejected).toEqual([]);
  }, 90_000);
});
