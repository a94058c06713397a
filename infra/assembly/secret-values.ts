import { randomInt } from 'node:crypto';

/** CloudFormation's `GenerateSecretString` of a Secrets Manager secret. */
export interface GenerateSecretString {
  readonly PasswordLength?: number;
  readonly ExcludeCharacters?: string;
  readonly ExcludePunctuation?: boolean;
  readonly ExcludeUppercase?: boolean;
  readonly ExcludeLowercase?: boolean;
  readonly ExcludeNumbers?: boolean;
  readonly IncludeSpace?: boolean;
  readonly SecretStringTemplate?: string;
  readonly GenerateStringKey?: string;
}

const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/**
 * A value as Secrets Manager generates it for a secret CloudFormation creates: random characters of the classes the
 * options keep (32 by default), alone or put under `GenerateStringKey` of the JSON template.
 */
export function generatedSecretValue(options: GenerateSecretString): string {
  const classes = [
    options.ExcludeLowercase ? '' : 'abcdefghijklmnopqrstuvwxyz',
    options.ExcludeUppercase ? '' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    options.ExcludeNumbers ? '' : '0123456789',
    options.ExcludePunctuation ? '' : punctuation,
    options.IncludeSpace ? ' ' : '',
  ].join('');
  const excluded = new Set(options.ExcludeCharacters ?? '');
  const alphabet = [...classes].filter((character) => !excluded.has(character));
  if (alphabet.length === 0) throw new Error('GenerateSecretString leaves no character to generate from');
  const length = options.PasswordLength ?? 32;
  const password = Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
  if (options.SecretStringTemplate === undefined || options.GenerateStringKey === undefined) return password;
  const template = JSON.parse(options.SecretStringTemplate) as Record<string, unknown>;
  return JSON.stringify({ ...template, [options.GenerateStringKey]: password });
}
