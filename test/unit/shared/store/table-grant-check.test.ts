import { describe, expect, it } from 'vitest';
import { checkTableAccess, undeclaredTableAccesses, withTableGrant } from '#shared/store/table-grant-check';

describe('the local grant check', () => {
  const table = 'main';
  const get = (pk: string) => ({ TableName: table, Key: { pk: { S: pk }, sk: { S: 'HEAD' } } });

  it('allows everything outside a grant, as in AWS, where IAM decides', () => {
    expect(() => checkTableAccess('DeleteItemCommand', get('DIR#d1'), table)).not.toThrow();
  });

  it('allows the declared kinds, reads apart from writes, and refuses the rest as IAM would', () => {
    const grant = { reads: ['directory'], writes: ['jti'] } as const;
    withTableGrant('Fn', grant, () => {
      expect(() => checkTableAccess('GetItemCommand', get('DIR#d1'), table)).not.toThrow();
      expect(() =>
        checkTableAccess('PutItemCommand', { TableName: table, Item: { pk: 'JTI#x', sk: 'JTI' } }, table),
      ).not.toThrow();
      expect(() => checkTableAccess('UpdateItemCommand', get('DIR#d1'), table)).toThrow(
        /Fn may not dynamodb:UpdateItem on directory/,
      );
      expect(() => checkTableAccess('GetItemCommand', get('JTI#x'), table)).toThrow(/GetItem on jti/);
      expect(() =>
        checkTableAccess(
          'QueryCommand',
          {
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: 'AUTH#a' } },
          },
          table,
        ),
      ).toThrow(/Query on authRequest/);
      expect(() =>
        checkTableAccess(
          'BatchGetItemCommand',
          { RequestItems: { [table]: { Keys: [{ pk: { S: 'DIR#d1' } }, { pk: { S: 'SVC#s1' } }] } } },
          table,
        ),
      ).toThrow(/BatchGetItem on service/);
      expect(() => checkTableAccess('ScanCommand', { TableName: table }, table)).toThrow(/ScanCommand/);
    });
  });

  it('checks each operation of a transaction as IAM does: its own action on its own item', () => {
    const grant = { reads: ['directory'], writes: ['authRequest', 'jti'] } as const;
    const transaction = (...operations: Record<string, unknown>[]) => ({ TransactItems: operations });
    const key = (pk: string) => ({ TableName: table, Key: { pk, sk: 'HEAD' } });
    withTableGrant('Fn', grant, () => {
      expect(() =>
        checkTableAccess(
          'TransactWriteItemsCommand',
          transaction(
            { Put: { TableName: table, Item: { pk: 'JTI#x', sk: 'JTI' } } },
            { Update: key('AUTH#a') },
            { Delete: key('AUTH#b') },
            { Put: { TableName: 'other', Item: { pk: 'DIR#d1' } } },
          ),
          table,
        ),
      ).not.toThrow();
      expect(() =>
        checkTableAccess(
          'TransactWriteItemsCommand',
          transaction({ Update: key('AUTH#a') }, { Update: key('DIR#d1') }),
          table,
        ),
      ).toThrow(/Fn may not dynamodb:UpdateItem on directory \(DIR#d1\)/);
      expect(() =>
        checkTableAccess(
          'TransactWriteItemsCommand',
          transaction({ Delete: { TableName: table, Key: { pk: { S: 'SVC#s1' } } } }),
          table,
        ),
      ).toThrow(/DeleteItem on service/);
      expect(() =>
        checkTableAccess('TransactWriteItemsCommand', transaction({ ConditionCheck: key('AUTH#a') }), table),
      ).toThrow(/Fn may not dynamodb:ConditionCheckItem on authRequest/);
    });
  });

  it('leaves other tables to their own grants', () => {
    withTableGrant('Fn', undefined, () => {
      expect(() =>
        checkTableAccess('PutItemCommand', { TableName: 'other', Item: { pk: 'X' } }, table),
      ).not.toThrow();
      expect(() => checkTableAccess('GetItemCommand', get('API'), table)).toThrow(/GetItem on apiPublicKey/);
    });
  });

  it('remembers each refusal, so that a handler that swallows the error still fails the run', () => {
    const before = undeclaredTableAccesses().length;
    withTableGrant('Quiet', { reads: [], writes: [] }, () => {
      try {
        checkTableAccess('DeleteItemCommand', get('LINKCODE#ABC'), table);
      } catch {
        // A handler that catches store failures.
      }
    });
    expect(undeclaredTableAccesses(before)).toEqual([
      'Quiet may not dynamodb:DeleteItem on linkCode (LINKCODE#ABC): its route does not declare it',
    ]);
  });
});
