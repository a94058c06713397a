/** A linking code: 8 characters of the alphabet the service draws codes from (no look-alikes). */
const codePattern = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/;

/**
 * The linking code the QR URL carries in its fragment (`#code=XXXXXXXX`), kept out of the URL's path and query so
 * that it never reaches a server log; undefined when the fragment holds none, or something else.
 */
export function linkingCode(fragment: string): string | undefined {
  const code = new URLSearchParams(fragment.replace(/^#/, '')).get('code')?.toUpperCase();
  return code && codePattern.test(code) ? code : undefined;
}

/** The auth request a notification opened the page for (`#request=<id>`), if any. */
export function requestId(fragment: string): string | undefined {
  const id = new URLSearchParams(fragment.replace(/^#/, '')).get('request');
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id.toLowerCase() : undefined;
}
