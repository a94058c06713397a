import { notFound } from '#shared/errors';
import type { HeadItem } from '#shared/store/heads';

// On its own, away from what reads the hash key: most device endpoints need only this.
/** Where a linked device's user is, from the device's head. */
export function deviceUserKey(head: HeadItem | undefined) {
  if (!head) throw notFound('The device is not linked');
  return { directoryId: head.directoryId as string, identifier: head.identifier as string };
}
