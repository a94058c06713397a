import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { type ItemKind, itemKindOf, type TableGrant } from '#shared/store/item-kinds';
import { type GrantMode, tableCommandNamed, tableCommands } from '#shared/store/table-commands';

/**
 * The local runtime's stand-in for IAM: while a handler runs inside `withTableGrant`, every store call on the table
 * must name only item kinds its route declares, read actions on read kinds and write actions on write kinds, or it
 * fails as AWS would refuse it. Every test through the local runtime thereby proves the route table's grants; in AWS
 * (no grant in scope) the check does nothing and IAM enforces the same rows.
 */
interface GrantScope {
  readonly name: string;
  readonly grant: TableGrant | undefined;
}

const scope = new AsyncLocalStorage<GrantScope>();

/** Runs `work` (one handler invocation) under the grant of the function `name`; no grant means no table at all. */
export function withTableGrant<T>(name: string, grant: TableGrant | undefined, work: () => T): T {
  return scope.run({ name, grant }, work);
}

/**
 * A transaction's operations as IAM evaluates them: each its own action on its own item. ConditionCheckItem is in no
 * route's grant (a grant's rows are reads and writes), so a transaction that checks an item is refused.
 */
const transactActionOf: Readonly<Record<string, { action: string; mode: GrantMode | undefined }>> = {
  Put: tableCommands.PutItemCommand,
  Update: tableCommands.UpdateItemCommand,
  Delete: tableCommands.DeleteItemCommand,
  ConditionCheck: { action: 'dynamodb:ConditionCheckItem', mode: undefined },
};

/** An item kind a function touched without declaring it: what AWS would answer with AccessDeniedException. */
export class UndeclaredTableAccessError extends Error {
  override readonly name = 'UndeclaredTableAccessError';
}

/**
 * Throws unless the grant in scope allows `commandName` on every partition key of `input` (marshalled or not).
 * Outside any scope (AWS, the admin CLI, a test's own setup) it allows everything.
 */
export function checkTableAccess(commandName: string, input: unknown, tableName: string): void {
  const current = scope.getStore();
  if (!current) return;
  if (commandName === 'TransactWriteItemsCommand') {
    checkTransaction(current, input, tableName);
    return;
  }
  const known = tableCommandNamed(commandName);
  if (!known) {
    fail(current.name, `call ${commandName} on the table`);
    return;
  }
  if (known.action !== 'dynamodb:BatchGetItem' && (input as Input).TableName !== tableName) return;
  // An index's partition keys are not the table's: the stack grants index queries apart (keys-only indexes).
  if ((input as Input).IndexName !== undefined) return;
  checkKinds(
    current,
    known.action,
    current.grant?.[known.mode],
    partitionKeysOf(known.action, input, tableName),
  );
}

function checkTransaction(current: GrantScope, input: unknown, tableName: string): void {
  for (const operation of (input as Input).TransactItems ?? []) {
    for (const [name, request] of Object.entries(operation)) {
      if (request?.TableName !== tableName) continue;
      const { action, mode } = transactActionOf[name] ?? {
        action: `${name} in a transaction`,
        mode: undefined,
      };
      const allowed = mode ? current.grant?.[mode] : undefined;
      checkKinds(current, action, allowed, [text((name === 'Put' ? request.Item : request.Key)?.pk)]);
    }
  }
}

function checkKinds(
  current: GrantScope,
  action: string,
  allowed: readonly ItemKind[] = [],
  partitionKeys: readonly string[],
): void {
  for (const partitionKey of partitionKeys) {
    const kind = itemKindOf(partitionKey);
    if (!kind || !allowed.includes(kind)) {
      fail(current.name, `${action} on ${kind ?? 'an unknown kind'} (${partitionKey})`);
    }
  }
}

/** Every refusal so far: a handler may swallow the error, the runtime's stop still reports it. */
const refusals: string[] = [];

/** The refusals since the `since`-th: what a run of the local runtime's functions touched without declaring it. */
export function undeclaredTableAccesses(since = 0): readonly string[] {
  return refusals.slice(since);
}

function fail(name: string, what: string): void {
  const message = `${name} may not ${what}: its route does not declare it`;
  // Lists what a new route touches instead of stopping at the first kind it has not declared yet.
  if (process.env.TABLE_GRANT_RECORD) {
    appendFileSync(process.env.TABLE_GRANT_RECORD, `${name}\t${what}\n`);
    return;
  }
  refusals.push(message);
  throw new UndeclaredTableAccessError(message);
}

type Input = Record<string, unknown> & {
  Key?: Record<string, unknown>;
  Item?: Record<string, unknown>;
  KeyConditionExpression?: string;
  ExpressionAttributeValues?: Record<string, unknown>;
  RequestItems?: Record<string, { Keys?: Record<string, unknown>[] }>;
  TransactItems?: Record<string, Input | undefined>[];
};

function partitionKeysOf(action: string, raw: unknown, tableName: string): string[] {
  const input = raw as Input;
  switch (action) {
    case 'dynamodb:BatchGetItem':
      return Object.entries(input.RequestItems ?? {}).flatMap(([table, { Keys = [] }]) =>
        table === tableName ? Keys.map((key) => text(key.pk)) : [],
      );
    case 'dynamodb:Query': {
      const placeholder = /\bpk\s*=\s*(:\w+)/.exec(input.KeyConditionExpression ?? '')?.[1];
      return [text(placeholder ? input.ExpressionAttributeValues?.[placeholder] : undefined)];
    }
    case 'dynamodb:PutItem':
      return [text(input.Item?.pk)];
    default:
      return [text(input.Key?.pk)];
  }
}

/** A string attribute as the document client passes it, or marshalled (`{ S: … }`). */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  const marshalled = (value as { S?: unknown } | undefined)?.S;
  return typeof marshalled === 'string' ? marshalled : '';
}
