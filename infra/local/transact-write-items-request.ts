import { createRequire } from 'node:module';
import type { AttributeMap, DynaliteError, Store, TableDescription } from 'dynalite/db';

const require = createRequire(import.meta.url);
const db = require('dynalite/db') as typeof import('dynalite/db');
const validations = require('dynalite/validations') as typeof import('dynalite/validations');
type Validation = typeof import('dynalite/validations/*');
const putItem = require('dynalite/validations/putItem') as Validation;
const updateItem = require('dynalite/validations/updateItem') as Validation;
const deleteItem = require('dynalite/validations/deleteItem') as Validation;

/** The four kinds of operation a transaction item holds exactly one of. */
export type OperationKind = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';

/** One validated operation: its single-item request (expressions parsed by dynalite), its table and its item's key. */
export interface TransactOperation {
  readonly kind: OperationKind;
  readonly data: Record<string, unknown> & {
    TableName: string;
    ReturnValuesOnConditionCheckFailure?: string;
  };
  readonly table: TableDescription;
  /** dynalite's key of the item within its table. */
  readonly key: string;
}

/** At most 100 operations, as in DynamoDB. */
const maxOperations = 100;

const operationFields = [
  'TableName',
  'ConditionExpression',
  'ExpressionAttributeNames',
  'ExpressionAttributeValues',
];

/**
 * An operation takes its single-item counterpart's parameters less those DynamoDB leaves out of transactions
 * (ReturnValues, the legacy Expected/AttributeUpdates), which the type check then drops.
 */
function fields(types: Record<string, unknown>, target: 'Item' | 'Key'): Record<string, unknown> {
  return {
    ...Object.fromEntries([target, ...operationFields].map((name) => [name, types[name]])),
    ReturnValuesOnConditionCheckFailure: { type: 'String', enum: ['ALL_OLD', 'NONE'] },
  };
}

const operationTypes: Record<OperationKind, { types: Record<string, unknown>; validation: Validation }> = {
  Put: { types: fields(putItem.types, 'Item'), validation: putItem },
  Update: {
    types: { ...fields(updateItem.types, 'Key'), UpdateExpression: { type: 'String', notNull: true } },
    validation: updateItem,
  },
  Delete: { types: fields(deleteItem.types, 'Key'), validation: deleteItem },
  ConditionCheck: {
    types: { ...fields(deleteItem.types, 'Key'), ConditionExpression: { type: 'String', notNull: true } },
    validation: deleteItem,
  },
};
const kinds = Object.keys(operationTypes) as OperationKind[];

const requestTypes = {
  ReturnConsumedCapacity: { type: 'String', enum: ['INDEXES', 'TOTAL', 'NONE'] },
  ReturnItemCollectionMetrics: { type: 'String', enum: ['SIZE', 'NONE'] },
  ClientRequestToken: { type: 'String', lengthGreaterThanOrEqual: 1, lengthLessThanOrEqual: 36 },
  TransactItems: {
    type: 'List',
    notNull: true,
    lengthGreaterThanOrEqual: 1,
    lengthLessThanOrEqual: maxOperations,
    children: {
      type: 'ValueStruct<TransactWriteItem>',
      children: Object.fromEntries(
        kinds.map((kind) => [kind, { type: `FieldStruct<${kind}>`, children: operationTypes[kind].types }]),
      ),
    },
  },
};

/**
 * Checks a TransactWriteItems request as DynamoDB does before touching any item: the parameters' types and bounds,
 * each operation as its single-item counterpart, the tables, the keys against their schemas, and one operation per
 * item. Throws dynalite's error (status and body) for the first problem found.
 */
export async function validateTransactWriteItems(body: unknown, store: Store): Promise<TransactOperation[]> {
  const request = validations.checkTypes(body, requestTypes);
  validations.checkValidations(request, requestTypes, undefined, store);
  const items = request.TransactItems as Record<string, Record<string, unknown> | undefined>[];
  const operations: TransactOperation[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const present = kinds.filter((kind) => item[kind] != null);
    const kind = present[0];
    if (present.length !== 1 || !kind) {
      throw db.validationError('TransactItems can only contain one of Check, Put, Update or Delete');
    }
    const data = item[kind] as TransactOperation['data'];
    const message = operationTypes[kind].validation.custom(data, store);
    if (message) throw db.validationError(message);
    const table = await tableNamed(store, data.TableName);
    const key = keyOf(kind, data, table);
    const identity = JSON.stringify([data.TableName, key]);
    if (seen.has(identity)) {
      throw db.validationError('Transaction request cannot include multiple operations on one item');
    }
    seen.add(identity);
    operations.push({ kind, data, table, key });
  }
  return operations;
}

function keyOf(kind: OperationKind, data: TransactOperation['data'], table: TableDescription): string {
  const item = (kind === 'Put' ? data.Item : data.Key) as AttributeMap;
  const invalid =
    kind === 'Put'
      ? db.validateItem(item, table)
      : (db.validateKey(item, table) ??
        (kind === 'Update' ? db.validateUpdates(undefined, data._updates, table) : undefined));
  if (invalid) throw invalid;
  return db.createKey(item, table);
}

function tableNamed(store: Store, name: string): Promise<TableDescription> {
  return new Promise((resolve, reject) =>
    store.getTable(name, (error: DynaliteError | null, table?: TableDescription) =>
      error || !table ? reject(error ?? new Error(`No table ${name}`)) : resolve(table),
    ),
  );
}
