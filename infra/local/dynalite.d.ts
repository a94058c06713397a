declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}

/** The parts of dynalite's internals that its TransactWriteItems extension reuses (dynalite 4.0). */
declare module 'dynalite/db' {
  /** An item or key in DynamoDB's wire format. */
  type AttributeMap = Record<string, Record<string, unknown>>;

  /** dynalite's errors carry the status and body it answers with. */
  interface DynaliteError extends Error {
    statusCode?: number;
    body?: { __type: string; message?: string };
  }

  interface KeySchemaElement {
    AttributeName: string;
    KeyType: string;
  }

  interface TableDescription {
    TableName: string;
    KeySchema: KeySchemaElement[];
  }

  type Release = <Done extends (...args: never[]) => void>(done: Done) => Done;

  /** A key-prefixed view of the one LevelDB database, with dynalite's per-key lock. */
  interface SubDb {
    get(key: string, callback: (error: DynaliteError | null, value?: AttributeMap) => void): void;
    put(key: string, value: AttributeMap, callback: (error?: Error | null) => void): void;
    del(key: string, callback: (error?: Error | null) => void): void;
    lock(key: string, exec: (release: Release) => void): void;
  }

  type BatchOperation = { type: 'put'; key: string; value: AttributeMap } | { type: 'del'; key: string };

  interface Store {
    options: { maxItemSize: number };
    db: { batch(operations: BatchOperation[], callback: (error?: Error | null) => void): void };
    getTable(name: string, callback: (error: DynaliteError | null, table?: TableDescription) => void): void;
    getItemDb(name: string): SubDb;
    getIndexDb(indexType: string, tableName: string, indexName: string): SubDb;
  }

  function create(options: object): Store;
  function validateItem(item: AttributeMap, table: TableDescription): DynaliteError | null | undefined;
  function validateKey(key: AttributeMap, table: TableDescription): DynaliteError | null | undefined;
  function validateUpdates(
    attributeUpdates: undefined,
    updates: unknown,
    table: TableDescription,
  ): DynaliteError | null | undefined;
  function createKey(item: AttributeMap, table: TableDescription): string;
  function checkConditional(
    data: object,
    existingItem: AttributeMap | undefined,
  ): DynaliteError | null | undefined;
  function validationError(message: string): DynaliteError;
}

declare module 'dynalite/validations' {
  import type { Store } from 'dynalite/db';

  function checkTypes(data: unknown, types: Record<string, unknown>): Record<string, unknown>;
  function checkValidations(
    data: Record<string, unknown>,
    types: Record<string, unknown>,
    custom: undefined,
    store: Store,
  ): void;
}

/** An action's request shape and its own checks, which parse the expressions into `_condition` and `_updates`. */
declare module 'dynalite/validations/*' {
  import type { Store } from 'dynalite/db';

  const types: Record<string, unknown>;
  function custom(data: Record<string, unknown>, store: Store): string | undefined;
}

/** An action: reads, checks the condition, and writes through the store it is given. */
declare module 'dynalite/actions/*' {
  import type { DynaliteError, Store } from 'dynalite/db';

  function action(store: Store, data: object, callback: (error?: DynaliteError | null) => void): void;
  export = action;
}
