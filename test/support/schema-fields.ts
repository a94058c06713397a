import type * as v from 'valibot';

/** One value a request schema reads, wherever it sits in the body. */
export interface SchemaField {
  /** `denial_reasons[].reason`: object keys joined by dots, `[]` for the items of a list. */
  readonly path: string;
  /** valibot's type of the value: string, array, number, boolean, picklist, unknown… */
  readonly type: string;
  /** The bound a `maxLength` (characters or items) or `maxValue` puts on it, if any. */
  readonly max?: number;
  /** The other actions of its pipe that constrain it (`uuid`, `regex`, `check`…). */
  readonly checks: readonly string[];
}

interface Node {
  readonly type: string;
  readonly entries?: Readonly<Record<string, Node>>;
  readonly wrapped?: Node;
  readonly item?: Node;
  readonly options?: readonly Node[];
  readonly pipe?: readonly Node[];
  readonly kind?: string;
  readonly requirement?: unknown;
}

const wrappers = new Set(['optional', 'nullable', 'nullish', 'exact_optional']);
const maxima = new Set(['max_length', 'max_value']);

/**
 * Every value a valibot request schema reads, with the bounds its pipe declares. Walks the schema objects themselves
 * (entries of objects, items of arrays, options of unions, wrapped schemas, nested pipes), so a field added to a
 * schema shows up here without anyone listing it.
 */
export function schemaFields(schema: v.GenericSchema): SchemaField[] {
  const fields: SchemaField[] = [];
  const visit = (node: Node, path: string) => {
    if (wrappers.has(node.type) && node.wrapped) return visit(node.wrapped, path);
    if (node.type === 'union') {
      for (const option of node.options ?? []) visit(option, path);
      return;
    }
    const actions = flatPipe(node);
    const bound = actions.find((action) => maxima.has(action.type) && typeof action.requirement === 'number');
    const checks = actions
      .filter((action) => action.kind === 'validation' && !maxima.has(action.type))
      .map((action) => action.type);
    if (node.entries) {
      for (const [key, entry] of Object.entries(node.entries)) visit(entry, path ? `${path}.${key}` : key);
      return;
    }
    fields.push({
      path,
      type: node.type,
      ...(bound ? { max: Number(bound.requirement) } : {}),
      checks,
    });
    if (node.type === 'array' && node.item) visit(node.item, `${path}[]`);
  };
  visit(schema, '');
  return fields;
}

/** The actions of a pipe, a schema used as a step of a pipe included (`promptText` inside `displayName`). */
function flatPipe(node: Node): Node[] {
  return (node.pipe ?? []).slice(1).flatMap((step) => (step.kind === 'schema' ? flatPipe(step) : [step]));
}
