import type { AuthFactor, InnerPolicy } from '#shared/domain/policy/advanced';
import type { Fence, GeoCircle } from '#shared/domain/policy/fences';
import type { ServicePolicy } from '#shared/domain/policy/service-policy';

/**
 * A service policy in one sentence, as the console shows it beside its editor: what a user must verify, where, and on
 * which devices. Names in it are the admin's own input and are quoted as text; the page shows the sentence as text.
 */
export function summarizeServicePolicy(policy: ServicePolicy): string {
  const parts: string[] = [];
  if (policy.type === 'LEGACY') {
    // A LEGACY policy asks for factor types or an amount, never both (the parser refuses that).
    const types = legacyFactors(policy);
    parts.push(
      types.length > 0
        ? factorList(types)
        : policy.amount > 0
          ? methods(policy.amount)
          : 'Nothing beyond the linked device',
    );
    if (policy.geofence) parts.push(`inside ${fenceList(policy.geofence.locations.map(circle))}`);
    if (policy.timefence)
      parts.push(
        `at ${listOf(
          policy.timefence.timeFences.map((fence) => quoted(fence.name)),
          'or',
        )}`,
      );
    if (policy.deviceIntegrity) parts.push('not on a rooted or jailbroken device');
  } else if (policy.type === 'COND_GEO') {
    parts.push(`Inside ${fenceList(policy.fences.map(fence))}: ${inner(policy.inside)}`);
    parts.push(`outside: ${inner(policy.outside)}`);
  } else {
    parts.push(inner(policy));
    if (policy.fences.length > 0) parts.push(`inside ${fenceList(policy.fences.map(fence))}`);
  }
  if (policy.type !== 'LEGACY') {
    if (policy.denyRootedJailbroken) parts.push('not on a rooted or jailbroken device');
    if (policy.denyEmulatorSimulator) parts.push('not on an emulator or simulator');
  }
  return `${parts.join('; ')}.`;
}

const factorNames: Readonly<Record<AuthFactor, string>> = {
  INHERENCE: 'inherence (something the user is)',
  KNOWLEDGE: 'knowledge (something the user knows)',
  POSSESSION: 'possession (something the user has)',
};

function legacyFactors(policy: {
  readonly inherence: boolean;
  readonly knowledge: boolean;
  readonly possession: boolean;
}): AuthFactor[] {
  return (['INHERENCE', 'KNOWLEDGE', 'POSSESSION'] as const).filter(
    (factor) => policy[factor.toLowerCase() as 'inherence' | 'knowledge' | 'possession'],
  );
}

const factorList = (factors: readonly AuthFactor[]) =>
  `Factors: ${listOf(
    factors.map((factor) => factorNames[factor]),
    'and',
  )}`;

const methods = (amount: number) => `At least ${amount} ${amount === 1 ? 'method' : 'methods'}`;

function inner(rule: InnerPolicy): string {
  if (rule.type === 'FACTORS') return factorList(rule.factors);
  return rule.amount > 0 ? methods(rule.amount) : 'Nothing beyond the linked device';
}

function fence(one: Fence): string {
  if (one.type === 'GEO_CIRCLE') return circle(one);
  const place = [one.administrativeArea ?? one.country, one.postalCode].filter(Boolean).join(' ');
  return `${one.name === null ? '' : `${quoted(one.name)}: `}${place}`;
}

function circle(one: GeoCircle): string {
  const radius = one.radius >= 1000 ? `${round(one.radius / 1000)} km` : `${round(one.radius)} m`;
  return `${one.name === null ? '' : `${quoted(one.name)}: `}${radius} around ${round(one.latitude, 5)}, ${round(one.longitude, 5)}`;
}

const fenceList = (fences: readonly string[]) => listOf(fences, 'or');

const quoted = (name: string) => `“${name}”`;

function round(value: number, digits = 1): string {
  return String(Number(value.toFixed(digits)));
}

function listOf(items: readonly string[], conjunction: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}
