import type { MiddlewareObj } from '@middy/core';
import type * as v from 'valibot';
import { apiKeyRing, refreshedApiKeyRing } from '#shared/api-keys/current-key-ring';
import { invalidArgument } from '#shared/errors';
import { acceptedBody, type HttpEvent } from '#shared/http/event';
import { validateBody } from '#shared/http/schemas/validate-body';
import type { SignedContext } from '#shared/http/signed-state';
import { decryptJson } from '#shared/protocol/jwe';
import { ProtocolRejection } from '#shared/protocol/rejection';

export type BodySchema = v.GenericSchema<unknown, unknown>;

/**
 * What an operation does with a request body: decrypt it and validate it against a schema, refuse one (`'none'`), or
 * not look at it at all (`'ignored'`, for refusals that do not depend on the body).
 */
export type BodyRule = BodySchema | 'none' | 'ignored';

const rejectionDetails: Readonly<Record<string, string>> = {
  malformed: 'The request body must be a compact JWE (RSA-OAEP or RSA-OAEP-256, A256CBC-HS512)',
  'unknown-key':
    'The request body is encrypted to an API key this service does not hold; fetch /public/v3/public-key',
  decryption: 'The request body does not decrypt: it is corrupted or was encrypted to another key',
  content: 'The decrypted request body is not JSON',
};

/** Steps 3 and 4: decrypt the JWE body to the API's key, then validate it (ARG-001 naming the field). */
export function decryptBody(rule: BodyRule): MiddlewareObj<HttpEvent, unknown, Error, SignedContext> {
  return {
    before: async (request) => {
      if (rule === 'ignored') return;
      const body = acceptedBody(request.event);
      if (!body) {
        if (rule !== 'none') throw invalidArgument('This operation needs a request body');
        return;
      }
      if (rule === 'none') throw invalidArgument('This operation takes no request body');
      const ring = await apiKeyRing();
      let value: unknown;
      try {
        ({ value } = await decryptJson(
          body.toString('utf8'),
          async (kid) => ring.decryptionKey(kid) ?? (await refreshedApiKeyRing()).decryptionKey(kid),
        ));
      } catch (error) {
        if (error instanceof ProtocolRejection) {
          throw invalidArgument(
            `${rejectionDetails[error.reason] ?? error.message}: ${error.message}`,
            error,
          );
        }
        throw error;
      }
      // Every request body of the interface is a JSON object; schema libraries would take an array for one.
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw invalidArgument('body: the request body must be a JSON object');
      }
      request.context.signed.body = validateBody(rule, value);
    },
  };
}
