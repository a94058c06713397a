/** How a list's items are told apart on screen: `data-request="<id>"`, `data-link-request="<id>"`. */
export interface KeyedList<T> {
  readonly attribute: string;
  key(item: T): string;
  make(item: T): HTMLElement;
  /** What the list shows when it holds nothing. */
  empty?(): HTMLElement;
}

/** Whether the person is in the middle of an item: focus in it, something typed or chosen, or an answer on its way. */
export function inUse(element: HTMLElement): boolean {
  return (
    element.contains(document.activeElement) ||
    element.dataset.touched !== undefined ||
    element.querySelector('button:disabled') !== null
  );
}

/**
 * Brings a list on screen in line with what the service lists, touching only what changed: an item still listed keeps
 * its element as it is (a half-typed PIN, a chosen reason, the focus), a new one is added in the service's order, one
 * no longer listed leaves unless the person is in the middle of it (its answer then gets the service's own word).
 * Items in `gone` leave even so: they were answered here.
 */
export function showList<T>(
  container: HTMLElement,
  items: readonly T[],
  list: KeyedList<T>,
  gone = new Set<string>(),
): void {
  if (!container.dataset.keyed) {
    container.dataset.keyed = '';
    const touched = (event: Event) =>
      (event.target as HTMLElement)
        .closest<HTMLElement>(`[${list.attribute}]`)
        ?.setAttribute('data-touched', '');
    container.addEventListener('input', touched);
    container.addEventListener('change', touched);
  }
  const wanted = new Set(items.map((item) => list.key(item)));
  const onScreen = new Map<string, HTMLElement>();
  for (const child of [...container.children] as HTMLElement[]) {
    const key = child.getAttribute(list.attribute);
    if (key !== null && !gone.has(key) && (wanted.has(key) || inUse(child))) onScreen.set(key, child);
    // Removing before inserting: what stays is never moved, and moving would take the focus away.
    else child.remove();
  }
  let index = 0;
  for (const item of items) {
    const key = list.key(item);
    let element = onScreen.get(key);
    if (!element) {
      element = list.make(item);
      container.insertBefore(element, container.children[index] ?? null);
    }
    index = [...container.children].indexOf(element) + 1;
  }
  if (container.children.length === 0 && list.empty) container.append(list.empty());
}
