import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type * as v from 'valibot';
import { afterFirstUse } from '#shared/first-use';
import { type HttpEvent, passkeyOrigin, publicBaseUrl } from '#shared/http/event';
import { authenticate } from '#shared/http/middlewares/authenticate';
import { authorizeSubject, type SubjectRequirement } from '#shared/http/middlewares/authorize-subject';
import { type BodyRule, type BodySchema, decryptBody } from '#shared/http/middlewares/decrypt-body';
import { edgeOrigin } from '#shared/http/middlewares/edge-origin';
import { recordAudit } from '#shared/http/middlewares/record-audit';
import { signedResponse } from '#shared/http/middlewares/signed-response';
import type { Reply } from '#shared/http/reply';
import type { Caller, SignedContext } from '#shared/http/signed-state';
import { observability } from '#shared/observability';

/** What a signed operation's use case receives: a verified caller and a decrypted, validated body. */
export interface SignedRequest<Body> {
  readonly caller: Caller;
  readonly body: Body;
  readonly pathParameters: Readonly<Record<string, string | undefined>>;
  /** The instant the request arrived; use cases compare expiries against it. */
  readonly receivedAt: Date;
  /** Where clients reach this API, for links in answers. */
  readonly baseUrl: string;
  /** The origin passkeys are bound to, whatever Host the request came with; none where the deployment set none. */
  readonly passkeyOrigin: string | undefined;
}

export type BodyOf<Rule extends BodyRule> = Rule extends BodySchema ? v.InferOutput<Rule> : undefined;

export interface SignedOperation<Rule extends BodyRule> {
  /** The kind of entity `sub` must name. */
  readonly subject: SubjectRequirement;
  /** The request body's schema, or `'none'` for operations without a body. */
  readonly body: Rule;
  /** A device awaiting confirmation may sign this operation too (docs/protocol.md#device-confirmation). */
  readonly awaitingDevice?: boolean;
  readonly handle: (request: SignedRequest<BodyOf<Rule>>) => Promise<Reply>;
}

/**
 * The one pipeline of every signed endpoint (docs/protocol.md#signed-requests: authenticate, authorize the subject, decrypt, validate, answer). The order is fixed here: the response
 * signer first, so its `after` runs last and its `onError` sees every failure; then authenticate, authorize, decrypt
 * and validate.
 */
export function signedHandler<Rule extends BodyRule>(operation: SignedOperation<Rule>) {
  return middy<HttpEvent, APIGatewayProxyStructuredResultV2, Error, SignedContext>(
    async (event: HttpEvent, context: SignedContext) => {
      const { caller, body, receivedAt, firstUse } = context.signed;
      if (!caller || !firstUse) throw new Error('The signed pipeline ran the handler without a caller');
      const reply = await afterFirstUse(firstUse, () =>
        operation.handle({
          caller,
          body: body as BodyOf<Rule>,
          pathParameters: event.pathParameters ?? {},
          receivedAt: new Date(receivedAt),
          baseUrl: publicBaseUrl(event),
          passkeyOrigin: passkeyOrigin(event),
        }),
      );
      // The response signer turns the reply into the HTTP result in its `after`.
      return reply as unknown as APIGatewayProxyStructuredResultV2;
    },
  )
    .use(edgeOrigin())
    .use(observability())
    .use(signedResponse())
    .use(recordAudit())
    .use(authenticate({ allowAwaitingDevice: operation.awaitingDevice === true }))
    .use(authorizeSubject(operation.subject))
    .use(decryptBody(operation.body));
}
