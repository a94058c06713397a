/**
 * An UpdateItem expression that sets the present non-null fields and removes the null ones; undefined when nothing
 * is to change.
 */
export function updateExpression<T extends object>(
  changes: T,
  attributes: Readonly<Record<keyof T, string>>,
):
  | {
      UpdateExpression: string;
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues?: Record<string, unknown>;
    }
  | undefined {
  const sets: string[] = [];
  const removes: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(changes) as [keyof T & string, unknown][]) {
    if (value === undefined) continue;
    const name = `#${field}`;
    names[name] = attributes[field];
    if (value === null) removes.push(name);
    else {
      sets.push(`${name} = :${field}`);
      values[`:${field}`] = value;
    }
  }
  if (sets.length === 0 && removes.length === 0) return undefined;
  return {
    UpdateExpression: [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
    ExpressionAttributeNames: names,
    ...(sets.length ? { ExpressionAttributeValues: values } : {}),
  };
}
