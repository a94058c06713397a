import type { AuthRequestEvent } from '#shared/audit/audit-record';

/**
 * What an operation of the auth request routes did to the request, read from its route and status: a 201 on create
 * started it, a cancel that succeeded cancelled it, a poll answered 408 found it expired, and a device's answer that
 * succeeded answered it (denied as fraud when the device said so). The service never learns more of an answer.
 */
export function authRequestEventOf(
  route: string,
  status: number,
  body: unknown,
): AuthRequestEvent | undefined {
  const succeeded = status >= 200 && status < 300;
  switch (route) {
    case 'POST /service/v3/auths':
      return succeeded ? 'created' : undefined;
    case 'DELETE /service/v3/auths/{auth_request}':
      return succeeded ? 'cancelled' : undefined;
    case 'GET /service/v3/auths/{auth_request}':
      return status === 408 ? 'expired' : undefined;
    case 'POST /device/v3/auths/{auth_request}':
      if (!succeeded) return undefined;
      return (body as { fraud?: unknown } | undefined)?.fraud === true ? 'denied-as-fraud' : 'answered';
    default:
      return undefined;
  }
}
