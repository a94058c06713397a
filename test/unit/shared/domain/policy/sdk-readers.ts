/**
 * Stand-ins for what the SDKs do with the body of `.../service/policy/item`, written from their sources so the tests
 * can ask "would this break a client?" without a JVM or a Python runtime. Each returns the problems it found; an empty
 * list means the SDK would read the policy.
 *
 * - JV: Jackson into `transport.domain.Policy` (strict: only nine keys at every level, `Policy.MinimumRequirement`
 *   strict too, `requirement` an enum of authenticated|enabled), then
 *   `ServiceManagingBaseClient.getDomainPolicyFromTransportPolicy` (NPEs on missing values, `Day.fromString`).
 * - PY: `ServiceSecurityPolicyValidator` (formencode), then `get_advanced_service_policy`, which for LEGACY runs
 *   `ServiceSecurityPolicy.set_policy`; plus the checks of the deprecated `get_service_policy` that rebuilds the
 *   policy through `add_geofence` / `add_timefence` (names unique ignoring case).
 */

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (value: Json): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isInteger = (value: Json): value is number => typeof value === 'number' && Number.isInteger(value);
const isNumber = (value: Json): value is number => typeof value === 'number' && Number.isFinite(value);
const isAbsent = (value: Json): boolean => value === undefined || value === null;
const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const factorTypes = ['INHERENCE', 'KNOWLEDGE', 'POSSESSION'];

const javaPolicyKeys = [
  'type',
  'fences',
  'factors',
  'amount',
  'inside',
  'outside',
  'minimum_requirements',
  'deny_rooted_jailbroken',
  'deny_emulator_simulator',
];
const javaRequirementKeys = ['requirement', 'any', 'knowledge', 'inherence', 'possession'];

/** Problems JV would have reading `value` as a policy. */
export function javaProblems(value: Json): string[] {
  const problems: string[] = [];
  javaPolicy(value, 'policy', false, problems);
  return problems;
}

function javaPolicy(value: Json, path: string, nested: boolean, problems: string[]): void {
  if (!isObject(value)) {
    problems.push(`${path}: not an object`);
    return;
  }
  for (const key of Object.keys(value)) {
    if (!javaPolicyKeys.includes(key)) problems.push(`${path}.${key}: unrecognized field`);
  }
  const type = value.type;
  if (!isAbsent(type) && typeof type !== 'string') problems.push(`${path}.type: not a string`);
  for (const key of ['deny_rooted_jailbroken', 'deny_emulator_simulator']) {
    if (!isAbsent(value[key]) && typeof value[key] !== 'boolean')
      problems.push(`${path}.${key}: not a Boolean`);
    if (nested && value[key] === true) problems.push(`${path}.${key}: set on a sub-policy`);
  }
  if (!isAbsent(value.amount) && !isInteger(value.amount)) problems.push(`${path}.amount: not an Integer`);
  javaFences(value.fences, `${path}.fences`, problems);
  if (nested && Array.isArray(value.fences) && value.fences.length > 0) {
    problems.push(`${path}.fences: fences on a sub-policy`);
  }
  javaRequirements(value.minimum_requirements, `${path}.minimum_requirements`, problems);
  if (!isAbsent(value.factors) && !Array.isArray(value.factors))
    problems.push(`${path}.factors: not an array`);

  if (isAbsent(type) || type === 'LEGACY') {
    if (nested) problems.push(`${path}.type: LEGACY is not a sub-policy`);
    if (Array.isArray(value.factors)) javaLegacyFactors(value.factors, `${path}.factors`, problems);
  } else if (type === 'COND_GEO') {
    if (nested) problems.push(`${path}.type: COND_GEO is not a sub-policy`);
    for (const key of ['inside', 'outside']) {
      if (isAbsent(value[key])) problems.push(`${path}.${key}: null sub-policy (NullPointerException)`);
      else javaPolicy(value[key], `${path}.${key}`, true, problems);
    }
  } else if (type === 'METHOD_AMOUNT') {
    if (!isInteger(value.amount)) problems.push(`${path}.amount: null unboxed into int`);
  } else if (type === 'FACTORS') {
    if (Array.isArray(value.factors) && !value.factors.every((factor) => typeof factor === 'string')) {
      problems.push(`${path}.factors: textValue() of a non-text node`);
    }
  } else {
    problems.push(`${path}.type: UnknownPolicyException`);
  }
}

function javaFences(value: Json, path: string, problems: string[]): void {
  if (isAbsent(value)) return;
  if (!Array.isArray(value)) {
    problems.push(`${path}: not an array`);
    return;
  }
  value.forEach((fence, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(fence)) {
      problems.push(`${at}: not an object`);
      return;
    }
    if (!isAbsent(fence.name) && typeof fence.name !== 'string') problems.push(`${at}.name: not a String`);
    if (fence.type === 'GEO_CIRCLE') {
      for (const key of ['latitude', 'longitude', 'radius']) {
        if (!isNumber(fence[key])) problems.push(`${at}.${key}: null Double unboxed`);
      }
    } else if (fence.type === 'TERRITORY') {
      if (typeof fence.country !== 'string') problems.push(`${at}.country: not a String`);
      for (const key of ['administrative_area', 'postal_code']) {
        if (!isAbsent(fence[key]) && typeof fence[key] !== 'string')
          problems.push(`${at}.${key}: not a String`);
      }
    } else {
      problems.push(`${at}.type: UnknownFenceTypeException`);
    }
  });
}

function javaRequirements(value: Json, path: string, problems: string[]): void {
  if (isAbsent(value)) return;
  if (!Array.isArray(value)) {
    problems.push(`${path}: not an array`);
    return;
  }
  value.forEach((requirement, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(requirement)) {
      problems.push(`${at}: not an object`);
      return;
    }
    for (const key of Object.keys(requirement)) {
      if (!javaRequirementKeys.includes(key)) problems.push(`${at}.${key}: unrecognized field`);
    }
    if (
      !isAbsent(requirement.requirement) &&
      !['authenticated', 'enabled'].includes(requirement.requirement as string)
    ) {
      problems.push(`${at}.requirement: not one of the enum values`);
    }
    for (const key of ['any', 'knowledge', 'inherence', 'possession']) {
      if (!isAbsent(requirement[key]) && !isInteger(requirement[key]))
        problems.push(`${at}.${key}: not an Integer`);
    }
  });
}

function javaLegacyFactors(factors: Json[], path: string, problems: string[]): void {
  factors.forEach((factor, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(factor) || typeof factor.factor !== 'string' || !isObject(factor.attributes)) {
      problems.push(`${at}: needs a textual "factor" and an "attributes" object`);
      return;
    }
    const attributes = factor.attributes;
    if (factor.factor === 'geofence') {
      const locations = attributes.locations;
      if (!Array.isArray(locations)) {
        problems.push(`${at}.attributes.locations: missing`);
        return;
      }
      locations.forEach((location, locationIndex) => {
        const locationAt = `${at}.attributes.locations[${locationIndex}]`;
        if (!isObject(location)) {
          problems.push(`${locationAt}: not an object`);
          return;
        }
        // has("name") then asText(): a null name would come back as the string "null".
        if ('name' in location && typeof location.name !== 'string')
          problems.push(`${locationAt}.name: not text`);
        for (const key of ['latitude', 'longitude', 'radius']) {
          if (!isNumber(location[key])) problems.push(`${locationAt}.${key}: not a number`);
        }
      });
    } else if (factor.factor === 'device integrity') {
      if (!isInteger(attributes['factor enabled']))
        problems.push(`${at}.attributes["factor enabled"]: not an int`);
    } else if (factor.factor === 'timefence') {
      const fences = attributes['time fences'];
      if (!Array.isArray(fences)) {
        problems.push(`${at}.attributes["time fences"]: missing`);
        return;
      }
      fences.forEach((fence, fenceIndex) => {
        const fenceAt = `${at}.attributes["time fences"][${fenceIndex}]`;
        if (!isObject(fence)) {
          problems.push(`${fenceAt}: not an object`);
          return;
        }
        if (typeof fence.name !== 'string') problems.push(`${fenceAt}.name: missing`);
        if (!Array.isArray(fence.days) || !fence.days.every((day) => days.includes(day as string))) {
          problems.push(`${fenceAt}.days: Day.fromString fails`);
        }
        for (const key of ['start hour', 'start minute', 'end hour', 'end minute']) {
          if (!isInteger(fence[key])) problems.push(`${fenceAt}["${key}"]: not an int`);
        }
        if (typeof fence.timezone !== 'string') problems.push(`${fenceAt}.timezone: missing`);
      });
    }
  });
}

/** Problems PY would have reading `value` through get_advanced_service_policy and the deprecated getter. */
export function pythonProblems(value: Json): string[] {
  const problems: string[] = [];
  pythonPolicy(value, 'policy', false, problems);
  return problems;
}

function pythonPolicy(value: Json, path: string, nested: boolean, problems: string[]): void {
  if (!isObject(value)) {
    problems.push(`${path}: The input must be dict-like`);
    return;
  }
  const type = value.type === undefined ? 'LEGACY' : value.type;
  if (typeof type !== 'string' || type === '') problems.push(`${path}.type: Please enter a value`);
  pythonFences(value.fences, `${path}.fences`, problems);
  for (const key of ['deny_rooted_jailbroken', 'deny_emulator_simulator']) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean')
      problems.push(`${path}.${key}: not a bool`);
  }
  if (nested) {
    if (type !== 'METHOD_AMOUNT' && type !== 'FACTORS') problems.push(`${path}.type: UnknownPolicyException`);
    if (Array.isArray(value.fences) && value.fences.length > 0) {
      problems.push(`${path}.fences: InvalidPolicyAttributes (fences on inside/outside)`);
    }
  }
  switch (type) {
    case 'COND_GEO':
      for (const key of ['inside', 'outside']) {
        if (isAbsent(value[key]) || (isObject(value[key]) && Object.keys(value[key]).length === 0)) {
          problems.push(`${path}.${key}: Please enter a value`);
        } else {
          pythonPolicy(value[key], `${path}.${key}`, true, problems);
        }
      }
      if (!Array.isArray(value.fences) || value.fences.length === 0) {
        problems.push(`${path}.fences: Please enter a value`);
      }
      break;
    case 'METHOD_AMOUNT':
      if (!isInteger(value.amount)) problems.push(`${path}.amount: Please enter an integer value`);
      break;
    case 'FACTORS': {
      const factors = value.factors;
      if (!Array.isArray(factors) || factors.length === 0) {
        problems.push(`${path}.factors: Please enter a value`);
      } else {
        if (!factors.every((factor) => factorTypes.includes(factor as string))) {
          problems.push(`${path}.factors: Value must be one of: KNOWLEDGE; INHERENCE; POSSESSION`);
        }
        const ordered = factorTypes.filter((factor) => factors.includes(factor));
        if (JSON.stringify(ordered) !== JSON.stringify(factors)) {
          problems.push(`${path}.factors: not ordered INHERENCE, KNOWLEDGE, POSSESSION`);
        }
      }
      break;
    }
    case 'LEGACY':
      pythonLegacy(value, path, problems);
      break;
    default:
      problems.push(`${path}.type: UnknownPolicyException`);
  }
}

function pythonFences(value: Json, path: string, problems: string[]): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    problems.push(`${path}: not a list`);
    return;
  }
  value.forEach((fence, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(fence)) {
      problems.push(`${at}: The input must be dict-like`);
      return;
    }
    if (typeof fence.type !== 'string' || fence.type === '')
      problems.push(`${at}.type: Please enter a value`);
    // validators.String(if_missing=None, not_empty=True): missing is fine, null or "" is not.
    if ('name' in fence && (typeof fence.name !== 'string' || fence.name === '')) {
      problems.push(`${at}.name: Please enter a value`);
    }
    if (fence.type === 'TERRITORY') {
      if (typeof fence.country !== 'string' || fence.country === '')
        problems.push(`${at}.country: Please enter a value`);
      for (const key of ['administrative_area', 'postal_code']) {
        if (!isAbsent(fence[key]) && typeof fence[key] !== 'string')
          problems.push(`${at}.${key}: not a string`);
      }
    } else if (fence.type === 'GEO_CIRCLE') {
      for (const key of ['latitude', 'longitude', 'radius']) {
        if (!isNumber(fence[key])) problems.push(`${at}.${key}: Please enter a number`);
      }
    } else {
      problems.push(`${at}.type: InvalidFenceType`);
    }
  });
}

function pythonLegacy(value: JsonObject, path: string, problems: string[]): void {
  if (!('minimum_requirements' in value) || !('factors' in value)) {
    problems.push(`${path}: InvalidPolicyFormat (needs minimum_requirements and factors)`);
    return;
  }
  const requirements = value.minimum_requirements;
  if (!Array.isArray(requirements)) {
    problems.push(`${path}.minimum_requirements: not a list`);
  } else if (requirements.length > 0 && !isObject(requirements[0])) {
    problems.push(`${path}.minimum_requirements[0]: not a dict`);
  }
  const factors = value.factors;
  if (!Array.isArray(factors)) {
    problems.push(`${path}.factors: not a list`);
    return;
  }
  const locationNames: string[] = [];
  const timeFenceNames: string[] = [];
  factors.forEach((factor, index) => {
    const at = `${path}.factors[${index}]`;
    if (!isObject(factor)) {
      problems.push(`${at}: not a dict`);
      return;
    }
    const attributes = factor.attributes;
    if (!isObject(attributes)) return;
    if (factor.factor === 'geofence' && 'locations' in attributes) {
      const locations = Array.isArray(attributes.locations) ? attributes.locations : [];
      locations.forEach((location, locationIndex) => {
        const locationAt = `${at}.attributes.locations[${locationIndex}]`;
        if (!isObject(location)) return problems.push(`${locationAt}: not a dict`);
        for (const key of ['latitude', 'longitude', 'radius']) {
          if (!isNumber(location[key])) problems.push(`${locationAt}.${key}: float() fails`);
        }
        if (typeof location.name === 'string') locationNames.push(location.name.toLowerCase());
      });
    }
    if (factor.factor === 'timefence' && 'time fences' in attributes) {
      const fences = Array.isArray(attributes['time fences']) ? attributes['time fences'] : [];
      fences.forEach((fence, fenceIndex) => {
        const fenceAt = `${at}.attributes["time fences"][${fenceIndex}]`;
        if (!isObject(fence)) return problems.push(`${fenceAt}: not a dict`);
        if (typeof fence.name !== 'string') problems.push(`${fenceAt}.name: KeyError`);
        else timeFenceNames.push(fence.name.toLowerCase());
        const weekdays = days.map((day) => day.toLowerCase());
        if (
          !Array.isArray(fence.days) ||
          !fence.days.every((day) => typeof day === 'string' && weekdays.includes(day.toLowerCase()))
        ) {
          problems.push(`${fenceAt}.days: TimeFence() got an unexpected keyword argument`);
        }
        for (const [key, max] of [
          ['start hour', 23],
          ['end hour', 23],
          ['start minute', 59],
          ['end minute', 59],
        ] as const) {
          const number = fence[key];
          if (!isInteger(number) || number < 0 || number > max)
            problems.push(`${fenceAt}["${key}"]: datetime.time fails`);
        }
        if (typeof fence.timezone !== 'string') problems.push(`${fenceAt}.timezone: pytz.timezone fails`);
      });
    }
  });
  if (new Set(locationNames).size !== locationNames.length) problems.push(`${path}: DuplicateGeoFenceName`);
  if (new Set(timeFenceNames).size !== timeFenceNames.length)
    problems.push(`${path}: DuplicateTimeFenceName`);
}

/** What an SDK makes of the `auth_policy` in a device's answer. */
export interface ReadAuthPolicy {
  /** The SDK's Requirement: AMOUNT, TYPES, COND_GEO, OTHER, or null (JV's "no requirement"). */
  readonly requirement: string | null;
  readonly amount: number;
  readonly inherence: boolean;
  readonly knowledge: boolean;
  readonly possession: boolean;
  /** Each fence as the SDK's class for it: GeoCircle or Territory. */
  readonly fences: readonly string[];
}

function readFence(fence: Json, sdk: string): string {
  if (!isObject(fence)) throw new Error(`${sdk}: a geofence is not an object`);
  if (isAbsent(fence.type) || fence.type === 'GEO_CIRCLE') {
    for (const key of ['latitude', 'longitude', 'radius']) {
      if (!isNumber(fence[key])) throw new Error(`${sdk}: a circle has no numeric ${key}`);
    }
    return 'GeoCircle';
  }
  if (fence.type === 'TERRITORY') {
    if (typeof fence.country !== 'string') throw new Error(`${sdk}: a territory has no country`);
    return 'Territory';
  }
  throw new Error(`${sdk}: unknown fence type ${String(fence.type)}`);
}

/**
 * PY `AdvancedAuthorizationResponse._parse_and_set_auth_policy`: `requirement` must be present; a falsy one (null)
 * leaves the policy's requirement at OTHER; `amount` is read only for "amount"; `types` only for "types", through
 * one-shot iterator membership tests in the order inherence, knowledge, possession (the SDK's bug: a type listed
 * before one already found is missed).
 */
export function pythonAuthPolicy(authPolicy: Json): ReadAuthPolicy {
  if (!isObject(authPolicy) || !('requirement' in authPolicy)) throw new Error('PY: KeyError requirement');
  const requirement = authPolicy.requirement;
  const known = ['AMOUNT', 'TYPES', 'COND_GEO'];
  const upper = typeof requirement === 'string' ? requirement.toUpperCase() : '';
  const types =
    requirement === 'types' && Array.isArray(authPolicy.types) ? authPolicy.types.map(String) : [];
  let at = 0;
  const consume = (type: string) => {
    while (at < types.length) if (types[at++]?.toLowerCase() === type) return true;
    return false;
  };
  const [inherence, knowledge, possession] = [
    consume('inherence'),
    consume('knowledge'),
    consume('possession'),
  ];
  return {
    requirement: requirement ? (known.includes(upper) ? upper : 'OTHER') : 'OTHER',
    amount: requirement === 'amount' ? Number(authPolicy.amount) : 0,
    inherence,
    knowledge,
    possession,
    fences: Array.isArray(authPolicy.geofences)
      ? authPolicy.geofences.map((fence) => readFence(fence, 'PY'))
      : [],
  };
}

/**
 * JV `BasicServiceClient.getAuthorizationResponsePolicy`: Jackson into `AuthResponsePolicy` (an absent amount is 0,
 * unknown keys ignored), then `getRequirement` (the lower-case strings compared exactly; null stays null) and
 * `types.contains` for each type.
 */
export function javaAuthPolicy(authPolicy: Json): ReadAuthPolicy {
  if (!isObject(authPolicy)) throw new Error('JV: auth_policy is not an object');
  const requirement = authPolicy.requirement;
  if (!isAbsent(requirement) && typeof requirement !== 'string')
    throw new Error('JV: requirement is not a String');
  if (!isAbsent(authPolicy.amount) && !isInteger(authPolicy.amount))
    throw new Error('JV: amount is not an int');
  const byName: Record<string, string> = { types: 'TYPES', amount: 'AMOUNT', cond_geo: 'COND_GEO' };
  const types = Array.isArray(authPolicy.types) ? authPolicy.types : [];
  return {
    requirement: isAbsent(requirement) ? null : (byName[requirement as string] ?? 'OTHER'),
    amount: isInteger(authPolicy.amount) ? authPolicy.amount : 0,
    inherence: types.includes('inherence'),
    knowledge: types.includes('knowledge'),
    possession: types.includes('possession'),
    fences: Array.isArray(authPolicy.geofences)
      ? authPolicy.geofences.map((fence) => readFence(fence, 'JV'))
      : [],
  };
}
