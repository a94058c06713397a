/**
 * The two spellings of the protocol: the `api` dialect (`API-JWT`, `X-API-JWT`, identity `api`) and the LaunchKey
 * SDKs' (`IOV-JWT`, `X-IOV-JWT`, identity `lka`). The service accepts both and answers in both
 * (docs/protocol.md#dialects).
 */
export type DialectName = 'api' | 'iov';
export type ApiIdentity = 'api' | 'lka';

export interface Dialect {
  readonly name: DialectName;
  readonly scheme: 'API-JWT' | 'IOV-JWT';
  readonly identity: ApiIdentity;
  readonly jwtHeader: 'x-api-jwt' | 'x-iov-jwt';
  readonly keyIdHeader: 'x-api-key-id' | 'x-iov-key-id';
}

export const dialects: Readonly<Record<DialectName, Dialect>> = {
  api: {
    name: 'api',
    scheme: 'API-JWT',
    identity: 'api',
    jwtHeader: 'x-api-jwt',
    keyIdHeader: 'x-api-key-id',
  },
  iov: {
    name: 'iov',
    scheme: 'IOV-JWT',
    identity: 'lka',
    jwtHeader: 'x-iov-jwt',
    keyIdHeader: 'x-iov-key-id',
  },
};

export const apiIdentities: readonly ApiIdentity[] = ['api', 'lka'];

export function isApiIdentity(value: unknown): value is ApiIdentity {
  return value === 'api' || value === 'lka';
}

/** HTTP authentication schemes are case-insensitive (RFC 9110 §11.1). */
export function dialectOfScheme(scheme: string): Dialect | undefined {
  const upper = scheme.toUpperCase();
  return Object.values(dialects).find((dialect) => dialect.scheme === upper);
}

export function dialectOfIdentity(identity: ApiIdentity): Dialect {
  return identity === 'api' ? dialects.api : dialects.iov;
}
