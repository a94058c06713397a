import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import type { ItemKey } from '#shared/store/keys';

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

/**
 * Applies the changes present to an item that must already exist; false when it does not. With nothing to change it
 * only checks that the item is there.
 */
export async function updateExistingItem<T extends object>(
  key: ItemKey,
  changes: T,
  attributes: Readonly<Record<keyof T, string>>,
): Promise<boolean> {
  const update = updateExpression(changes, attributes);
  if (!update) {
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tableName, Key: key, ProjectionExpression: 'pk', ConsistentRead: true }),
    );
    return Item !== undefined;
  }
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        ConditionExpression: 'attribute_exists(pk)',
        ...update,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}
