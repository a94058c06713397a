/** What the service pushes to a browser, decrypted (docs/protocol.md#push). */
export interface PushMessage {
  readonly type: 'auth_request' | 'auth_request_ended' | 'device_unlinked';
  /** Empty for a push about no request. */
  readonly auth_request: string;
  readonly title: string;
  readonly body: string;
  readonly tag: string;
}

/** Notification text beyond this is cut: the service bounds it too, and a notification shows far less. */
const maxText = 1_000;

/** The push's message, or undefined when the payload is not one (absent, not JSON, or missing a field). */
export function parsePushMessage(text: string | undefined): PushMessage | undefined {
  if (!text || text.length > 16_384) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, auth_request, title, body, tag } = value as Record<string, unknown>;
  // A device the directory unlinked: shown as it came, under one tag, about no request.
  if (type === 'device_unlinked' && typeof title === 'string' && typeof body === 'string')
    return {
      type,
      auth_request: '',
      title: title.slice(0, maxText),
      body: body.slice(0, maxText),
      tag: 'unlinked',
    };
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
