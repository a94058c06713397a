import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sessionKey } from '#shared/store/console-keys';
import { dynamo, tableName } from '#shared/store/dynamo';

/**
 * TESTS ONLY. Stands in for the sign-in approval step (the admin approving on their own linked authenticator, which
 * moves a session from `passkey` to `approved`) until that step exists: it writes the session's stage in the store
 * directly, so that the tests of the console's actions can act as roles that must be approved. Nothing outside
 * test/ may import it; the console itself has no way to do this.
 */
export async function approveSessionWithoutTheApprovalStep(cookie: string): Promise<void> {
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
