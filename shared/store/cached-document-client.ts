import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type marshallOptions, marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * lib-dynamodb's document commands, sent through the low-level client with each command's middleware resolved once.
 * The SDK builds a command's whole middleware stack on every send unless the client caches it, and the document
 * client refuses that cache: it marshals through middleware it adds to every command. Here the marshalling is done
 * around the send instead, by the document commands' own maps of which members hold attribute values, with
 * lib-dynamodb's options; the low-level command is sent through a handler built once per command class. About a
 * tenth of the client's CPU per round trip against lib-dynamodb's client with the same middleware
 * (`npm run bench -- --only store-client`).
 */
export interface CachedDocumentClient {
  send<Output>(command: DocumentCommand<Output>): Promise<Output>;
  /** The low-level client's stack: a middleware added or removed here applies from the next send on. */
  readonly middlewareStack: DynamoDBClient['middlewareStack'];
  readonly config: DynamoDBClient['config'];
}

/** A document command of lib-dynamodb's (its output type is what its handler resolves to). */
export interface DocumentCommand<Output> {
  readonly input: object;
  resolveMiddleware(...args: never[]): (args: never) => Promise<{ output: Output }>;
}

interface CommandParts {
  readonly input: object;
  readonly clientCommand: { constructor: new (input: object) => LowLevelCommand };
  readonly inputKeyNodes: KeyNodes;
  readonly outputKeyNodes: KeyNodes;
}

/** A command of the low-level client: its input holds DynamoDB's attribute values. */
export interface LowLevelCommand {
  readonly input: object;
  resolveMiddleware(stack: unknown, config: unknown, options: unknown): Handler;
}
type Handler = (command: LowLevelCommand) => Promise<{ output: object }>;

/** lib-dynamodb's map: null is a value itself, {} every value of a map, [] every member of a list, '*' each entry. */
type KeyNodes = null | MemberNodes | readonly [];
interface MemberNodes {
  readonly [key: string]: KeyNodes;
}

/**
 * A document command as the low-level command it stands for: the same class lib-dynamodb would send, with every
 * value its input holds marshalled as lib-dynamodb marshals it (`options` over lib-dynamodb's own defaults).
 */
export function lowLevelCommand(command: object, options: marshallOptions): LowLevelCommand {
  const parts = command as CommandParts;
  const marshalling = { convertTopLevelContainer: true, ...options };
  return new parts.clientCommand.constructor(
    mapValues(parts.input, parts.inputKeyNodes, (value) => marshall(value, marshalling)),
  );
}

/** A low-level answer to `command` with every value it holds unmarshalled, as lib-dynamodb's client answers. */
export function documentOutput<Output>(command: DocumentCommand<Output>, output: object): Output {
  const { outputKeyNodes } = command as unknown as CommandParts;
  return mapValues(output, outputKeyNodes, (value) =>
    unmarshall(value as never, { convertWithoutMapWrapper: true }),
  ) as Output;
}

export function cachedDocumentClient(
  client: DynamoDBClient,
  options: { readonly marshall: marshallOptions },
): CachedDocumentClient {
  let handlers = new Map<unknown, Handler>();
  const stack = client.middlewareStack;
  // A test's fault injector or a tracer may change the stack after the first sends: the next send rebuilds.
  const middlewareStack = Object.create(stack) as typeof stack;
  for (const name of ['add', 'addRelativeTo', 'remove', 'removeByTag', 'use'] as const) {
    Object.defineProperty(middlewareStack, name, {
      value: (...args: unknown[]) => {
        handlers = new Map();
        return (stack as unknown as Record<typeof name, (...args: unknown[]) => unknown>)[name](...args);
      },
    });
  }
  return {
    middlewareStack,
    config: client.config,
    async send<Output>(command: DocumentCommand<Output>): Promise<Output> {
      const lowLevel = lowLevelCommand(command, options.marshall);
      let handler = handlers.get(lowLevel.constructor);
      if (!handler) {
        handler = lowLevel.resolveMiddleware(stack, client.config, undefined);
        handlers.set(lowLevel.constructor, handler);
      }
      const { output } = await handler(lowLevel);
      return documentOutput(command, output);
    },
  };
}

/** `object` with every value `nodes` points at converted by `convert`, as lib-dynamodb's marshalling walks it. */
function mapValues(object: object, nodes: KeyNodes, convert: (value: unknown) => unknown): object {
  return mapMembers(
    object,
    nodes === null || Array.isArray(nodes) ? {} : (nodes as MemberNodes),
    convert,
  ) as object;
}

function mapNode(value: unknown, nodes: KeyNodes, convert: (value: unknown) => unknown): unknown {
  if (value === undefined) return undefined;
  if (nodes === null) return convert(value);
  if (Array.isArray(nodes)) return mapAll(value, null, convert);
  const members = nodes as MemberNodes;
  const keys = Object.keys(members);
  if (keys.length === 0) return mapAll(value, null, convert);
  if (keys.length === 1 && keys[0] === '*') return mapAll(value, members['*'] ?? null, convert);
  return mapMembers(value, members, convert);
}

/** Each member of a list, or each value of a map, through `nodes`. */
function mapAll(value: unknown, nodes: KeyNodes, convert: (value: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((member) => mapNode(member, nodes, convert));
  return Object.fromEntries(
    Object.entries(value as object).flatMap(([key, member]) => {
      const mapped = mapNode(member, nodes, convert);
      return mapped === undefined ? [] : [[key, mapped]];
    }),
  );
}

/** The named members through their own nodes, every other member as it is. */
function mapMembers(value: unknown, nodes: MemberNodes, convert: (value: unknown) => unknown): unknown {
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, inner] of Object.entries(nodes)) {
    const mapped = mapNode(copy[key], inner, convert);
    if (mapped !== undefined) copy[key] = mapped;
  }
  return copy;
}
