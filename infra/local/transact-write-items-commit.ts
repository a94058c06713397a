import { createRequire } from 'node:module';
import type { AttributeMap, BatchOperation, DynaliteError, Store, SubDb } from 'dynalite/db';
import type { OperationKind, TransactOperation } from '#infra/local/transact-write-items-request';

const require = createRequire(import.meta.url);
const db = require('dynalite/db') as typeof import('dynalite/db');
type Action = typeof import('dynalite/actions/*');
const actions: Record<Exclude<OperationKind, 'ConditionCheck'>, Action> = {
  Put: require('dynalite/actions/putItem') as Action,
  Update: require('dynalite/actions/updateItem') as Action,
  Delete: require('dynalite/actions/deleteItem') as Action,
};

/** Why one operation kept the transaction from committing, as DynamoDB reports it; `{ Code: 'None' }` if it did not. */
export interface CancellationReason {
  readonly Code: string;
  readonly Message?: string;
  readonly Item?: AttributeMap;
}

/**
 * Commits the operations all or none: under dynalite's per-key locks on every item (so that plain PutItem, UpdateItem
 * and DeleteItem on those items wait, where DynamoDB might instead cancel with TransactionConflict), reads every
 * item, checks every condition and computes every write, then applies them all in one LevelDB batch. Returns the
 * reasons, one per operation, when any operation fails.
 */
export async function commitTransaction(
  store: Store,
  operations: readonly TransactOperation[],
): Promise<readonly CancellationReason[] | undefined> {
  const release = await lockAll(store, operations);
  try {
    const writes: BatchOperation[] = [];
    const reasons: CancellationReason[] = [];
    for (const operation of operations) {
      const existing = await read(store.getItemDb(operation.data.TableName), operation.key);
      reasons.push(await evaluate(store, operation, existing, writes));
    }
    if (reasons.some(({ Code }) => Code !== 'None')) return reasons;
    await new Promise<void>((resolve, reject) =>
      store.db.batch(writes, (error) => (error ? reject(error) : resolve())),
    );
    return undefined;
  } finally {
    release();
  }
}

/** One key at a time in a fixed order, so that two transactions sharing keys cannot each hold what the other waits on. */
async function lockAll(store: Store, operations: readonly TransactOperation[]): Promise<() => void> {
  const keys = operations
    .map(({ data, key }) => ({ tableName: data.TableName, key }))
    .sort((a, b) => compare(a.tableName, b.tableName) || compare(a.key, b.key));
  const releases: (() => void)[] = [];
  for (const { tableName, key } of keys) {
    await new Promise<void>((resolve) =>
      store.getItemDb(tableName).lock(key, (release) => {
        releases.push(release(() => undefined));
        resolve();
      }),
    );
  }
  return () => releases.forEach((release) => release());
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function read(itemDb: SubDb, key: string): Promise<AttributeMap | undefined> {
  return new Promise((resolve, reject) =>
    itemDb.get(key, (error, item) => {
      if (
        error &&
        error.name !== 'NotFoundError' &&
        (error as { code?: string }).code !== 'LEVEL_NOT_FOUND'
      ) {
        reject(error);
      } else resolve(error ? undefined : item);
    }),
  );
}

/**
 * Runs the operation as dynalite's own single-item action would, against a store that serves the item read under the
 * transaction's locks and captures the writes (the item and its index entries) instead of making them.
 */
async function evaluate(
  store: Store,
  operation: TransactOperation,
  existing: AttributeMap | undefined,
  writes: BatchOperation[],
): Promise<CancellationReason> {
  const { kind, data } = operation;
  if (kind === 'ConditionCheck') {
    return db.checkConditional(data, existing) ? conditionFailed(data, existing) : { Code: 'None' };
  }
  const captured: BatchOperation[] = [];
  const error = await new Promise<DynaliteError | null | undefined>((resolve) =>
    actions[kind](capturingStore(store, existing, captured), data, resolve),
  );
  if (!error) {
    writes.push(...captured);
    return { Code: 'None' };
  }
  if (error.body?.__type.endsWith('#ConditionalCheckFailedException')) return conditionFailed(data, existing);
  if (error.body?.__type.endsWith('#ValidationException')) {
    return { Code: 'ValidationError', Message: error.body.message ?? error.message };
  }
  throw error;
}

function conditionFailed(
  data: TransactOperation['data'],
  existing: AttributeMap | undefined,
): CancellationReason {
  return {
    Code: 'ConditionalCheckFailed',
    Message: 'The conditional request failed',
    ...(existing && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' ? { Item: existing } : {}),
  };
}

/**
 * dynalite keeps every table, item and index entry in one LevelDB database under a prefix per table and per index
 * (db/index.js, getSubDb): writing the captured entries under those prefixes in one batch makes them one atomic write.
 */
function capturingStore(store: Store, existing: AttributeMap | undefined, writes: BatchOperation[]): Store {
  const capturing = (prefix: string): SubDb => ({
    lock: (_key, exec) => exec((done) => done),
    get: (_key, callback) => setImmediate(callback, null, existing),
    put: (key, value, callback) => {
      writes.push({ type: 'put', key: prefix + key, value });
      setImmediate(callback, null);
    },
    del: (key, callback) => {
      writes.push({ type: 'del', key: prefix + key });
      setImmediate(callback, null);
    },
  });
  return {
    ...store,
    getItemDb: (name) => capturing(`item-${name}~`),
    getIndexDb: (indexType, tableName, indexName) =>
      capturing(`index-${indexType.toLowerCase()}~${tableName}~${indexName}~`),
  };
}
