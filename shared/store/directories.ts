import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { DirectoryView } from '#shared/domain/directory';
import { dynamo, queryAll, tableName } from '#shared/store/dynamo';
import { directoryRecordKey, directoryRecordPrefix, organizationKey } from '#shared/store/keys';

/** An organization's directories: one Query on its partition, however many there are. */
export async function listDirectories(organizationId: string): Promise<DirectoryView[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': organizationKey(organizationId).pk,
      ':prefix': directoryRecordPrefix,
    },
    ConsistentRead: true,
  });
  return items.map(toDirectoryView);
}

/**
 * The organization's directories among `directoryIds`, keyed by id. An id that is absent from the result is not a
 * directory of this organization, whether it exists elsewhere or not.
 */
export async function getDirectories(
  organizationId: string,
  directoryIds: readonly string[],
): Promise<Map<string, DirectoryView>> {
  const found = new Map<string, DirectoryView>();
  const unique = [...new Set(directoryIds)];
  for (let start = 0; start < unique.length; start += 100) {
    let keys: Record<string, unknown>[] = unique
      .slice(start, start + 100)
      .map((id) => ({ ...directoryRecordKey(organizationId, id) }));
    while (keys.length > 0) {
      const { Responses, UnprocessedKeys } = await dynamo.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[tableName] ?? []) {
        const directory = toDirectoryView(item);
        found.set(directory.id, directory);
      }
      keys = (UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  }
  return found;
}

function toDirectoryView(item: Record<string, unknown>): DirectoryView {
  return {
    id: item.id as string,
    name: item.name as string,
    active: item.active as boolean,
    premium: false,
    service_ids: (item.serviceIds as string[] | undefined) ?? [],
    sdk_keys: (item.sdkKeys as string[] | undefined) ?? [],
    android_key: (item.androidKey as string | undefined) ?? null,
    ios_certificate_fingerprint: (item.iosCertificateFingerprint as string | undefined) ?? null,
    denial_context_inquiry_enabled: (item.denialContextInquiryEnabled as boolean | undefined) ?? true,
    webhook_url: (item.webhookUrl as string | undefined) ?? null,
  };
}
