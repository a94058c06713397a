import type { AuthRequestEvent } from '#shared/audit/audit-record';

/**
 * What an operation of the auth request routes did to the request, read from its route and status: a 201 on create
 * started it, a cancel that succeeded cancelled it, a poll answered 408 found it expired, and a device's answer that
 * succeeded answered it (denied as fraud when the device said so, beside its sealed answer or in its denial without
 * the code). The service never learns more of an answer.
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
      return isFraud(body) ? 'denied-as-fraud' : 'answered';
    default:
      return undefined;
  }
}

/** The device says fraud beside its sealed answer, or in the denial it says in the clear. */
function isFraud(body: unknown): boolean {
  const answer = body as { fraud?: unknown; deny?: { fraud?: unknown } | null } | undefined;
  return answer?.fraud === true || answer?.deny?.fraud === true;
}
