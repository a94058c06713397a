import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { sealAnswer } from '#shared/authenticator/answer-packages';
import { type Evaluation, evaluate } from '#shared/authenticator/evaluate';
import { rotateServicePins } from '#shared/authenticator/service-pins';
import { defaultConfiguration, deviceStateAt } from '#shared/authenticator/state';
import type { ApiClient, PreparedRequest } from '#shared/client/api-client';
import { parseEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import { decryptJson } from '#shared/protocol/jwe';
import { keyId } from '#shared/protocol/kid';
import type { CreatedAuthRequest } from '#shared/use-cases/create-auth-request';
import type { PendingAuthRequestView } from '#shared/use-cases/device-auth-requests';
import type { SeededDirectory, SeededUser } from '#test/bench/seeded-directory';
import { unsignedRequest } from '#test/support/events';

/**
 * The kinds of request whose cost differs, in the order a batch run measures them: each authorization step after the
 * one it feeds (a create's requests are what the device lists and answers, the answered ones what the polls read).
 */
export const classNames = [
  'public: ping',
  'public: API key',
  'signed read',
  'signed write',
  'create auth',
  'device list',
  'answer',
  'poll',
] as const;
export type ClassName = (typeof classNames)[number];
/** The steps of one approval, in order: the flow measurements run them one after another for one user. */
export const flowClasses = ['create auth', 'device list', 'answer', 'poll'] as const satisfies ClassName[];

/** A key pair of a party that signs requests: its public half verifies them and receives their responses. */
export interface Party {
  readonly publicKey: KeyObject;
  readonly kid: string;
  readonly privateKey: KeyObject;
}

function party(privateKeyPem: string): Party {
  const privateKey = createPrivateKey(privateKeyPem);
  const publicKey = createPublicKey(privateKey);
  return { publicKey, kid: keyId(publicKey), privateKey };
}

export interface EndpointClass {
  readonly name: ClassName;
  /** Its route table row. */
  readonly route: string;
  readonly status: number;
  /**
   * Its budget of store round trips waited for one after another (round-trips.ts's store depth), where the design
   * sets one; round trips that do not depend on each other run at the same time and count once.
   */
  readonly roundTripTarget?: number;
  /** Who signs its requests; none for the public endpoints. */
  readonly caller?: Party;
  /** A create signs a push package besides its response. */
  readonly pushPackage?: boolean;
  /** The next request, for fresh state: a user with nothing pending, the oldest pending request, the latest answered one. */
  next(): Promise<PreparedRequest>;
  /**
   * `count` requests for one target (one user, one pending request): for runs whose store answers are replayed, in
   * which only the first request reaches the store.
   */
  sameTarget(count: number): Promise<PreparedRequest[]>;
  /** Learns from a response what later requests need. */
  observe(request: PreparedRequest, status: number, body: string): Promise<void>;
}

/**
 * The endpoint classes over one seeded directory. `nextUser` picks whom each create asks: a user with no pending
 * request (one pending request per user). `organization` signs the management requests: reading the seeded directory
 * by id, and creating directories named after `name`.
 */
export function endpointClasses(options: {
  readonly organization: ApiClient;
  readonly organizationPem: string;
  readonly directory: SeededDirectory;
  readonly nextUser: () => SeededUser;
  readonly name: string;
}): Record<ClassName, EndpointClass> {
  const { organization, directory, nextUser } = options;
  const organizationParty = party(options.organizationPem);
  const serviceParty = party(directory.serviceKey.privatePem);
  const deviceParty = party(directory.deviceKey.privatePem);
  const subject = `svc:${directory.serviceId}`;

  const devices = new Map<string, ApiClient>();
  const device = (user: SeededUser) => {
    const known = devices.get(user.deviceId);
    if (known) return known;
    const made = directory.device(user);
    devices.set(user.deviceId, made);
    return made;
  };
  const asked = new Map<string, SeededUser>();
  const pending: { authRequest: string; user: SeededUser }[] = [];
  const answered: string[] = [];
  let listed = 0;
  let names = 0;
  // What the device shows and evaluates is the same for every request of this service: learnt once, from a real list.
  let offered: { view: PendingAuthRequestView; evaluation: Evaluation } | undefined;

  const repeat = async (count: number, make: () => Promise<PreparedRequest>) => {
    const batch: PreparedRequest[] = [];
    for (let i = 0; i < count; i++) batch.push(await make());
    return batch;
  };
  const unsigned = (name: ClassName, path: string): EndpointClass => ({
    name,
    route: `GET ${path}`,
    status: 200,
    next: async () => unsignedRequest(path),
    sameTarget: async (count) => Array.from({ length: count }, () => unsignedRequest(path)),
    observe: async () => undefined,
  });
  const oldestPending = () => {
    const request = pending[0];
    if (!request) throw new Error('no pending request: run the creates first');
    return request;
  };
  const lastAnswered = (take: boolean) => {
    const authRequest = take ? answered.pop() : answered.at(-1);
    if (!authRequest) throw new Error('no answered request: run the answers first');
    return authRequest;
  };

  const create = (user: SeededUser) => {
    asked.set(user.deviceId, user);
    return directory.service.prepare('POST', '/service/v3/auths', {
      subject,
      body: { username: user.identifier },
    });
  };
  const deviceList = (user: SeededUser) => device(user).prepare('GET', '/device/v3/auths');
  /** The device's approval, sealed as the reference authenticator seals it. */
  const answer = async ({ authRequest, user }: { authRequest: string; user: SeededUser }) => {
    if (!offered) {
      const view = (await device(user).call<PendingAuthRequestView[]>('GET', '/device/v3/auths')).body?.[0];
      if (!view) throw new Error(`the device of ${user.identifier} was offered nothing`);
      const evaluation = evaluate(
        parseEffectivePolicy(view.policy),
        deviceStateAt(defaultConfiguration, new Date()),
        {
          kind: 'approve',
        },
      );
      offered = { view, evaluation };
    }
    const packages = await sealAnswer(offered.view, {
      authRequest,
      deviceId: user.deviceId,
      servicePins: rotateServicePins([]),
      evaluation: offered.evaluation,
    });
    return device(user).prepare('POST', `/device/v3/auths/${authRequest}`, { body: packages });
  };
  const poll = (authRequest: string) =>
    directory.service.prepare('GET', `/service/v3/auths/${authRequest}`, { subject });
  const readDirectory = () =>
    organization.prepare('POST', '/organization/v3/directories/list', {
      body: { directory_ids: [directory.directoryId] },
    });
  const createDirectory = () =>
    organization.prepare('POST', '/organization/v3/directories', {
      body: { name: `${options.name} ${names++}` },
    });

  return {
    'public: ping': unsigned('public: ping', '/public/v3/ping'),
    'public: API key': unsigned('public: API key', '/public/v3/public-key'),
    'signed read': {
      name: 'signed read',
      route: 'POST /organization/v3/directories/list',
      status: 200,
      roundTripTarget: 2,
      caller: organizationParty,
      next: readDirectory,
      sameTarget: (count) => repeat(count, readDirectory),
      observe: async () => undefined,
    },
    'signed write': {
      name: 'signed write',
      route: 'POST /organization/v3/directories',
      status: 201,
      caller: organizationParty,
      next: createDirectory,
      sameTarget: (count) => repeat(count, createDirectory),
      observe: async () => undefined,
    },
    'create auth': {
      name: 'create auth',
      route: 'POST /service/v3/auths',
      status: 201,
      roundTripTarget: 3,
      caller: serviceParty,
      pushPackage: true,
      next: () => create(nextUser()),
      sameTarget: async (count) => {
        const user = nextUser();
        return repeat(count, () => create(user));
      },
      observe: async (_request, status, body) => {
        if (status !== 201) return;
        const created = (await decryptJson(body, () => serviceParty.privateKey)).value as CreatedAuthRequest;
        const user = asked.get(created.device_ids[0] ?? '');
        if (!user) throw new Error(`no seeded user has device ${created.device_ids[0]}`);
        pending.push({ authRequest: created.auth_request, user });
      },
    },
    'device list': {
      name: 'device list',
      route: 'GET /device/v3/auths',
      status: 200,
      roundTripTarget: 2,
      caller: deviceParty,
      // Each pending request's device in turn: one device per pending request in a batch, the one asked in a flow.
      next: () => deviceList((pending[listed++ % pending.length] ?? oldestPending()).user),
      sameTarget: (count) => repeat(count, () => deviceList(oldestPending().user)),
      observe: async () => undefined,
    },
    answer: {
      name: 'answer',
      route: 'POST /device/v3/auths/{auth_request}',
      status: 204,
      roundTripTarget: 3,
      caller: deviceParty,
      next: () => {
        const request = oldestPending();
        pending.shift();
        return answer(request);
      },
      sameTarget: async (count) => {
        const request = oldestPending();
        pending.shift();
        return repeat(count, () => answer(request));
      },
      observe: async (request, status) => {
        if (status === 204) answered.push(request.path.slice(request.path.lastIndexOf('/') + 1));
      },
    },
    poll: {
      name: 'poll',
      route: 'GET /service/v3/auths/{auth_request}',
      status: 200,
      roundTripTarget: 2,
      caller: serviceParty,
      // The latest answered request: in a flow, the one this flow answered.
      next: () => poll(lastAnswered(true)),
      sameTarget: (count) => {
        const authRequest = lastAnswered(false);
        return repeat(count, () => poll(authRequest));
      },
      observe: async () => undefined,
    },
  };
}
