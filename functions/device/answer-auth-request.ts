import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { noteForAudit } from '#shared/audit/audit-notes';
import { noContent } from '#shared/http/reply';
import { answerAuthRequestBody } from '#shared/http/schemas/auth-requests';
import { signedHandler } from '#shared/http/signed-handler';
import { countMetric } from '#shared/metrics';
import { answerAsDevice } from '#shared/use-cases/answer-auth-request';

/**
 * POST /device/v3/auths/{auth_request}: the user's answer, end-to-end encrypted by the device, or a denial of a request
 * with number matching said in the clear, without the code.
 */
export const handler = signedHandler({
  subject: 'dev',
  body: answerAuthRequestBody,
  handle: async ({ caller, body, pathParameters, receivedAt, passkeyOrigin }) => {
    const webauthn = body.webauthn as AuthenticationResponseJSON | null | undefined;
    const { serviceId } = await answerAsDevice(
      caller.subject,
      caller.subjectHead,
      pathParameters.auth_request ?? '',
      body.auth_jwe === undefined
        ? {
            deny: { denialReason: body.deny?.denial_reason ?? null, fraud: body.deny?.fraud ?? false },
            webauthn,
          }
        : {
            authJwe: body.auth_jwe,
            auth: body.auth,
            authV1: body.auth_v1,
            fraud: body.fraud,
            numberMatchCode: body.number_match_code,
            webauthn,
          },
      receivedAt,
      passkeyOrigin,
    );
    noteForAudit(caller, { service_id: serviceId });
    countMetric('AuthRequestsAnswered');
    return noContent();
  },
});
