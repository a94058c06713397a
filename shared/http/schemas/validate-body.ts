import * as v from 'valibot';
import { isWellFormedText } from '#shared/domain/display-text';
import { invalidArgument } from '#shared/errors';
import { describeIssues, fieldPath } from '#shared/http/schemas/describe-issues';

/**
 * A parsed JSON request body checked against its operation's schema: the output, or ARG-001 naming the field. Every
 * string in it, keys included, must first be well-formed Unicode, whatever the schema says of the field: a lone
 * surrogate becomes U+FFFD on the way to the store, so `sur\ud800` and `sur\udc00` would be one user.
 */
export function validateBody<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const illFormed = illFormedStringPath(value);
  if (illFormed)
    throw invalidArgument(
      `${fieldPath(illFormed)}: must be well-formed Unicode text (it holds a lone surrogate)`,
    );
  const result = v.safeParse(schema, value);
  if (!result.success) throw invalidArgument(describeIssues(result.issues));
  return result.output;
}

interface Visit {
  readonly value: unknown;
  readonly key?: unknown;
  readonly parent?: Visit;
}

/**
 * The keys leading to the first ill-formed string (a key or a value), or undefined. Iterative, and each node keeps
 * only a link to its parent: a body may nest 100 000 deep, and copying paths as it goes would be quadratic.
 */
function illFormedStringPath(root: unknown): unknown[] | undefined {
  const pending: Visit[] = [{ value: root }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      if (!isWellFormedText(value)) return pathOf(visit);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, key: index, parent: visit }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (!isWellFormedText(key)) return pathOf({ value: key, key, parent: visit });
        pending.push({ value: item, key, parent: visit });
      }
    }
  }
  return undefined;
}

function pathOf(visit: Visit): unknown[] {
  const keys: unknown[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.unshift(at.key);
  return keys;
}
