// The Cypher editor (CodeMirror 6, MIT): highlighting by the Cypher stream mode, completion of this
// graph's labels, relationship types, property keys and Cypher's keywords, Ctrl+Enter (Cmd+Enter)
// to run. Loaded only by the Cypher page (its own chunk). It lives in a shadow root of its host:
// there CodeMirror adopts constructed style sheets, which the console's CSP (style-src 'self')
// allows, where in the document itself it would add a <style> element, which the CSP refuses.
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { StreamLanguage } from '@codemirror/language';
import { cypher } from '@codemirror/legacy-modes/mode/cypher';
import { EditorState, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import type { CypherSettings } from './types';

// The graph's words, as GET /console/api/cypher sends them.
export type GraphWords = CypherSettings['schema'];

const KEYWORDS = [
  'MATCH',
  'OPTIONAL MATCH',
  'WHERE',
  'WITH',
  'UNWIND',
  'RETURN',
  'ORDER BY',
  'SKIP',
  'LIMIT',
  'UNION',
  'DISTINCT',
  'CALL',
  'EXISTS',
  'COUNT',
  'COLLECT',
  'AS',
  'AND',
  'OR',
  'NOT',
  'IN',
  'IS NULL',
  'IS NOT NULL',
  'STARTS WITH',
  'ENDS WITH',
  'CONTAINS',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'shortestPath',
  'allShortestPaths',
];

function completions(words: GraphWords) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const label = ctx.matchBefore(/:\w*/);
    if (label) {
      // After "[" or "[r" it is a relationship type; otherwise a label.
      const before = ctx.state.sliceDoc(Math.max(0, label.from - 40), label.from);
      const inRel = /\[\s*\w*\s*$/.test(before);
      const names = inRel ? words.relationship_types : words.labels;
      return { from: label.from + 1, options: names.map((n) => ({ label: n, type: inRel ? 'type' : 'class' })) };
    }
    const prop = ctx.matchBefore(/\.\w*/);
    if (prop) return { from: prop.from + 1, options: words.property_keys.map((k) => ({ label: k, type: 'property' })) };
    const word = ctx.matchBefore(/\w+/);
    if (!word && !ctx.explicit) return null;
    return { from: word?.from ?? ctx.pos, options: KEYWORDS.map((k) => ({ label: k, type: 'keyword' })) };
  };
}

const THEME = EditorView.theme({
  '&': { fontSize: '14px', minHeight: '9rem', backgroundColor: '#fff' },
  '&.cm-focused': { outline: '2px solid #2457c5' },
  '.cm-content, .cm-gutter': { minHeight: '9rem' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
});

export function cypherEditor(
  host: HTMLElement,
  doc: string,
  words: GraphWords,
  onRun: () => void,
  onChange: (text: string) => void,
): EditorView {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  return new EditorView({
    root,
    parent: root,
    state: EditorState.create({
      doc,
      extensions: [
        Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (onRun(), true) }])),
        basicSetup,
        StreamLanguage.define(cypher),
        autocompletion({ override: [completions(words)] }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange(u.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'Cypher' }),
        THEME,
      ],
    }),
  });
}

export function setText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}
