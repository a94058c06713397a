import { field, h, notice } from '../authenticator/dom.ts';
import { problem } from './words.ts';

/** A labelled text input with a hint; `inputmode` brings up a number pad on a tablet where one fits. */
export function textInput(
  label: string,
  options: { value?: string | null; hint?: string; inputmode?: string; name?: string } = {},
): HTMLInputElement {
  const input = h('input', {
    type: 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    inputmode: options.inputmode,
    name: options.name,
  });
  input.value = options.value ?? '';
  field(label, input, options.hint);
  return input;
}

/** The wrapper `field()` put the input in (its label and hint). */
export const wrapperOf = (input: HTMLInputElement): HTMLElement => input.parentElement as HTMLElement;

/** A checkbox with its label after it, as a person reads a checkbox. */
export function checkbox(label: string, checked: boolean): HTMLInputElement {
  const input = h('input', { type: 'checkbox', id: `check-${Math.random().toString(36).slice(2)}` });
  input.checked = checked;
  h('div', { class: 'check' }, input, h('label', { for: input.id }, label));
  return input;
}

/**
 * Where a form says what is wrong with it (its own check, or the service's refusal) or that it worked: a live region
 * beside the form, so a screen reader says it where the person is.
 */
export interface FormNote {
  readonly element: HTMLElement;
  say(text: string, kind?: 'info' | 'error' | 'success'): void;
  refused(error: unknown): void;
  clear(): void;
}

export function formNote(): FormNote {
  const element = h('div', { class: 'form-note' });
  return {
    element,
    say: (text, kind = 'error') => element.replaceChildren(notice(text, kind)),
    refused: (error) => element.replaceChildren(notice(problem(error), 'error')),
    clear: () => element.replaceChildren(),
  };
}

/** Why a URL typed for a webhook, an icon or a callback will not do; undefined when it will. */
export function httpUrlProblem(label: string, text: string): string | undefined {
  if (text.length > 2048) return `${label} must be at most 2048 characters.`;
  if (/\s/.test(text)) return `${label} must not contain spaces.`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${label} must be a full address, such as https://example.com/path.`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `${label} must start with https:// (or http://).`;
  return undefined;
}

/** Why a name will not do (the service's rule: 1 to 200 characters once trimmed); undefined when it will. */
export function nameProblem(label: string, text: string): string | undefined {
  if (text.trim() === '') return `Enter a ${label.toLowerCase()}.`;
  if (text.trim().length > 200) return `${label} must be at most 200 characters.`;
  return undefined;
}

/** A number typed in a text box, or undefined when it is not one. */
export function numberIn(text: string): number | undefined {
  const trimmed = text.trim().replace(/^−/, '-');
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** Runs a change: the button waits while it is under way, and the note says what came of it. */
export async function acting(button: HTMLButtonElement, note: FormNote, work: () => Promise<void>) {
  button.disabled = true;
  note.clear();
  try {
    await work();
  } catch (error) {
    note.refused(error);
  } finally {
    button.disabled = false;
  }
}
