import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Organization } from '#shared/domain/organization';
import { dynamo, queryAll, tableName } from '#shared/store/dynamo';
import { organizationKey, organizationListingKey, organizationListPartition } from '#shared/store/keys';

/**
 * Writes the organization (its head, whose key set starts empty), then its listing entry; the listing carries the name so
 * lists never read each item.
 */
export async function putOrganization(organization: Organization): Promise<void> {
  const attributes = { id: organization.id, name: organization.name, created: organization.created };
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...organizationKey(organization.id), ...attributes },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...organizationListingKey(organization.id), ...attributes },
    }),
  );
}

export async function getOrganization(organizationId: string): Promise<Organization | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: organizationKey(organizationId), ConsistentRead: true }),
  );
  return Item ? toOrganization(Item) : undefined;
}

export async function listOrganizations(): Promise<Organization[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': organizationListPartition },
  });
  return items.map(toOrganization);
}

/**
 * At most `limit` organizations in id order, one read of the listing partition, and whether there are more: a bounded
 * list for a request path, where `listOrganizations` reads them all.
 */
export async function listSomeOrganizations(
  limit: number,
): Promise<{ organizations: Organization[]; more: boolean }> {
  const { Items = [], LastEvaluatedKey } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': organizationListPartition },
      Limit: limit,
    }),
  );
  return { organizations: Items.map(toOrganization), more: LastEvaluatedKey !== undefined };
}

function toOrganization(item: Record<string, unknown>): Organization {
  return { id: item.id as string, name: item.name as string, created: item.created as string };
}
