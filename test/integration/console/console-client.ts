import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { expect } from 'vitest';
import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import type { ConsoleRole } from '#shared/domain/console-admin';
import type { TestRuntime } from '#test/support/runtime';
import { SoftwareAuthenticator } from '#test/support/webauthn-authenticator';

/**
 * The console's API as its pages use it, for tests over the local runtime: calls with the session cookie and the CSRF
 * token, and admins of each role enrolled from an invite with a software passkey and signed in. Import it only once
 * the runtime runs (it loads the store).
 */
export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: Headers;
}

export interface Call {
  readonly body?: unknown;
  readonly session?: SignedIn;
  /** Leaves the CSRF token out, as a forged request would. */
  readonly withoutCsrf?: boolean;
}

/** A signed-in admin's cookie and CSRF token, as the page holds them. */
export interface SignedIn {
  readonly cookie: string;
  readonly csrf: string;
  readonly adminId: string;
  readonly role: ConsoleRole;
  /** The admin's passkey, for a confirmation the test gives. */
  readonly passkey: SoftwareAuthenticator;
}

export const refusal = (answer: Answer) => ({ status: answer.status, code: answer.body?.error_code });

export async function consoleClient(runtime: TestRuntime) {
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  const origin = url.origin;
  const store = await import('#test/integration/console/console-store');

  async function call(method: string, path: string, options: Call = {}): Promise<Answer> {
    const response = await fetch(`${origin}/console/api${path}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.session ? { cookie: options.session.cookie } : {}),
        ...(options.session && !options.withoutCsrf ? { 'x-csrf-token': options.session.csrf } : {}),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      headers: response.headers,
    };
  }

  /**
   * An admin of `role` enrolled from an invite and signed in; every role but the auditor's with its session moved to
   * `approved` by the test-only stand-in for the approval step.
   */
  async function signedIn(
    role: ConsoleRole,
    organizationId: string | null = role === 'operator' ? null : runtime.organizationId,
  ): Promise<SignedIn> {
    const invite = new URL((await store.invite(organizationId, role, origin)).url).hash.replace(
      /^#invite=/,
      '',
    );
    const authenticator = new SoftwareAuthenticator(origin);
    const options = await call('POST', '/enrolment/options', { body: { invite } });
    const registration = authenticator.register(
      options.body as unknown as PublicKeyCredentialCreationOptionsJSON,
    );
    const enrolled = await call('POST', '/enrolment', {
      body: { invite, name: `${role} of the test`, registration },
    });
    expect(enrolled.status).toBe(201);
    const challenge = await call('POST', '/sign-in/options');
    const { challenge: value, rpId } = challenge.body as { challenge: string; rpId: string };
    const assertion = authenticator.assert({ challenge: value, rp_id: rpId });
    const answer = await call('POST', '/sign-in', { body: { assertion } });
    expect(answer.status).toBe(200);
    const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
    if (role !== 'auditor') await store.approveSessionForTest(cookie);
    return {
      cookie,
      csrf: answer.body?.csrf_token as string,
      adminId: enrolled.body?.admin_id as string,
      role,
      passkey: authenticator,
    };
  }

  /** Signs the admin in again with their own passkey, as the person would: a new session, at stage `passkey`. */
  async function signInAgain(admin: SignedIn): Promise<SignedIn> {
    const options = await call('POST', '/sign-in/options');
    const { challenge, rpId } = options.body as { challenge: string; rpId: string };
    const assertion = admin.passkey.assert({ challenge, rp_id: rpId });
    const answer = await call('POST', '/sign-in', { body: { assertion } });
    expect(answer.status).toBe(200);
    return {
      ...admin,
      cookie: (answer.headers.get('set-cookie') ?? '').split(';')[0] as string,
      csrf: answer.body?.csrf_token as string,
    };
  }

  /**
   * Links a web authenticator to approve the admin's sign-ins, as the admin would: the console's link, then the device
   * API with the code alone (docs/console.md#linking-the-admins-authenticator).
   */
  async function linkedAuthenticator(admin: SignedIn): Promise<Authenticator> {
    const link = await call('POST', '/authenticator/link', { session: admin });
    expect(link.status).toBe(201);
    const code = link.body?.code as string;
    return new Authenticator(await linkAuthenticator({ baseUrl: runtime.baseUrl, code }));
  }

  return { origin, store, call, signedIn, signInAgain, linkedAuthenticator, refusal };
}
