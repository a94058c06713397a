import type * as v from 'valibot';
import { echoLength, quote } from '#shared/echo';

/**
 * `field.path: message` for each issue, so that the caller learns which field was wrong and why. valibot's own
 * messages end with the value received; that value, and any key of the caller's in the path, is cut to a short prefix.
 */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issuePath(issue)}: ${issueMessage(issue)}`)
    .join('; ');
}

const plainKey = /^[\w$-]+$/;

function issuePath(issue: v.BaseIssue<unknown>): string {
  return fieldPath((issue.path ?? []).map((item) => item.key));
}

/** `denial_reasons[1].reason` for the keys leading to a field; a caller's odd or long key goes quoted in brackets. */
export function fieldPath(keys: readonly unknown[]): string {
  if (keys.length === 0) return 'body';
  return keys
    .map((key, index) => {
      const text = String(key);
      if (plainKey.test(text) && text.length <= echoLength) return index === 0 ? text : `.${text}`;
      return `[${quote(text)}]`;
    })
    .join('');
}

function issueMessage(issue: v.BaseIssue<unknown>): string {
  const { message, received, input } = issue;
  if (typeof input !== 'string' || !message.endsWith(received)) return message;
  return `${message.slice(0, message.length - received.length)}${quote(input)}`;
}
