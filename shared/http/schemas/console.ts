import * as v from 'valibot';
import { maxAdminNameLength } from '#shared/domain/console-admin';
import { passkeyAssertion, passkeyRegistration } from '#shared/http/schemas/webauthn';

/** An invite's token: 32 random bytes, base64url (43 characters). */
const inviteToken = v.pipe(
  v.string(),
  v.maxLength(64, 'must be at most 64 characters'),
  v.regex(/^[A-Za-z0-9_-]{43}$/, 'must be an invite token'),
);

export const consoleEnrolmentOptionsBody = v.strictObject({ invite: inviteToken });

export const consoleEnrolmentBody = v.strictObject({
  invite: inviteToken,
  name: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(maxAdminNameLength, `must be at most ${maxAdminNameLength} characters`),
  ),
  registration: passkeyRegistration,
});

export const consoleSignInBody = v.strictObject({ assertion: passkeyAssertion });

/** The console's bodies are small: the largest, an enrolment, is a name and a passkey registration. */
export const maxConsoleBodyBytes = 32 * 1024;
