/** What the service pushes to a browser, decrypted (docs/protocol.md#push). */
export type PushMessage = AuthRequestMessage | LinkRequestMessage;

interface AuthRequestMessage {
  readonly type: 'auth_request' | 'auth_request_ended' | 'device_unlinked';
  /** Empty for a push about no request. */
  readonly auth_request: string;
  readonly title: string;
  readonly body: string;
  readonly tag: string;
}

/** A new device of the user waits for one of the user's devices to allow it (docs/protocol.md#device-confirmation). */
interface LinkRequestMessage {
  readonly type: 'device_link_request';
  readonly device_id: string;
  readonly title: string;
  readonly body: string;
  readonly tag: string;
}

/** Notification text beyond this is cut: the service bounds it too, and a notification shows far less. */
const maxText = 1_000;

/** What a link request's notification says when the service sent no line of its own. */
export const linkRequestWords = {
  title: 'A new device wants to join',
  body: 'Open the authenticator to allow or refuse it',
} as const;

const text = (value: unknown, fallback: string): string =>
  typeof value === 'string' && value ? value.slice(0, maxText) : fallback;

/** The push's message, or undefined when the payload is not one (absent, not JSON, or missing a field). */
export function parsePushMessage(payload: string | undefined): PushMessage | undefined {
  if (!payload || payload.length > 16_384) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  // A declarative push message keeps its text in `notification`; the top-level copy is left out when it would not fit.
  const declared =
    typeof fields.notification === 'object' && fields.notification !== null
      ? (fields.notification as Record<string, unknown>)
      : {};
  const { type, auth_request, device_id } = fields;
  const { title, body, tag } = {
    title: fields.title ?? declared.title,
    body: fields.body ?? declared.body,
    tag: fields.tag ?? declared.tag,
  };
  // A device the directory unlinked: shown as it came, under one tag, about no request.
  if (type === 'device_unlinked' && typeof title === 'string' && typeof body === 'string')
    return {
      type,
      auth_request: '',
      title: title.slice(0, maxText),
      body: body.slice(0, maxText),
      tag: 'unlinked',
    };
  if (type === 'device_link_request') {
    if (typeof device_id !== 'string' || !device_id) return undefined;
    return {
      type,
      device_id,
      title: text(title, linkRequestWords.title),
      body: text(body, linkRequestWords.body),
      tag: text(tag, device_id),
    };
  }
  if (type !== 'auth_request' && type !== 'auth_request_ended') return undefined;
  if (typeof auth_request !== 'string' || typeof title !== 'string' || typeof body !== 'string')
    return undefined;
  return {
    type,
    auth_request,
    title: title.slice(0, maxText),
    body: body.slice(0, maxText),
    tag: typeof tag === 'string' && tag ? tag : auth_request,
  };
}
