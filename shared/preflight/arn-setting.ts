import { arnLike } from '#shared/preflight/arn';

/** A deploy setting that names principals by ARN pattern (`-c keyAdministrators`), which replace its defaults. */
export interface ArnSetting {
  /** Its context name. */
  readonly context: string;
  /** The patterns the operator will deploy with (and gave preflight), if any. */
  readonly given?: readonly string[];
  /** What the stack admits without them. */
  readonly defaults: readonly string[];
}

export function patternsOf(setting: ArnSetting): readonly string[] {
  return setting.given ?? setting.defaults;
}

export function admits(setting: ArnSetting, arn: string): boolean {
  return patternsOf(setting).some((pattern) => arnLike(arn, pattern));
}

/** The one thing to do for a principal the setting leaves out. */
export function howToAdmit(setting: ArnSetting, arn: string): string {
  const option = setting.context.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return setting.given
    ? `add ${arn} to -c ${setting.context} (and to --${option} here)`
    : `deploy with -c ${setting.context}=${arn} (it replaces the defaults: name any others too, comma-separated)`;
}
