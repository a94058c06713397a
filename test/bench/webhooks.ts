import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { runningRuntime } from '#infra/local/attach';
import { engineClientConfig } from '#infra/local/engines';
import { queuedMessageBody } from '#shared/events/webhook-event';
import { percentile, round } from '#test/bench/stats';
import { demoOrganization, liftRateLimit, startServiceProcess } from '#test/support/service-process';
import { setUpTenant } from '#test/support/tenant';
import { startWebhookReceiver } from '#test/support/webhook-receiver';

export interface WebhookFigures {
  readonly flows: number;
  /** From the device's answer being accepted to the webhook's arrival at the receiver. */
  readonly answerToWebhookMs: { readonly median: number; readonly p99: number };
  readonly events: number;
  /** Events put on the queue at once, delivered per second by the local poller and worker. */
  readonly deliveredPerSecond: number;
}

/**
 * Webhooks through `npm start`'s runtime in its own process (queue poller and worker included), to a receiver in this
 * process that verifies and decrypts each one as an SDK would.
 */
export async function benchWebhooks(flows: number, events: number): Promise<WebhookFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-webhooks-'));
  const service = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
  const { client: organization, keys } = await demoOrganization(service);
  const receiver = await startWebhookReceiver({ apiBaseUrl: service.baseUrl, keys });
  const runtime = await runningRuntime(dataDir);
  if (!runtime) throw new Error('the service process wrote no runtime record');
  const { queueUrl } = runtime;
  const sqs = new SQSClient(engineClientConfig(runtime.sqsEndpoint));
  try {
    // A service whose callback_url is the receiver, and a linked device for user `bench`.
    const tenant = await setUpTenant(organization, service.baseUrl, {
      name: 'Bench webhooks',
      callbackUrl: receiver.url('/hooks'),
    });
    await liftRateLimit(tenant.directoryId, dataDir);
    const { subject } = tenant;
    const device = await tenant.linkUser('bench');

    const latencies: number[] = [];
    let lastAuthRequest = '';
    for (let flow = 0; flow < flows + 5; flow++) {
      const created = await organization.call<{ auth_request: string }>('POST', '/service/v3/auths', {
        subject,
        body: { username: 'bench' },
      });
      lastAuthRequest = created.body?.auth_request as string;
      const [pending] = await device.pending();
      if (!pending) throw new Error('the device was not offered the request');
      const before = receiver.received.length;
      await device.answer(pending, { approve: true });
      const answeredAt = Date.now();
      const webhook = await receiver.waitFor((each) => receiver.received.indexOf(each) >= before);
      // The first flows pay for cold modules and connections.
      if (flow >= 5) latencies.push(webhook.receivedAt - answeredAt);
    }

    // The same answered request's event, many times over: the queue and the worker are what is measured.
    const body = queuedMessageBody({ kind: 'authorization-response', authRequestId: lastAuthRequest });
    const before = receiver.received.length;
    const started = Date.now();
    for (let sent = 0; sent < events; sent += 10) {
      const count = Math.min(10, events - sent);
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Array.from({ length: count }, (_, index) => ({ Id: String(index), MessageBody: body })),
        }),
      );
    }
    await receiver.waitFor(() => receiver.received.length - before >= events, 120_000);
    const seconds = (Date.now() - started) / 1000;
    if (receiver.rejected.length > 0) throw new Error(`webhooks failed to verify: ${receiver.rejected[0]}`);
    return {
      flows,
      answerToWebhookMs: { median: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
      events,
      deliveredPerSecond: Math.round(events / seconds),
    };
  } finally {
    sqs.destroy();
    await receiver.close();
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}
