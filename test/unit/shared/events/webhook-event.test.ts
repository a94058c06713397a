import { describe, expect, it } from 'vitest';
import {
  describeEvent,
  parseQueuedMessage,
  queuedMessageBody,
  type WebhookEvent,
} from '#shared/events/webhook-event';

const ended: WebhookEvent = {
  kind: 'session-ended',
  serviceId: crypto.randomUUID(),
  userId: crypto.randomUUID(),
  audience: 'org:x',
  identity: 'lka',
  endedAt: '2026-11-22T10:00:00Z',
};

describe('queued webhook messages', () => {
  it('round-trip with their attempt, the first one implied', () => {
    expect(parseQueuedMessage(queuedMessageBody(ended))).toEqual({ event: ended, attempt: 1 });
    expect(JSON.parse(queuedMessageBody(ended))).not.toHaveProperty('attempt');
    expect(parseQueuedMessage(queuedMessageBody(ended, 4))).toEqual({ event: ended, attempt: 4 });
  });

  it.each([
    ['not JSON', 'nope'],
    ['an unknown kind', JSON.stringify({ kind: 'party' })],
    ['a missing field', JSON.stringify({ kind: 'authorization-response' })],
    ['an unknown identity', JSON.stringify({ ...ended, identity: 'other' })],
    ['a bad attempt', JSON.stringify({ ...ended, attempt: 0 })],
  ])('refuse %s', (_, body) => {
    expect(parseQueuedMessage(body)).toBeUndefined();
  });

  it('are described by kind and ids only', () => {
    expect(describeEvent(ended)).toEqual({ kind: 'session-ended', serviceId: ended.serviceId });
  });
});
