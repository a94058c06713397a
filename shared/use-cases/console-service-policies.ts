import { parseServicePolicy } from '#shared/domain/policy/service-policy';
import { summarizeServicePolicy } from '#shared/domain/policy/summary';
import type { Service } from '#shared/domain/service';
import { ApiError } from '#shared/errors';
import type { ConsoleServicePolicy } from '#shared/http/schemas/console-services';
import { readServicePolicy, removeServicePolicy, setServicePolicy } from '#shared/use-cases/service-policies';

/** A service's policy as the console shows it: the signed API's form, and a sentence saying what it asks. */
export interface ConsolePolicyView {
  readonly policy: Record<string, unknown>;
  readonly summary: string;
}

export async function consoleServicePolicy(service: Service): Promise<ConsolePolicyView> {
  const policy = await readServicePolicy(service.owner, service.id);
  return { policy, summary: summarizeServicePolicy(parseServicePolicy(policy)) };
}

/** Sets the policy the editor's form describes, through the signed API's use case (SVC-002 with its reason). */
export async function setConsoleServicePolicy(
  service: Service,
  form: ConsoleServicePolicy,
): Promise<ConsolePolicyView> {
  const policy = wirePolicy(form);
  if (!policy) throw new ApiError('SVC-002', 'policy: give factors or an amount, not both');
  await setServicePolicy(service.owner, service.id, policy);
  return consoleServicePolicy(service);
}

export async function removeConsoleServicePolicy(service: Service): Promise<ConsolePolicyView> {
  await removeServicePolicy(service.owner, service.id);
  return consoleServicePolicy(service);
}

/**
 * The editor's form as the signed API's policy (docs/protocol.md#policies): FACTORS when factors are given, else
 * METHOD_AMOUNT (0 demands nothing beyond the device). Both at once is the editor's mistake, and is refused.
 */
export function wirePolicy(form: ConsoleServicePolicy): Record<string, unknown> | undefined {
  if (form.factors !== undefined && form.amount !== undefined) return undefined;
  const fences = (form.fences ?? []).map((fence) =>
    fence.type === 'circle'
      ? {
          type: 'GEO_CIRCLE',
          name: fence.name ?? null,
          latitude: fence.latitude,
          longitude: fence.longitude,
          radius: fence.radius,
        }
      : {
          type: 'TERRITORY',
          name: fence.name ?? null,
          country: fence.country,
          administrative_area: fence.administrative_area ?? null,
          postal_code: fence.postal_code ?? null,
        },
  );
  const flags = {
    fences,
    deny_rooted_jailbroken: form.deny_rooted_jailbroken ?? false,
    deny_emulator_simulator: form.deny_emulator_simulator ?? false,
  };
  return form.factors !== undefined
    ? { type: 'FACTORS', factors: form.factors.map((factor) => factor.toUpperCase()), ...flags }
    : { type: 'METHOD_AMOUNT', amount: form.amount ?? 0, ...flags };
}
