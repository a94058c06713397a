import type { MiddlewareObj } from '@middy/core';
import { auditNotesOf } from '#shared/audit/audit-notes';
import { type AuditRecord, changesState, outcomeOf } from '#shared/audit/audit-record';
import { authRequestEventOf } from '#shared/audit/auth-request-events';
import { auditReaderRoute } from '#shared/audit/reader-route';
import { writeAuditRecord } from '#shared/audit/write-audit-record';
import { clip } from '#shared/echo';
import { ApiError } from '#shared/errors';
import { callerAddress } from '#shared/http/caller-address';
import { type HttpEvent, requestPath } from '#shared/http/event';
import type { Reply } from '#shared/http/reply';
import type { Caller, SignedContext } from '#shared/http/signed-state';
import { logger } from '#shared/log';
import { formatEntity, sameEntity } from '#shared/protocol/entity';
import { ownershipOf } from '#shared/store/heads';

/**
 * The audit trail's one writer for signed requests: every state change that succeeded, and every refusal or failure
 * of a request whose signature verified. Requests that never verified are not recorded: anyone could send them, and
 * so write to the audit store. Attached after the response signer, so that its `after` sees the use case's reply and
 * its `onError` the error, before either becomes the HTTP response.
 */
export function recordAudit(): MiddlewareObj<HttpEvent, unknown, Error, SignedContext> {
  const recorded = new WeakSet<object>();
  const record = async (event: HttpEvent, context: SignedContext, status: number, extra: Extra) => {
    const state = context.signed;
    if (!state?.caller || recorded.has(state)) return;
    recorded.add(state);
    try {
      const record = auditRecordOf(event, state.caller, state.receivedAt, status, {
        ...extra,
        body: state.body,
      });
      if (record) await writeAuditRecord(record);
    } catch (error) {
      // Never let the record's making break the answer; the log keeps what is known.
      logger.error('Audit record could not be made', { error, status });
    }
  };
  return {
    after: async (request) => {
      const reply = request.response as Reply | undefined;
      await record(request.event, request.context, reply?.status ?? 200, {
        reply: reply?.body,
        notes: reply,
      });
    },
    onError: async (request) => {
      const error = request.error;
      const status = error instanceof ApiError ? error.status : 500;
      await record(request.event, request.context, status, {
        errorCode: error instanceof ApiError ? error.code : 'HTTP-500',
        notes: error ?? undefined,
      });
    },
  };
}

interface Extra {
  readonly reply?: unknown;
  readonly errorCode?: string;
  /** The reply or error, which a use case may have annotated (audit-notes.ts). */
  readonly notes?: object | undefined;
  readonly body?: unknown;
}

const longestValue = 256;

function auditRecordOf(
  event: HttpEvent,
  caller: Caller,
  receivedAt: number,
  status: number,
  extra: Extra,
): AuditRecord | undefined {
  const method = event.requestContext.http.method;
  const route =
    event.routeKey && event.routeKey !== '$default'
      ? event.routeKey
      : `${method} ${clip(requestPath(event), longestValue)}`;
  if (route === auditReaderRoute) return undefined;
  if (status < 400 && !changesState(method, route.slice(route.indexOf(' ') + 1))) return undefined;
  const { issuer, subject } = caller;
  const organizationId = issuer.type === 'org' ? issuer.id : ownershipOf(caller.issuerHead)?.organizationId;
  if (!organizationId) return undefined;
  const body = objectOf(extra.body);
  const reply = status < 300 ? objectOf(extra.reply) : {};
  const subjectOwnership = ownershipOf(caller.subjectHead);
  const authEvent = authRequestEventOf(route, status, extra.body);
  const fields: Record<string, unknown> = {
    organization_id: organizationId,
    time: new Date(receivedAt).toISOString(),
    request_id: event.requestContext.requestId,
    source_ip: callerAddress(event),
    actor_type: issuer.type,
    actor_id: issuer.id,
    kid: text(caller.kid),
    subject: sameEntity(issuer, subject) ? undefined : formatEntity(subject),
    operation: route,
    directory_id:
      text(body.directory_id) ?? (subject.type === 'dir' ? subject.id : subjectOwnership?.directoryId),
    service_id: text(body.service_id) ?? (subject.type === 'svc' ? subject.id : undefined),
    user:
      text(body.identifier) ??
      text(body.username) ??
      (subject.type === 'dev' ? text(caller.subjectHead?.identifier) : undefined),
    device_id:
      text(body.device_id) ?? text(reply.device_id) ?? (subject.type === 'dev' ? subject.id : undefined),
    auth_request_id: text(event.pathParameters?.auth_request) ?? text(reply.auth_request),
    target_id: text(body.key_id) ?? text(reply.id) ?? text(body.id),
    outcome: outcomeOf(status),
    status,
    error_code: extra.errorCode,
    auth_event: authEvent,
    ...auditNotesOf(caller),
    ...auditNotesOf(extra.notes),
  };
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as unknown as AuditRecord;
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A string field as recorded: ids and identifiers only, capped. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? clip(value, longestValue) : undefined;
}
