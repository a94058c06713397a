import type { ConsoleSession } from '#shared/domain/console-session';

/** The session of an endpoint that needs one to act, which the pipeline has checked before the endpoint runs. */
export function actingSession(session: ConsoleSession | undefined): ConsoleSession {
  if (!session) throw new Error('The console pipeline gave an acting endpoint no session');
  return session;
}
