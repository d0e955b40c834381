// A search form's fields as the analyst types them. They start from the filters in the URL; a
// re-render (a search's answer arriving while the analyst types) keeps what is typed instead of
// writing the URL's value back over it. Mount the form with the URL's query as its key, so a new
// search starts the draft again from the new filters.
import { useState } from 'preact/hooks';

type Draft<F extends string> = Record<F, string>;

export function useDraft<F extends string>(filters: Draft<F>) {
  const [draft, setDraft] = useState(filters);
  const set = (name: F, value: string) => setDraft((d) => ({ ...d, [name]: value }));
  // A text box: its value, kept as typed.
  const text = (name: F) => ({
    name,
    value: draft[name],
    onInput: (e: Event) => set(name, (e.currentTarget as HTMLInputElement).value),
  });
  // A choice: its value, kept as chosen.
  const choice = (name: F) => ({
    name,
    value: draft[name],
    onChange: (e: Event) => set(name, (e.currentTarget as HTMLSelectElement).value),
  });
  // A check box that sends '1' when checked.
  const check = (name: F) => ({
    name,
    value: '1',
    checked: draft[name] === '1',
    onChange: (e: Event) => set(name, (e.currentTarget as HTMLInputElement).checked ? '1' : ''),
  });
  return { text, choice, check };
}
