import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#shared/store/dynamo';
import { servicePolicyKey } from '#shared/store/keys';

/** A service's policy, stored in its printed (§8.2) form; undefined when none is set. */
export async function getServicePolicy(serviceId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: servicePolicyKey(serviceId), ConsistentRead: true }),
  );
  return Item?.policy as Record<string, unknown> | undefined;
}

export async function putServicePolicy(serviceId: string, policy: Record<string, unknown>): Promise<void> {
  await dynamo.send(
    new PutCommand({ TableName: tableName, Item: { ...servicePolicyKey(serviceId), policy } }),
  );
}

export async function deleteServicePolicy(serviceId: string): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: servicePolicyKey(serviceId) }));
}
