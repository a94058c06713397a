import { type ClientKey, clientKeyFromPem } from '#shared/client/client-key';
import { ApiRequestError, ResponseVerificationError } from '#shared/client/errors';
import type { HashFunction } from '#shared/protocol/content-hash';
import { type DialectName, dialects } from '#shared/protocol/dialect';
import { decryptJson, encryptJson, type KeyManagementAlgorithm } from '#shared/protocol/jwe';
import type { KeyMaterial, SignatureAlgorithm } from '#shared/protocol/jws';
import { parseRsaPublicKeyPem } from '#shared/protocol/rsa-pem';
import { ProtocolRejection } from '#shared/protocol/rejection';
import { signRequestJwt } from '#shared/protocol/request-jwt';
import { verifyResponseJwt } from '#shared/protocol/response-jwt';

export interface ApiClientOptions {
  readonly baseUrl: string;
  /** The signing entity, e.g. `org:<uuid>`. */
  readonly issuer: string;
  /** PEM (PKCS#8 or PKCS#1) of the key that signs requests; it also decrypts responses encrypted to it. */
  readonly privateKeyPem?: string;
  /** The signing key as the host keeps it, instead of `privateKeyPem`: a browser's non-extractable device key. */
  readonly key?: ClientKey;
  /** More private keys for responses the service encrypts elsewhere, such as a dedicated encryption key. */
  readonly decryptionKeyPems?: readonly string[];
  /** `iov` speaks the LaunchKey SDKs' dialect (IOV-JWT, lka), `api` the other (API-JWT, api); docs/protocol.md#dialects. */
  readonly dialect?: DialectName;
  readonly signatureAlgorithm?: SignatureAlgorithm;
  readonly encryptionAlgorithm?: KeyManagementAlgorithm;
  readonly hashFunction?: HashFunction;
  /** How long the API's current public key and the clock offset are trusted, seconds (the SDKs use 300). */
  readonly cacheSeconds?: number;
  /** Seconds from a request JWT's iat to its exp; the SDKs use 5, the service accepts up to 60. */
  readonly tokenLifetimeSeconds?: number;
  /** Allowed clock difference when checking response times, seconds. */
  readonly leewaySeconds?: number;
  readonly fetch?: typeof fetch;
}

export interface CallOptions {
  /** The entity the request acts for; defaults to the issuer. */
  readonly subject?: string;
  /** A JSON value, sent as a JWE encrypted to the API's current key. */
  readonly body?: unknown;
}

export interface ApiResponse<T> {
  readonly status: number;
  /** The decrypted JSON body; undefined when the response had none. */
  readonly body: T | undefined;
  readonly headers: Headers;
}

/** A request ready to send: what `prepare` builds and `verifyResponse` checks the answer against. */
export interface PreparedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly jti: string;
  readonly subject: string;
}

interface CachedKey {
  readonly kid: string;
  readonly publicKey: KeyMaterial;
  readonly fetchedAt: number;
}

/**
 * The implementer's side of the protocol: signs requests, encrypts bodies to the API's current key, and trusts a
 * response only once its JWT verifies (API signature by kid, iss, aud, sub, jti, status, body hash, mirrored headers).
 */
export class ApiClient {
  readonly kid: string;
  private readonly key: ClientKey;
  private readonly decryptionKeys = new Map<string, ClientKey>();
  private readonly apiKeys = new Map<string, KeyMaterial>();
  private current: CachedKey | undefined;
  private clock: { offsetSeconds: number; fetchedAt: number } | undefined;
  private readonly dialect;
  private readonly fetch: typeof fetch;
  private readonly baseUrl: string;

  constructor(private readonly options: ApiClientOptions) {
    const key =
      options.key ??
      (options.privateKeyPem === undefined ? undefined : clientKeyFromPem(options.privateKeyPem));
    if (!key) throw new TypeError('An ApiClient needs a key or privateKeyPem');
    this.key = key;
    this.kid = key.kid;
    this.decryptionKeys.set(this.kid, key);
    for (const pem of options.decryptionKeyPems ?? []) {
      const more = clientKeyFromPem(pem);
      this.decryptionKeys.set(more.kid, more);
    }
    this.dialect = dialects[options.dialect ?? 'iov'];
    // Called as a method, the browser's fetch refuses its receiver ("Illegal invocation"): keep it unbound.
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** Signs, sends and verifies a request; returns the decrypted answer or throws ApiRequestError for 4xx and 5xx. */
  async call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const request = await this.prepare(method, path, options);
    const response = await this.send(request);
    return this.verifyResponse<T>(request, response);
  }

  /** Builds the signed request without sending it. */
  async prepare(method: string, path: string, options: CallOptions = {}): Promise<PreparedRequest> {
    const upperMethod = method.toUpperCase();
    const subject = options.subject ?? this.options.issuer;
    let body: string | undefined;
    if (options.body !== undefined) {
      const apiKey = await this.currentApiKey();
      body = await encryptJson(options.body, apiKey, {
        algorithm: this.options.encryptionAlgorithm ?? 'RSA-OAEP',
        ...(this.options.encryptionAlgorithm === 'RSA-OAEP-256' ? { contentType: 'application/json' } : {}),
      });
    }
    const jti = crypto.randomUUID();
    const queryAt = path.indexOf('?');
    const pathOnly = queryAt === -1 ? path : path.slice(0, queryAt);
    const query = queryAt === -1 ? undefined : path.slice(queryAt + 1);
    const algorithm = this.options.signatureAlgorithm ?? 'RS512';
    const token = await signRequestJwt({
      signingKey: { kid: this.kid, privateKey: this.key.signingKey(algorithm) },
      algorithm,
      issuer: this.options.issuer,
      subject,
      audience: this.dialect.identity,
      binding: {
        method: upperMethod,
        path: pathOnly,
        ...(query ? { query } : {}),
        ...(body ? { body } : {}),
      },
      hashFunction: this.options.hashFunction ?? 'S256',
      jti,
      now: await this.serverNow(),
      lifetime: this.options.tokenLifetimeSeconds ?? 5,
    });
    const headers: Record<string, string> = { authorization: `${this.dialect.scheme} ${token}` };
    if (body) headers['content-type'] = 'application/jose';
    return { method: upperMethod, path, headers, body, jti, subject };
  }

  async send(request: PreparedRequest): Promise<Response> {
    return this.fetch(`${this.baseUrl}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
    });
  }

  /** Verifies a response to `request` and decrypts its body. */
  async verifyResponse<T = unknown>(request: PreparedRequest, response: Response): Promise<ApiResponse<T>> {
    const text = await response.text();
    const token = response.headers.get(this.dialect.jwtHeader);
    if (!token) {
      throw new ResponseVerificationError(
        'missing-jwt',
        `The ${response.status} response has no ${this.dialect.jwtHeader}`,
      );
    }
    try {
      await verifyResponseJwt(token, {
        binding: {
          status: response.status,
          body: text,
          ...optional('location', response.headers.get('location')),
          ...optional('cache', response.headers.get('cache-control')),
        },
        issuer: this.dialect.identity,
        audience: this.options.issuer,
        subject: request.subject,
        jti: request.jti,
        resolveKey: async ({ kid }) => this.apiKey(kid),
        now: await this.serverNow(),
        leeway: this.options.leewaySeconds ?? 30,
        maxLifetime: 300,
      });
    } catch (error) {
      if (error instanceof ProtocolRejection) {
        throw new ResponseVerificationError(
          error.reason,
          `The response JWT does not verify: ${error.message}`,
          { cause: error },
        );
      }
      throw error;
    }

    if (response.status < 400) {
      return {
        status: response.status,
        body: text ? await this.decrypt<T>(text) : undefined,
        headers: response.headers,
      };
    }
    let error: Record<string, unknown> = {};
    if (text) {
      // 401 and 5xx bodies are plain JSON (docs/protocol.md#refusals); every other error body is a JWE.
      error = (
        response.status === 401 || response.status >= 500 ? JSON.parse(text) : await this.decrypt(text)
      ) as Record<string, unknown>;
    }
    throw new ApiRequestError(
      response.status,
      typeof error.error_code === 'string' ? error.error_code : undefined,
      error.error_detail ?? response.statusText,
      error.error_data as Record<string, unknown> | undefined,
    );
  }

  /** The server's clock offset from `/public/v3/ping`, as the SDKs use it to stamp iat/nbf/exp. */
  async serverNow(): Promise<number> {
    const cacheMs = (this.options.cacheSeconds ?? 300) * 1000;
    if (!this.clock || Date.now() - this.clock.fetchedAt > cacheMs) {
      const response = await this.fetch(`${this.baseUrl}/public/v3/ping`, { redirect: 'manual' });
      if (!response.ok) throw new ApiRequestError(response.status, undefined, 'ping failed', undefined);
      // A server that is not this API may answer 200 with a page of its own.
      const { api_time: apiTime } = (await response.json().catch(() => ({}))) as { api_time?: string };
      const serverMs = Date.parse(apiTime ?? '');
      if (Number.isNaN(serverMs))
        throw new ResponseVerificationError('not-this-api', 'GET /public/v3/ping answered no api_time');
      this.clock = { offsetSeconds: Math.round((serverMs - Date.now()) / 1000), fetchedAt: Date.now() };
    }
    return Math.floor(Date.now() / 1000) + this.clock.offsetSeconds;
  }

  /** The API key request bodies are encrypted to, cached like the SDKs do. */
  async currentApiKey(): Promise<{ kid: string; publicKey: KeyMaterial }> {
    const cacheMs = (this.options.cacheSeconds ?? 300) * 1000;
    if (!this.current || Date.now() - this.current.fetchedAt > cacheMs) {
      const { kid, publicKey } = await this.fetchApiKey('/public/v3/public-key');
      this.current = { kid, publicKey, fetchedAt: Date.now() };
    }
    return this.current;
  }

  /** An API public key by kid, fetched once and kept: a kid always names the same key. */
  async apiKey(kid: string): Promise<KeyMaterial> {
    const known = this.apiKeys.get(kid);
    if (known) return known;
    const { publicKey } = await this.fetchApiKey(`/public/v3/public-key/${kid}`, kid);
    return publicKey;
  }

  private async fetchApiKey(
    path: string,
    expectedKid?: string,
  ): Promise<{ kid: string; publicKey: KeyMaterial }> {
    const response = await this.fetch(`${this.baseUrl}${path}`, { redirect: 'manual' });
    if (!response.ok) {
      throw new ResponseVerificationError('api-key', `GET ${path} answered ${response.status}`);
    }
    const body = await response.text();
    let parsed: ReturnType<typeof parseRsaPublicKeyPem>;
    try {
      parsed = parseRsaPublicKeyPem(body);
    } catch (error) {
      // A server that is not this API may answer 200 with a page of its own.
      throw new ResponseVerificationError('api-key', `GET ${path} answered no public key`, { cause: error });
    }
    const { kid, jwk: publicKey } = parsed;
    // The kid header is only a label: the key must be the one it names.
    const header = response.headers.get(this.dialect.keyIdHeader);
    if (header !== kid || (expectedKid !== undefined && expectedKid !== kid)) {
      throw new ResponseVerificationError(
        'api-key',
        `GET ${path} returned a key whose kid is not ${expectedKid ?? header}`,
      );
    }
    this.apiKeys.set(kid, publicKey);
    return { kid, publicKey };
  }

  private async decrypt<T>(jwe: string): Promise<T> {
    try {
      const { value } = await decryptJson(jwe, (kid, alg) =>
        this.decryptionKeys.get(kid ?? this.kid)?.decryptionKey(alg),
      );
      return value as T;
    } catch (error) {
      if (error instanceof ProtocolRejection) {
        throw new ResponseVerificationError(
          error.reason,
          `The response body does not decrypt: ${error.message}`,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }
}

function optional<K extends string>(name: K, value: string | null): Partial<Record<K, string>> {
  return value === null ? {} : ({ [name]: value } as Record<K, string>);
}
