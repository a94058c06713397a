import type { AuthScene } from '#test/support/auth-scene';
import type { TestRuntime } from '#test/support/runtime';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver';

/** A webhook receiver that opens what the scene's service is sent, set as that service's `callback_url`. */
export async function serviceWebhooks(runtime: TestRuntime, scene: AuthScene): Promise<WebhookReceiver> {
  const webhooks = await startWebhookReceiver({
    apiBaseUrl: runtime.baseUrl,
    keys: new Map([[scene.serviceKey.kid, scene.serviceKey.privateKey]]),
  });
  await scene.organization.client.call('PATCH', '/directory/v3/services', {
    subject: `dir:${scene.directoryId}`,
    body: { service_id: scene.serviceId, callback_url: webhooks.url('/hooks/service') },
  });
  return webhooks;
}
