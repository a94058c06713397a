/** Attributes of `h`: properties set as attributes, `on*` functions as listeners. */
type Attributes = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;
type Child = Node | string | false | null | undefined;

/**
 * Builds an element: a few lines instead of a UI library, and text only ever set as text (never parsed as HTML), so
 * what a service or request says cannot become markup.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** A labelled input: the label names it for screen readers, the hint is read after it. */
export function field(
  label: string,
  input: HTMLInputElement,
  hint?: string,
): { wrapper: HTMLElement; input: HTMLInputElement } {
  const id = input.id || `field-${Math.random().toString(36).slice(2)}`;
  input.id = id;
  const hintElement = hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : undefined;
  if (hintElement) input.setAttribute('aria-describedby', hintElement.id);
  return { wrapper: h('div', { class: 'field' }, h('label', { for: id }, label), input, hintElement), input };
}

/** A message in a live region, so a screen reader says it when it appears. */
export function notice(
  text: string | readonly (string | Node)[],
  kind: 'info' | 'error' | 'success' = 'info',
): HTMLElement {
  const parts = typeof text === 'string' ? [text] : text;
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...parts);
}
