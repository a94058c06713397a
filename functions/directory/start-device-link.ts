import { created } from '#shared/http/reply';
import { startDeviceLinkBody } from '#shared/http/schemas/devices';
import { signedHandler } from '#shared/http/signed-handler';
import { formatEntity } from '#shared/protocol/entity';
import { ownershipOf } from '#shared/store/heads';
import { defaultLinkTtlSeconds, startDeviceLink } from '#shared/use-cases/devices';

/** POST /directory/v3/devices: a linking code, its QR image URL and the new device's id (docs/protocol.md#management-api). */
export const handler = signedHandler({
  subject: 'dir',
  body: startDeviceLinkBody,
  handle: async ({ caller, body, receivedAt, baseUrl }) =>
    created(
      await startDeviceLink(
        {
          organizationId: ownershipOf(caller.subjectHead)?.organizationId ?? '',
          directoryId: caller.subject.id,
          identifier: body.identifier,
          ttlSeconds: body.ttl ?? defaultLinkTtlSeconds,
          requester: formatEntity(caller.issuer),
          identity: caller.identity,
          requesterKid: caller.responseKey?.kid,
        },
        receivedAt,
        baseUrl,
      ),
    ),
});
