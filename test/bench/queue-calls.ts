import { SQSClient } from '@aws-sdk/client-sqs';
import { counting, type Recording, recording, type Send, type SendHook } from '#test/bench/store-calls';

/**
 * Every queue client of this process (the webhook queue's): the handlers' client is made inside a module, and its
 * prototype's send is what every call goes through.
 */
export const queueClientsHook: SendHook = async (wrap) => {
  const prototype = SQSClient.prototype as unknown as { send: Send };
  const own = Object.hasOwn(prototype, 'send');
  const original = prototype.send;
  prototype.send = wrap(original);
  return () => {
    if (own) prototype.send = original;
    else delete (prototype as { send?: Send }).send;
  };
};

/** Runs `measure` and counts the commands this process sent to the queue, by name (an answer's webhook event). */
export function countingQueueCommands<T>(
  measure: () => Promise<T>,
): Promise<{ result: T; calls: Record<string, number> }> {
  return counting(queueClientsHook, measure);
}

/** Records the queue's answers, to replay them: recordStoreAnswers for SQS. */
export function recordQueueAnswers(): Promise<Recording> {
  return recording(queueClientsHook);
}
