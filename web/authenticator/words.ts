import { ApiRequestError, CodeNeededError, type EvaluationReason } from '#shared/authenticator/index';
import { relative, type Saying } from './time.ts';

/** fetch's own failure (offline, refused): a TypeError whose message names the fetch, unlike a bug's. */
const unreachable = (error: unknown): boolean =>
  error instanceof TypeError && /fetch|network|load failed/i.test(error.message);

/** Why a request could not be answered, from the service's error, in words a person understands. */
export function answerProblem(error: unknown, expires?: Date): string {
  if (unreachable(error)) return 'The service could not be reached. Check your connection and try again.';
  if (error instanceof CodeNeededError)
    return 'This device could not verify you, so it cannot deny without the code. Nothing was sent; the request ends by itself when it expires.';
  if (!(error instanceof ApiRequestError)) return `Something went wrong: ${(error as Error).message}`;
  const detail = typeof error.errorDetail === 'string' ? error.errorDetail : '';
  switch (error.errorCode) {
    case 'HTTP-408':
      return expires ? expiredWords(expires) : 'This request expired.';
    case 'SVC-006':
      return 'This request was already answered.';
    case 'SVC-007':
      return 'The service cancelled this request: there is nothing to answer.';
    case 'SVC-008':
      return 'The code did not match too many times, so the request ended. Nothing was approved.';
    case 'SVC-009': {
      const left = Number(error.errorData?.attempts_left);
      return `That code does not match the one the application shows.${Number.isFinite(left) ? ` ${left} ${left === 1 ? 'try' : 'tries'} left.` : ''}`;
    }
    default:
  }
  if (/webauthn/i.test(detail))
    return 'The service refused the answer: your passkey did not verify you with your screen lock or biometric. The request is still waiting; try again.';
  if (error.status === 404) return 'This request is no longer waiting for this device.';
  if (error.status === 401 || error.status === 403)
    return 'The service no longer accepts this device. It may have been unlinked: link it again.';
  return `The service refused the answer (${error.status}${detail ? `: ${detail}` : ''}).`;
}

export const expiredWords = (expires: Date): string => `This request expired ${relative(expires)}.`;

/** The outcome of an answer, said to the person who gave it. */
export function outcomeWords(type: string, reason: EvaluationReason, service: string): string {
  if (type === 'AUTHORIZED') return `Approved. ${service} has your answer.`;
  if (reason === 'FRAUDULENT') return `Denied and reported as fraud. ${service} has been told.`;
  if (type === 'DENIED') return `Denied. ${service} has your answer.`;
  const why: Partial<Record<EvaluationReason, string>> = {
    POLICY:
      "this browser cannot meet the service's policy (outside the allowed area, outside the allowed hours, or a check a browser cannot make, such as device integrity or country)",
    CONFIGURATION: 'this device is not set up for what the policy needs',
    PERMISSION: 'a permission the policy needs (such as location) is off',
    AUTHENTICATION: 'a check did not pass',
    BUSY_LOCAL: 'another request was being answered',
  };
  return `Sent, but not approved: ${why[reason] ?? reason}.`;
}

/** The denial form: its question, what marks a fraud reason, and what reporting fraud does, before it is sent. */
export const denialWords = {
  question: 'Why do you deny?',
  fraudMark: 'report as fraud',
  choose: 'Choose a reason, then send the denial.',
  // True to what the service does: the application hears FRAUDULENT, and where the directory turned the fraud lock
  // on, new requests for the user are refused until it ends (docs/protocol.md#push-fatigue).
  fraudExplained: (service: string) =>
    `Reporting fraud tells ${service} that someone else tried to sign in as you. Your account may then refuse new sign-in requests for a while, so you may not be able to sign in yourself until that ends.`,
} as const;

/** Why linking failed. */
export function linkProblem(error: unknown): string {
  if (unreachable(error)) return 'The service could not be reached. Check your connection and try again.';
  if (error instanceof ApiRequestError) {
    const detail = typeof error.errorDetail === 'string' ? error.errorDetail : '';
    if (error.status === 403 && /web/i.test(detail))
      return 'This directory does not allow linking from the web authenticator. Use the app your service offers.';
    if (error.status === 429) {
      const seconds = Number(error.errorData?.retry_after);
      const wait = seconds > 0 ? `in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}` : 'later';
      return `Too many linking codes that did not work were tried from this network. Try again ${wait}.`;
    }
    if (error.status === 404 || error.status === 400 || error.status === 403)
      return 'This linking code is not valid any more: it was used, it expired, or it was mistyped. Ask the application for a new QR code.';
    return `The service refused to link this browser (${error.status}${detail ? `: ${detail}` : ''}).`;
  }
  return `Linking failed: ${(error as Error).message}`;
}

/** A new device as the person knows it: the name it was given, never its id. */
export const newDeviceName = (name: string | null): string => name ?? 'an unnamed device';

export const joinWords = {
  heading: 'A new device wants to join',
  allowWarning:
    'Only allow if you are setting up this new device yourself. Once allowed, it can approve sign-ins as you.',
  allow: 'Allow',
  confirmAllow: 'Yes, allow it',
  keepWaiting: 'Not now',
  refuse: 'Refuse',
  allowed: (name: string | null) => `Allowed. ${capitalized(newDeviceName(name))} is now linked.`,
  refused: (name: string | null) => `Refused. ${capitalized(newDeviceName(name))} will not be linked.`,
} as const;

const capitalized = (text: string): string => (text.startsWith('an ') ? `A${text.slice(1)}` : `“${text}”`);

/** Why a link request could not be answered. */
export function joinProblem(error: unknown): string {
  if (unreachable(error)) return 'The service could not be reached. Check your connection and try again.';
  if (error instanceof ApiRequestError) {
    if (error.status === 408) return 'This new device waited too long: it will not be linked.';
    if (error.status === 404) return 'This new device no longer waits: another of your devices answered it.';
    if (error.status === 403) return 'This device cannot allow new devices yet: it is still cooling off.';
  }
  return answerProblem(error);
}

/** What the new device says while it waits for the user's other device, and how the wait ends. */
export const waitingWords = {
  heading: 'Waiting for your other device to allow this one',
  explain:
    'You already have a linked device. Open its authenticator: it shows “A new device wants to join”. Allow it there.',
  expires: ((when, passed) => `This request ${passed ? 'ended' : 'ends'} ${when}.`) as Saying,
  linked: 'Your other device allowed this one: it is linked.',
  expired: 'Nobody allowed this device in time, so it is not linked.',
  refused: 'This device was refused, so it is not linked. Its key is deleted from this browser.',
  again: 'Start again',
  againHint: 'To link this browser, ask the application for a new QR code.',
} as const;

/** Said above the setup screens when a request came in meanwhile: it is answered on the card, once set up. */
export const requestDuringSetupWords = (services: readonly string[]): string =>
  `${services.length === 1 ? `${services[0]} asks` : `${services.length} requests ask`} you to approve. Finish or skip these steps to answer.`;

/** A device linked soon after one of the user's devices was unlinked waits before it answers. */
export const coolingOffWords =
  (answersFrom: Date): Saying =>
  (when) =>
    `This device can answer requests from ${answersFrom.toLocaleString()} (${when}), since one of your devices was unlinked lately.`;
