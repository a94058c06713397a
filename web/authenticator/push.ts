import {
  Authenticator,
  type BrowserAuthenticatorState,
  browserDeviceKeys,
} from '#shared/authenticator/index';
import { pageFetch } from './answer.ts';
import type { WebDeviceState } from './device-state.ts';

type SubscriptionJson = { endpoint: string; keys: { p256dh: string; auth: string } };

const authenticator = (state: WebDeviceState) =>
  new Authenticator<BrowserAuthenticatorState>(state, { keys: browserDeviceKeys, fetch: pageFetch });

/**
 * Subscribes this browser to Web Push with the service's VAPID key and registers the subscription for every device
 * given (they share the browser, hence the subscription). Throws when the browser cannot subscribe (no permission,
 * offline, no push service).
 */
export async function subscribePush(states: readonly WebDeviceState[]): Promise<void> {
  const [first] = states;
  if (!first) return;
  if (!('serviceWorker' in navigator)) throw new Error('this browser has no service workers');
  const registration = await navigator.serviceWorker.ready;
  const { vapid_public_key: vapidKey } = await authenticator(first).pushSettings();
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: vapidKey }));
  const json = subscription.toJSON() as SubscriptionJson;
  for (const state of states) await authenticator(state).registerWebPush(json);
}

/**
 * Registers the browser's current subscription again, as on every load: a push service may have replaced it. Says
 * whether there was one.
 */
export async function renewPush(states: readonly WebDeviceState[]): Promise<boolean> {
  if (!('serviceWorker' in navigator) || states.length === 0) return false;
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription) return false;
  const json = subscription.toJSON() as SubscriptionJson;
  for (const state of states) await authenticator(state).registerWebPush(json);
  return true;
}
