import type { Entity } from '#shared/protocol/entity';
import { sameEntity } from '#shared/protocol/entity';

/** The owners of a directory or service, as the store records them. */
export interface Ownership {
  readonly organizationId: string;
  /** Set for Directory Services, absent for Organization Services and directories. */
  readonly directoryId?: string;
}

/**
 * Whether an issuer may act for a subject: itself; an organization for its directories, its services and its
 * directories' services; a directory for its services. Nothing else: above all, no application key ever acts for a
 * device. Those keys live on servers that can be breached, and a device's answer stands for the user only because
 * the device's own key signed it.
 */
export function mayActFor(issuer: Entity, subject: Entity, ownership: Ownership | undefined): boolean {
  if (sameEntity(issuer, subject)) return true;
  if (!ownership) return false;
  switch (issuer.type) {
    case 'org':
      return (subject.type === 'dir' || subject.type === 'svc') && ownership.organizationId === issuer.id;
    case 'dir':
      return subject.type === 'svc' && ownership.directoryId === issuer.id;
    default:
      return false;
  }
}

/** The head attribute a device's link state is kept in, and the state in which it may sign. */
export const deviceLinked = 1;

/**
 * The head state of a device that presented its code and waits for the user's linked devices to confirm it
 * (docs/protocol.md#device-confirmation): it may ask how its link stands, and unlink itself, nothing else.
 */
export const deviceAwaitingConfirmation = 0;

/**
 * Whether an entity whose key verifies may make requests at all: a device only while it is linked (its head says so),
 * or, for the few operations that allow it, while it awaits confirmation; organizations, directories and services
 * whenever their keys are live.
 */
export function mayIssueRequests(
  issuer: Entity,
  head: Readonly<Record<string, unknown>> | undefined,
  allowAwaitingDevice = false,
): boolean {
  if (issuer.type !== 'dev') return true;
  return (
    head?.status === deviceLinked || (allowAwaitingDevice && head?.status === deviceAwaitingConfirmation)
  );
}
