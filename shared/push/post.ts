import type { Destination } from '#shared/webhooks/destination';
import { postToCheckedAddress } from '#shared/webhooks/post';

export interface PushPost {
  readonly destination: Destination;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly timeoutMs: number;
}

export type PushPostOutcome =
  | { readonly answered: true; readonly status: number; readonly retryAfter: string | undefined }
  | { readonly answered: false; readonly reason: string };

/**
 * POSTs to a push endpoint's checked address, as webhooks are posted; only the status and Retry-After of the answer
 * matter, so little of its body is read.
 */
export async function postPush(request: PushPost): Promise<PushPostOutcome> {
  const answer = await postToCheckedAddress({ ...request, maxResponseBytes: 16 * 1024 });
  if (!answer.answered) return answer;
  const retryAfter = answer.headers['retry-after'];
  return { answered: true, status: answer.status, retryAfter };
}

/** Retry-After in seconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
