import { randomBytes, randomUUID } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { AdminAccount, AdminPasskey } from '#shared/domain/console-admin';
import { consoleChallengeSeconds } from '#shared/domain/console-session';
import { counterAdvances, relyingParty } from '#shared/domain/passkey';
import { ApiError } from '#shared/errors';
import {
  adminIdOfCredential,
  advanceAdminPasskeyCounter,
  createAdminAccount,
  getAdminAccount,
} from '#shared/store/console-admins';
import { consumeInvite, getInvite, putChallenge, takeChallenge } from '#shared/store/console-ceremonies';
import { secretDigest } from '#shared/store/console-keys';
import { epochSeconds, isoSeconds } from '#shared/time';
import { webAuthnLibrary } from '#shared/webauthn/load';

/** ES256 (every platform authenticator and most keys), EdDSA and RS256 (Windows Hello). */
const algorithms = [-7, -8, -257];

const refused = (detail: string) => new ApiError('CON-006', detail);

/** The challenge a ceremony's client data says it signed; the verification checks the rest. */
function signedChallenge(clientDataJSON: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    if (typeof parsed.challenge === 'string' && parsed.challenge.length <= 128) return parsed.challenge;
  } catch {
    // Refused below like any other malformed ceremony.
  }
  throw refused('The passkey response has no readable challenge');
}

/**
 * POST /console/api/enrolment/options: registration options for the holder of an unused invite. The passkey must be
 * discoverable (the sign-in asks for no name) and verify the user; its user handle is the admin id the account will
 * have. The challenge is good for one enrolment with this invite, for 5 minutes.
 */
export async function enrolmentOptions(inviteToken: string, origin: string | undefined, now: Date) {
  const nowSeconds = epochSeconds(now);
  const invite = await getInvite(inviteToken, nowSeconds);
  if (!invite) throw refused('The invite is unknown, used or expired; ask for a new one');
  const { rpId } = relyingParty(origin);
  const adminId = randomUUID();
  const challenge = randomBytes(32);
  const { generateRegistrationOptions } = await webAuthnLibrary();
  const options = await generateRegistrationOptions({
    rpName: `Console (${rpId})`,
    rpID: rpId,
    userName: `${invite.role} ${adminId.slice(0, 8)}`,
    userID: Buffer.from(adminId.replaceAll('-', ''), 'hex'),
    challenge,
    timeout: consoleChallengeSeconds * 1000,
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    supportedAlgorithmIDs: algorithms,
  });
  await putChallenge(options.challenge, {
    purpose: 'enrolment',
    invite: secretDigest(inviteToken),
    adminId,
    expiresAt: nowSeconds + consoleChallengeSeconds,
  });
  return options;
}

/**
 * POST /console/api/enrolment: verifies the registration over the invite's challenge (user verification required, for
 * this deployment's RP id and origin), then uses the invite up, and only then creates the account: of two enrolments
 * with one invite, one account.
 */
export async function enrol(
  input: {
    readonly inviteToken: string;
    readonly name: string;
    readonly registration: RegistrationResponseJSON;
  },
  origin: string | undefined,
  now: Date,
): Promise<AdminAccount> {
  const nowSeconds = epochSeconds(now);
  const challenge = signedChallenge(input.registration.response.clientDataJSON);
  const ceremony = await takeChallenge(challenge, 'enrolment', nowSeconds, secretDigest(input.inviteToken));
  if (!ceremony?.adminId) throw refused('The enrolment challenge is unknown, used or expired; start again');
  const relying = relyingParty(origin);
  const { verifyRegistrationResponse } = await webAuthnLibrary();
  const verified = await verifyRegistrationResponse({
    response: input.registration,
    expectedChallenge: challenge,
    expectedOrigin: relying.origin,
    expectedRPID: relying.rpId,
    requireUserVerification: true,
    supportedAlgorithmIDs: algorithms,
  }).catch(() => undefined);
  if (!verified?.verified) throw refused('The passkey registration does not verify');
  const invite = await consumeInvite(input.inviteToken, nowSeconds);
  if (!invite) throw refused('The invite is unknown, used or expired; ask for a new one');
  const { credential } = verified.registrationInfo;
  const passkey: AdminPasskey = {
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? [],
    createdAt: isoSeconds(now),
  };
  const account: AdminAccount = {
    adminId: ceremony.adminId,
    organizationId: invite.organizationId,
    role: invite.role,
    name: input.name,
    createdAt: isoSeconds(now),
    passkeys: [passkey],
  };
  if (!(await createAdminAccount(account))) throw refused('This passkey is registered already');
  return account;
}

/**
 * POST /console/api/sign-in/options: an assertion request for any of this deployment's admin passkeys (discoverable:
 * no list of credentials, so nothing tells a visitor which admins exist), user verification required.
 */
export async function signInOptions(origin: string | undefined, now: Date) {
  const { rpId } = relyingParty(origin);
  const challenge = randomBytes(32).toString('base64url');
  await putChallenge(challenge, {
    purpose: 'sign-in',
    expiresAt: epochSeconds(now) + consoleChallengeSeconds,
  });
  return {
    challenge,
    rpId,
    timeout: consoleChallengeSeconds * 1000,
    userVerification: 'required' as const,
    allowCredentials: [],
  };
}

/** The admin a sign-in assertion claims to be, before anything is verified: for counting failed attempts. */
export async function claimedAdmin(assertion: AuthenticationResponseJSON): Promise<AdminAccount | undefined> {
  const adminId = await adminIdOfCredential(assertion.id);
  return adminId ? getAdminAccount(adminId) : undefined;
}

/**
 * Verifies an assertion by one of the admin's passkeys, over an unused challenge given for this purpose (a sign-in,
 * or a confirmation in one session), with the user verified, and moves its counter with a conditional write, so one
 * assertion is used once.
 */
export async function verifyAdminAssertion(
  account: AdminAccount,
  assertion: AuthenticationResponseJSON,
  origin: string | undefined,
  now: Date,
  purpose: 'sign-in' | 'confirmation' = 'sign-in',
  sessionId?: string,
): Promise<void> {
  const index = account.passkeys.findIndex((passkey) => passkey.credentialId === assertion.id);
  const passkey = account.passkeys[index];
  if (!passkey)
    throw refused(
      purpose === 'sign-in' ? 'This passkey signs nobody in' : 'This passkey is not the signed-in admin’s',
    );
  const challenge = signedChallenge(assertion.response.clientDataJSON);
  if (!(await takeChallenge(challenge, purpose, epochSeconds(now), sessionId)))
    throw refused(`The ${purpose} challenge is unknown, used or expired; start again`);
  const relying = relyingParty(origin);
  const { verifyAuthenticationResponse } = await webAuthnLibrary();
  const verified = await verifyAuthenticationResponse({
    response: assertion,
    expectedChallenge: challenge,
    expectedOrigin: relying.origin,
    expectedRPID: relying.rpId,
    requireUserVerification: true,
    credential: {
      id: passkey.credentialId,
      publicKey: Buffer.from(passkey.publicKey, 'base64url'),
      counter: passkey.counter,
      transports: [...passkey.transports] as never,
    },
  }).catch(() => undefined);
  if (!verified?.verified) throw refused('The passkey assertion does not verify');
  const { newCounter } = verified.authenticationInfo;
  if (
    !counterAdvances(passkey.counter, newCounter) ||
    !(await advanceAdminPasskeyCounter(
      account.adminId,
      index,
      passkey.credentialId,
      passkey.counter,
      newCounter,
      isoSeconds(now),
    ))
  ) {
    throw refused('The assertion was used before (its signature counter did not grow)');
  }
}
