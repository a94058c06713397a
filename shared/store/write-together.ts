import type { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { serviceUnavailable } from '#shared/errors';
import { dynamo } from '#shared/store/dynamo';

/** One write of a transaction: a Put, Update or Delete on the table, with its condition. */
export type TableWrite = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Attempts of a transaction that another transaction on one of its items keeps cancelling. */
const conflictAttempts = 3;
const conflictBaseDelayMs = 20;

/**
 * Applies `writes` all together or not at all, in one round trip (TransactWriteItems): what lets a request's state
 * change in one step where it spans items. Returns the positions of the writes whose condition failed, none when all
 * were applied. A cancellation by a concurrent transaction on the same items is retried after a short jittered wait;
 * one that persists, or any other cancellation (throttling), is a 503.
 */
export async function writeTogether(writes: readonly TableWrite[]): Promise<readonly number[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo.send(new TransactWriteCommand({ TransactItems: [...writes] }));
      return [];
    } catch (error) {
      if (!isCancellation(error)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
      const failed = codes.flatMap((code, index) => (code === 'ConditionalCheckFailed' ? [index] : []));
      if (failed.length > 0) return failed;
      const conflicted = codes.includes('TransactionConflict');
      if (!conflicted || attempt === conflictAttempts) {
        throw serviceUnavailable(
          `The store cancelled the write (${codes.filter((code) => code !== 'None').join(', ') || 'no reason'}); retry the request`,
          error,
        );
      }
      await sleep(conflictBaseDelayMs * attempt * (0.5 + Math.random() / 2));
    }
  }
}

/** By name, as the SDK's own class and a copy of it in another bundle both carry it. */
function isCancellation(error: unknown): error is TransactionCanceledException {
  return (error as Error | undefined)?.name === 'TransactionCanceledException';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
