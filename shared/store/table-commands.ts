/** A row of a route's table grant: the item kinds it may read, or those it may write. */
export type GrantMode = 'reads' | 'writes';

/**
 * The table commands the store sends, each with the IAM action that authorizes it and the row of a route's grant that
 * holds that action; what IAM is granted (route-function.ts), what the local runtime checks (table-grant-check.ts) and
 * which commands wait for a request's first use (dynamo.ts) are read from here. No Scan, no batch writes, no index
 * (the table has none). A transaction has no action of its own: IAM authorizes each of its items by its operation's
 * action (PutItem, UpdateItem, DeleteItem).
 */
export const tableCommands = {
  GetItemCommand: { action: 'dynamodb:GetItem', mode: 'reads' },
  BatchGetItemCommand: { action: 'dynamodb:BatchGetItem', mode: 'reads' },
  QueryCommand: { action: 'dynamodb:Query', mode: 'reads' },
  PutItemCommand: { action: 'dynamodb:PutItem', mode: 'writes' },
  UpdateItemCommand: { action: 'dynamodb:UpdateItem', mode: 'writes' },
  DeleteItemCommand: { action: 'dynamodb:DeleteItem', mode: 'writes' },
} as const satisfies Record<string, { readonly action: `dynamodb:${string}`; readonly mode: GrantMode }>;

export type TableCommand = (typeof tableCommands)[keyof typeof tableCommands];

/** The command of the low-level client named `commandName`, if the store may send it outside a transaction. */
export function tableCommandNamed(commandName: string): TableCommand | undefined {
  return Object.hasOwn(tableCommands, commandName)
    ? tableCommands[commandName as keyof typeof tableCommands]
    : undefined;
}

/** The IAM actions of a grant's row. */
export function tableActionsOf(mode: GrantMode): TableCommand['action'][] {
  return Object.values(tableCommands)
    .filter((command) => command.mode === mode)
    .map((command) => command.action);
}
