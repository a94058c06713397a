/**
 * The web authenticator's service worker: an app-shell cache, so that the page opens without the network, and the
 * Web Push handlers that show a request's prompt and take it down when it ends (docs/protocol.md#push).
 */
import { type PushMessage, parsePushMessage } from './push-message.ts';

declare const self: ServiceWorkerGlobalScope;

const cachePrefix = 'authenticator-';
const cacheName = `${cachePrefix}${APP_SHELL.version}`;
const scopeUrl = new URL(self.registration.scope);
const indexUrl = scopeUrl.href;
const assetUrls = new Set(APP_SHELL.assets.map((asset) => new URL(asset, scopeUrl).href));

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(cacheName);
      await cache.addAll([indexUrl, ...assetUrls]);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(
        names
          .filter((name) => name.startsWith(cachePrefix) && name !== cacheName)
          .map((name) => caches.delete(name)),
      );
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.hash = '';
  // Only the app shell: the API (`/device/…` and every other path outside the scope) always goes to the network.
  if (url.origin !== scopeUrl.origin || !url.pathname.startsWith(scopeUrl.pathname)) return;
  if (url.pathname === scopeUrl.pathname || url.pathname === `${scopeUrl.pathname}index.html`) {
    event.respondWith(networkFirst(request));
  } else if (assetUrls.has(`${url.origin}${url.pathname}`)) {
    event.respondWith(cacheFirst(request));
  }
});

/** The page itself: the newest from the network, the cached one offline. */
async function networkFirst(request: Request): Promise<Response> {
  const cache = await caches.open(cacheName);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(indexUrl, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(indexUrl);
    if (cached) return cached;
    throw error;
  }
}

/** A content-hashed file never changes under its name. */
async function cacheFirst(request: Request): Promise<Response> {
  const cache = await caches.open(cacheName);
  const cached = await cache.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener('push', (event) => {
  // A browser that took the message as a declarative push message shows its `notification` itself once this event is
  // done (and hands it here as `event.notification`): showing another would show the prompt twice.
  const declared = (event as PushEvent & { readonly notification?: Notification | null }).notification;
  event.waitUntil(showPush(parsePushMessage(event.data?.text()), !declared));
});

/**
 * Shows a push under its request's (or new device's) tag, replacing the prompt when the request ends, unless the
 * browser shows it from the message itself, and tells the open pages, which refresh their list (and which the browser
 * tests watch).
 */
async function showPush(message: PushMessage | undefined, show: boolean): Promise<void> {
  // A push must show something (browsers penalize silent ones): one that cannot be read says where to look.
  const shown = message ?? {
    type: 'auth_request' as const,
    auth_request: '',
    title: 'Web authenticator',
    body: 'Open the authenticator to see your requests',
    tag: 'authenticator',
  };
  // A link request opens the page itself, where its card is: its notification names no request.
  const request = shown.type === 'device_link_request' ? '' : shown.auth_request;
  // Without notification permission (a headless browser, a user who said no) showing fails; the pages still refresh.
  if (show)
    await self.registration
      .showNotification(shown.title, {
        body: shown.body,
        tag: shown.tag,
        data: { auth_request: request, type: shown.type },
        icon: new URL(APP_SHELL.icon, scopeUrl).href,
        requireInteraction: shown.type === 'auth_request' || shown.type === 'device_link_request',
      })
      .catch(() => undefined);
  const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const page of pages) page.postMessage({ type: 'push', push: shown });
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const { auth_request: id } = (event.notification.data ?? {}) as { auth_request?: string };
  event.waitUntil(openRequest(id));
});

/** Focuses the page on the request (opening it when none is open): `<scope>#request=<id>`. */
async function openRequest(id: string | undefined): Promise<void> {
  const target = id ? `${indexUrl}#request=${encodeURIComponent(id)}` : indexUrl;
  const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const page = pages.find((client) => client.url.startsWith(indexUrl));
  if (page) {
    const focused = await page.focus();
    await focused.navigate(target).catch(() => focused.postMessage({ type: 'open', auth_request: id }));
    return;
  }
  await self.clients.openWindow(target);
}
