/**
 * What a use case answers: a status and, when there is one, a JSON body. The pipeline turns it into an HTTP response,
 * encrypting the body to the caller and signing the whole.
 */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  /** Extra headers; a Location or Cache-Control here is mirrored into the response JWT. */
  readonly headers?: Readonly<Record<string, string>>;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const noContent = (): Reply => ({ status: 204 });
