import type { ConsoleRole } from '#shared/domain/console-admin';
import { onlyReads } from '#shared/domain/console-permissions';

/** A console session ends after this long without a request (sliding). */
export const consoleIdleSeconds = 15 * 60;
/** A console session ends this long after sign-in, however busy. */
export const consoleAbsoluteSeconds = 8 * 60 * 60;
/** The idle deadline moves at most once in this long, so that a busy session costs a write a minute, not a request. */
export const consoleTouchSeconds = 60;
/** An invite is good for one enrolment, within this long. */
export const consoleInviteSeconds = 30 * 60;
/** A passkey challenge is good for one ceremony, within this long. */
export const consoleChallengeSeconds = 5 * 60;
/**
 * A change to keys, devices or admins needs the admin's passkey within this long (the sign-in's own counts): a
 * session left open on an unlocked laptop cannot make one.
 */
export const consoleConfirmationSeconds = 5 * 60;
/** Failed sign-ins counted per admin account and per address block, each within its own window. */
export const consoleSignInLimit = { count: 10, windowSeconds: 15 * 60 } as const;

/**
 * How far a session has come: `passkey` once the admin's passkey verified; `approved` once the admin has also approved
 * the sign-in on their own authenticator. Only a role that only reads may act at `passkey`.
 */
export type ConsoleStage = 'passkey' | 'approved';

/** A session as the store keeps it, under the SHA-256 of its token; the token itself is only ever in the cookie. */
export interface ConsoleSession {
  readonly adminId: string;
  readonly organizationId: string | null;
  readonly role: ConsoleRole;
  readonly name: string;
  readonly stage: ConsoleStage;
  /** A random value the page sends back in `X-CSRF-Token` with every request that changes anything. */
  readonly csrfSecret: string;
  /** A short id for the audit trail and logs: not the token, nor its hash. */
  readonly sessionId: string;
  /** Epoch seconds. */
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** When the admin last gave their passkey in this session (the sign-in, or a confirmation); epoch seconds. */
  readonly confirmedAt?: number;
  /** The auth request this session's approval waits for (docs/console.md#approval): only this session reads it. */
  readonly approvalAuthRequest?: string;
}

/** When a session created at `createdAt` and last seen at `lastSeenAt` ends: idle or absolute, whichever comes first. */
export function sessionEndsAt(session: Pick<ConsoleSession, 'createdAt' | 'lastSeenAt'>): number {
  return Math.min(session.lastSeenAt + consoleIdleSeconds, session.createdAt + consoleAbsoluteSeconds);
}

export function sessionIsLive(
  session: Pick<ConsoleSession, 'createdAt' | 'lastSeenAt'>,
  nowSeconds: number,
): boolean {
  return nowSeconds < sessionEndsAt(session);
}

/** Whether this request should move the idle deadline: at most once per `consoleTouchSeconds`. */
export function sessionNeedsTouch(session: Pick<ConsoleSession, 'lastSeenAt'>, nowSeconds: number): boolean {
  return nowSeconds - session.lastSeenAt >= consoleTouchSeconds;
}

/**
 * Whether a session may act yet: once approved, or at once for a role that only reads, whose passkey is enough. Until
 * then it may only say who it is and sign out.
 */
export function sessionMayAct(session: Pick<ConsoleSession, 'role' | 'stage'>): boolean {
  return session.stage === 'approved' || onlyReads(session.role);
}

/** Whether the admin gave their passkey recently enough in this session for a change that needs it. */
export function sessionIsConfirmed(
  session: Pick<ConsoleSession, 'createdAt' | 'confirmedAt'>,
  nowSeconds: number,
) {
  return nowSeconds - (session.confirmedAt ?? session.createdAt) < consoleConfirmationSeconds;
}
