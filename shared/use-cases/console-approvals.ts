import { generateKeyPair, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { authRequestState } from '#shared/domain/auth-request';
import {
  type ApprovalState,
  answerState,
  approvalContext,
  consoleApprovalSeconds,
  consoleApprovalsClaimSeconds,
  consoleDirectoryName,
  consoleLinkSeconds,
  consoleServiceName,
} from '#shared/domain/console-approval';
import { onlyReads } from '#shared/domain/console-permissions';
import type { ConsoleSession } from '#shared/domain/console-session';
import { answeringDevices, linkedDevices, slotHeld, type UserKey } from '#shared/domain/user';
import { ApiError, serviceUnavailable } from '#shared/errors';
import type { Caller } from '#shared/http/signed-state';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';
import { formatEntity } from '#shared/protocol/entity';
import { decryptJson } from '#shared/protocol/jwe';
import { keyId } from '#shared/protocol/kid';
import { importPrivateKey } from '#shared/protocol/pem';
import {
  approveSession,
  type ConsoleApprovalsRecord,
  claimConsoleApprovals,
  deleteApprovalKey,
  getApprovalKey,
  getConsoleApprovals,
  markConsoleApprovalsReady,
  putApprovalKey,
  setSessionApproval,
  takeOverConsoleApprovals,
} from '#shared/store/console-approvals';
import { deleteSession, getSession } from '#shared/store/console-sessions';
import * as directories from '#shared/store/directories';
import { getHead } from '#shared/store/heads';
import * as services from '#shared/store/services';
import { getUser } from '#shared/store/users';
import { epochSeconds, isoSeconds } from '#shared/time';
import {
  cancelAuthRequest,
  countExpiry,
  findAuthRequest,
  findServiceAuthRequest,
} from '#shared/use-cases/auth-request-outcomes';
import { createAuthRequest } from '#shared/use-cases/create-auth-request';
import { startDeviceLink, unlinkDevice } from '#shared/use-cases/devices';

/**
 * The deployment's console directory and service (docs/console.md#the-console-directory), made on first need. They
 * belong to an internal organization that has no keys, no head and no place in the list of organizations, so nothing
 * signs as it, its directory or its service: no application key, stolen or not, can unlink an admin's authenticator or
 * link one of its own. Concurrent first uses converge on the ids the first conditional write stored.
 */
export async function consoleApprovals(now: Date): Promise<ConsoleApprovalsRecord> {
  const nowSeconds = epochSeconds(now);
  let record = await getConsoleApprovals();
  if (record?.ready) return record;
  if (!record) {
    const fresh: ConsoleApprovalsRecord = {
      organizationId: randomUUID(),
      directoryId: randomUUID(),
      serviceId: randomUUID(),
      ready: false,
      claimedAt: nowSeconds,
    };
    if (await claimConsoleApprovals(fresh)) return create(fresh, now);
    record = await getConsoleApprovals();
    if (!record) throw new Error('The console approvals record vanished after a lost claim');
    if (record.ready) return record;
  }
  // Another function is making them: the page asks again. One that died half-way is taken over.
  if (
    nowSeconds - record.claimedAt < consoleApprovalsClaimSeconds ||
    !(await takeOverConsoleApprovals(record.claimedAt, nowSeconds))
  )
    throw serviceUnavailable('The console’s approvals are being set up; retry in a moment');
  return create(record, now);
}

/** Makes what is missing of the console's directory and service, then marks them ready. */
async function create(record: ConsoleApprovalsRecord, now: Date): Promise<ConsoleApprovalsRecord> {
  const { organizationId, directoryId, serviceId } = record;
  if (!(await directories.getDirectory(organizationId, directoryId))) {
    await directories.createDirectory(organizationId, { id: directoryId, name: consoleDirectoryName }, now);
  }
  const owner = { type: 'dir', id: directoryId } as const;
  if (!(await services.getService(owner, serviceId))) {
    const service = {
      id: serviceId,
      name: consoleServiceName,
      description: null,
      icon: null,
      callbackUrl: null,
      active: true,
      created: isoSeconds(now),
      owner,
      organizationId,
    };
    // Service names are the deployment's: should a tenant hold this one, the console's own carries its id.
    if ((await services.createService(service, now)) === 'name-taken') {
      const named = { ...service, name: `${consoleServiceName} ${serviceId.slice(0, 8)}` };
      if ((await services.createService(named, now)) !== 'created')
        throw new Error('The console service could not be created');
    }
  }
  await markConsoleApprovalsReady();
  return { ...record, ready: true };
}

const adminUser = (setup: ConsoleApprovalsRecord, adminId: string): UserKey => ({
  directoryId: setup.directoryId,
  identifier: adminId,
});

/** The admin's authenticator in the console directory, if one is linked (GET /console/api/authenticator). */
export async function adminAuthenticator(session: ConsoleSession, now: Date) {
  const setup = await consoleApprovals(now);
  const user = await getUser(adminUser(setup, session.adminId));
  const devices = user ? linkedDevices(user) : [];
  return {
    linked: devices.length > 0,
    devices: devices.map((device) => ({ name: device.name, type: device.type, linked_at: device.updated })),
  };
}

/**
 * POST /console/api/authenticator/link: starts a link of the admin's web authenticator, through the same use case as
 * the directory's POST /directory/v3/devices. At stage `passkey` only while the admin has no authenticator linked
 * (trust on first use, right after enrolment); afterwards only an approved session links another, which the device
 * confirmation then asks the linked one to confirm.
 */
export async function linkAdminAuthenticator(session: ConsoleSession, baseUrl: string, now: Date) {
  const setup = await consoleApprovals(now);
  const key = adminUser(setup, session.adminId);
  const user = await getUser(key);
  if (session.stage !== 'approved' && user && linkedDevices(user).length > 0) {
    throw new ApiError(
      'CON-005',
      'An authenticator is linked already: approve this sign-in on it before you link another',
    );
  }
  const started = await startDeviceLink(
    {
      organizationId: setup.organizationId,
      directoryId: setup.directoryId,
      identifier: session.adminId,
      ttlSeconds: consoleLinkSeconds,
      requester: formatEntity({ type: 'svc', id: setup.serviceId }),
      identity: 'api',
      requesterKid: undefined,
    },
    now,
    baseUrl,
  );
  return {
    code: started.code,
    qr_url: started.qrcode,
    url: `${webAuthenticatorUrl(baseUrl)}#code=${started.code}`,
    expires_at: isoSeconds(new Date((epochSeconds(now) + consoleLinkSeconds) * 1000)),
  };
}

const rsaKeyPair = promisify(generateKeyPair);

function noAuthenticator(): ApiError {
  return new ApiError(
    'CON-007',
    'No authenticator is linked to approve your sign-ins: link one (POST /console/api/authenticator/link) first',
  );
}

/**
 * POST /console/api/sign-in/approval: an auth request from the console service to the admin's user in the console
 * directory, with number matching, through the same use case as POST /service/v3/auths, so its push goes out as any
 * request's does. Its answer is encrypted to a key made for this approval alone, kept with it for the session that
 * asked; the request's id goes on that session.
 */
export async function startApproval(
  session: ConsoleSession,
  token: string,
  address: string,
  now: Date,
): Promise<{ auth_request: string; number: string; expires_at: string }> {
  if (onlyReads(session.role)) throw new ApiError('CON-003', `A ${session.role} acts without an approval`);
  if (session.stage === 'approved') throw new ApiError('CON-008', 'This sign-in is approved already');
  const setup = await consoleApprovals(now);
  const user = await getUser(adminUser(setup, session.adminId));
  if (!user || answeringDevices(user, epochSeconds(now)).length === 0) throw noAuthenticator();
  // Before the key pair, the costly part: a busy admin is refused at once (the create holds the rule itself).
  const holder = slotHeld(user, epochSeconds(now))
    ? await findAuthRequest(user.pending?.authId ?? '')
    : undefined;
  if (holder && authRequestState(holder, epochSeconds(now)) === 'pending') throw busy(holder.expiresAt);
  const { privateKey, publicKey } = await rsaKeyPair('rsa', { modulusLength: 2048 });
  const kid = keyId(publicKey);
  const service = { type: 'svc', id: setup.serviceId } as const;
  const head = await getHead(service);
  if (!head) throw new Error('The console service has no head');
  // The console's own request: the service is its own issuer, and its only key is this approval's.
  const caller: Caller = {
    issuer: service,
    subject: service,
    identity: 'api',
    jti: randomUUID(),
    kid,
    responseKey: { kid, publicKey },
    issuerKeys: [],
    issuerHead: head,
    subjectHead: head,
  };
  let created: Awaited<ReturnType<typeof createAuthRequest>>;
  try {
    created = await createAuthRequest(
      caller,
      {
        username: session.adminId,
        context: approvalContext(session.role, address),
        ttl: consoleApprovalSeconds,
        numberMatching: true,
      },
      now,
    );
  } catch (error) {
    throw approvalRefusal(error);
  }
  const authRequestId = created.auth_request;
  const expiresAt = epochSeconds(now) + consoleApprovalSeconds;
  await putApprovalKey({
    authRequestId,
    sessionId: session.sessionId,
    adminId: session.adminId,
    kid,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    expiresAt,
  });
  if (!(await setSessionApproval(token, authRequestId))) {
    await cancelAuthRequest(setup.serviceId, authRequestId, now).catch(() => undefined);
    throw new ApiError('CON-001', 'No console session, or it has ended; sign in again');
  }
  return {
    auth_request: authRequestId,
    number: created.number_match_code as string,
    expires_at: isoSeconds(new Date(expiresAt * 1000)),
  };
}

/** One approval at a time per admin: the one pending request per user of every auth request. */
function busy(expires: unknown): ApiError {
  return new ApiError(
    'CON-008',
    'An approval is pending for you already (from this sign-in or another): answer it on your authenticator, or wait until it expires',
    {
      data: {
        expires_at: typeof expires === 'number' ? isoSeconds(new Date(expires * 1000)) : expires,
      },
    },
  );
}

/** The create's refusals an admin can act on, in the console's words. */
function approvalRefusal(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === 'SVC-005') return busy(error.data?.expires);
  if (error.code === 'HTTP-404') return noAuthenticator();
  return error;
}

export interface ApprovalReading {
  readonly stage: 'passkey' | 'approved' | 'ended';
  readonly state: ApprovalState;
  readonly number?: string;
  readonly expires_at?: string;
  readonly detail?: string;
  /** Whether this reading changed the session: approved it, or ended it. */
  readonly concluded: boolean;
  readonly authRequestId?: string;
}

/**
 * GET /console/api/sign-in/approval: how the session's own approval stands. Pending stays; approved moves the session
 * to `approved` with a conditional write; denied, failed (wrong numbers), expired or cancelled ends the session.
 */
export async function readApproval(
  session: ConsoleSession,
  token: string,
  now: Date,
): Promise<ApprovalReading> {
  const authRequestId = session.approvalAuthRequest;
  if (!authRequestId) {
    if (session.stage === 'approved') return { stage: 'approved', state: 'approved', concluded: false };
    throw new ApiError('CON-004', 'This sign-in has no approval pending');
  }
  const setup = await consoleApprovals(now);
  const [auth, key] = await Promise.all([
    findServiceAuthRequest(setup.serviceId, authRequestId),
    getApprovalKey(authRequestId),
  ]);
  if (!auth || !key || key.sessionId !== session.sessionId)
    throw new ApiError('CON-004', 'This sign-in has no approval pending');
  const nowSeconds = epochSeconds(now);
  const state = authRequestState(auth, nowSeconds);
  if (state === 'pending') {
    return {
      stage: 'passkey',
      state: 'pending',
      // The page shows it again after a reload; only the session that asked reads it.
      ...(auth.numberMatchCode === undefined ? {} : { number: auth.numberMatchCode }),
      expires_at: isoSeconds(new Date(auth.expiresAt * 1000)),
      concluded: false,
      authRequestId,
    };
  }
  let outcome: ApprovalState;
  if (state === 'answered' && auth.answer) {
    const opened = await openAnswer(auth.answer.authJwe, key.kid, key.privateKeyPem);
    // The package names the request and a device it was sent to, or it approves nothing.
    const genuine =
      opened.auth_request === authRequestId &&
      typeof opened.device_id === 'string' &&
      auth.deviceIds.includes(opened.device_id);
    outcome = genuine ? answerState(opened) : 'failed';
  } else if (state === 'expired') {
    await countExpiry(auth.id);
    outcome = 'expired';
  } else {
    outcome = auth.numberMatchFailed ? 'failed' : 'cancelled';
  }
  if (outcome === 'approved') {
    if (!(await approveSession(token, authRequestId))) {
      const current = await getSession(token);
      if (current?.stage !== 'approved')
        throw new ApiError('CON-001', 'No console session, or it has ended; sign in again');
    }
    await deleteApprovalKey(authRequestId);
    return { stage: 'approved', state: 'approved', concluded: true, authRequestId };
  }
  await deleteSession(token);
  await deleteApprovalKey(authRequestId);
  return { stage: 'ended', state: outcome, detail: endedDetail[outcome], concluded: true, authRequestId };
}

/** The device's sealed answer, opened with the approval's key; one that does not open approves nothing. */
async function openAnswer(
  authJwe: string,
  kid: string,
  privateKeyPem: string,
): Promise<{ auth_request?: unknown; device_id?: unknown; type?: unknown; reason?: unknown }> {
  try {
    const { value } = await decryptJson(authJwe, (named) =>
      named === kid ? importPrivateKey(privateKeyPem) : undefined,
    );
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

const endedDetail: Partial<Record<ApprovalState, string>> = {
  denied: 'The sign-in was denied on your authenticator; this session has ended',
  failed:
    'The sign-in was not approved (a wrong number, or a failed check on the authenticator); this session has ended',
  expired: 'The approval expired unanswered; this session has ended',
  cancelled: 'The approval was cancelled; this session has ended',
};

/**
 * Cancels a console approval through the auth request's own cancel (as DELETE /service/v3/auths), so the admin's
 * authenticator stops showing it and the admin's one pending slot is free. One that ended meanwhile (answered,
 * cancelled, expired) is left as it is. False when nothing was pending.
 */
export async function cancelApproval(authRequestId: string, now: Date): Promise<boolean> {
  const setup = await getConsoleApprovals();
  if (!setup?.ready) return false;
  return cancelled(setup, authRequestId, now);
}

async function cancelled(setup: ConsoleApprovalsRecord, authRequestId: string, now: Date): Promise<boolean> {
  let pending = true;
  try {
    await cancelAuthRequest(setup.serviceId, authRequestId, now);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    pending = false;
  }
  await deleteApprovalKey(authRequestId);
  return pending;
}

/**
 * Recovery of an admin who lost their authenticator (docs/console.md#recovering-an-admin): the approval pending on
 * their devices is cancelled, then every device of theirs in the console directory goes (linked, awaiting
 * confirmation or unlinking), so that their next sign-in links a new one by trust on first use. How many were linked.
 */
export async function unlinkAdminAuthenticators(adminId: string, now: Date): Promise<number> {
  const setup = await getConsoleApprovals();
  if (!setup?.ready) return 0;
  const key = adminUser(setup, adminId);
  const user = await getUser(key);
  if (!user) return 0;
  if (user.pending) await cancelled(setup, user.pending.authId, now);
  for (const device of user.devices) {
    // Without an unlink time: the cooling-off guards against a stolen application key's unlink, and no key reaches
    // this directory; here another admin's confirmed reset is what lets this one link anew at once.
    await unlinkDevice(key.directoryId, key.identifier, device.id).catch((error: unknown) => {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    });
  }
  return linkedDevices(user).length;
}
