import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sessionKey } from '#shared/store/console-keys';
import { dynamo, tableName } from '#shared/store/dynamo';

/**
 * Test-only: writes a session's stage `approved` into the embedded store, standing in for the approval step (a push
 * to the admin's own authenticator) that is built apart. Imported once the runtime runs.
 */
export async function approveSessionForTest(cookie: string): Promise<void> {
  const token = cookie.split('=')[1] as string;
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: sessionKey(token),
      UpdateExpression: 'SET stage = :approved',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':approved': 'approved' },
    }),
  );
}
