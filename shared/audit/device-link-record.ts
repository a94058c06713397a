import { writeAuditRecord } from '#shared/audit/write-audit-record';
import { callerAddress } from '#shared/http/caller-address';
import type { HttpEvent } from '#shared/http/event';
import type { LinkedDevice } from '#shared/use-cases/link-device';

/**
 * Records a device's link, the one unsigned state change: the device, now an entity with the key it linked with, is
 * the actor. Only a link that succeeded is recorded; a refused one proves nothing about who sent it.
 */
export function recordDeviceLink(event: HttpEvent, link: LinkedDevice, receivedAt: Date): Promise<void> {
  return writeAuditRecord({
    organization_id: link.organizationId,
    time: receivedAt.toISOString(),
    request_id: event.requestContext.requestId,
    source_ip: callerAddress(event),
    actor_type: 'dev',
    actor_id: link.deviceId,
    kid: link.kid,
    operation: event.routeKey,
    directory_id: link.directoryId,
    user: link.identifier,
    device_id: link.deviceId,
    outcome: 'success',
    status: 201,
  });
}
