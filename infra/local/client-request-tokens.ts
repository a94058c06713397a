import { createHash } from 'node:crypto';
import type { DynaliteError } from 'dynalite/db';
import type { CancellationReason } from '#infra/local/transact-write-items-commit';

/** How long DynamoDB remembers a committed transaction's token. */
const windowMs = 10 * 60 * 1000;

/**
 * TransactWriteItems' ClientRequestToken as DynamoDB keeps it. The SDK puts a fresh token in every transaction it
 * sends and keeps it across its own retries, so a transaction whose answer was lost is sent again with the same token.
 * Within 10 minutes of a commit that resend succeeds without writing again; a resend with other parameters is refused
 * (IdempotentParameterMismatchException), and so is one that arrives while the first is still being applied
 * (TransactionInProgressException). A cancelled transaction leaves nothing: its resend is a new attempt.
 */
export class ClientRequestTokens {
  /** Committed tokens, oldest first: a digest of the request and when its window closes. */
  private readonly committed = new Map<string, { readonly digest: string; readonly until: number }>();
  private readonly inFlight = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs `commit` for `request` (every parameter but the token) unless the same request with `token` committed in the
   * window, in which case it succeeds at once. Answers as `commit` does: its cancellation reasons, or none.
   */
  async commitOnce(
    token: string | undefined,
    request: object,
    commit: () => Promise<readonly CancellationReason[] | undefined>,
  ): Promise<readonly CancellationReason[] | undefined> {
    if (token === undefined) return commit();
    this.forgetExpired();
    const digest = createHash('sha256').update(JSON.stringify(request)).digest('hex');
    const before = this.committed.get(token);
    if (before?.digest === digest) return undefined;
    if (before) {
      throw refusal(
        'IdempotentParameterMismatchException',
        'Request parameters do not match the parameters of the original request with this client request token',
      );
    }
    if (this.inFlight.has(token)) {
      throw refusal(
        'TransactionInProgressException',
        'The transaction with the given request token is already in progress',
      );
    }
    this.inFlight.add(token);
    try {
      const reasons = await commit();
      if (!reasons) this.committed.set(token, { digest, until: this.now() + windowMs });
      return reasons;
    } finally {
      this.inFlight.delete(token);
    }
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [token, { until }] of this.committed) {
      if (until > now) return;
      this.committed.delete(token);
    }
  }
}

function refusal(type: string, message: string): DynaliteError {
  return Object.assign(new Error(message), {
    statusCode: 400,
    body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message },
  });
}
