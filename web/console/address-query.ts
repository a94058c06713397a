/**
 * A section's filters in the address, after its id (`#audit/?operation=…`), so that a reload or a shared link keeps
 * them. They sit after a `?` as one query string: values holding `/` (an operation's route) stay whole.
 */
export function addressQuery(): URLSearchParams {
  const hash = location.hash;
  const at = hash.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : hash.slice(at + 1));
}

/** Goes to a section with these filters (left-out or empty values dropped); the section draws itself again. */
export function goWithQuery(section: string, values: Record<string, string | undefined>): void {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) query.set(name, value);
  const text = query.toString();
  location.hash = text ? `#${section}/?${text}` : `#${section}`;
}
