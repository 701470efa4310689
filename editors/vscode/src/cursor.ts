/**
 * Telling the server where the cursor rests (`arbor/cursor`), so that it can prefill the prompt a
 * completion there would send before the user types (a warm-up at background priority).
 *
 * Rule: a cursor that stays put for `restMs` with an empty selection is reported once, with the
 * document's wire uri and version; a move before then replaces the pending report; the same
 * (uri, version, position) is never reported twice in a row. Nothing in this file imports
 * `vscode`: timers are injected, so the tests advance them by hand.
 */

import type { CursorParams } from "./protocol";
import type { EditorSnapshot } from "./retrigger";

/** How long a cursor must stay put before it is reported. */
export const CURSOR_REST_MS = 150;

export interface Timers<H> {
  set(callback: () => void, ms: number): H;
  clear(handle: H): void;
}

export class CursorReporter<H> {
  private pending: H | undefined;
  private lastSent: string | undefined;

  constructor(
    private readonly send: (params: CursorParams) => void,
    private readonly timers: Timers<H>,
    private readonly restMs: number = CURSOR_REST_MS,
  ) {}

  /** The active editor's cursor moved (or another editor became active): report it once it rests. */
  moved(editor: EditorSnapshot | undefined): void {
    this.cancel();
    if (!editor || !editor.selection.isEmpty) {
      return;
    }
    const params: CursorParams = {
      textDocument: { uri: editor.uri, version: editor.version },
      position: { line: editor.selection.active.line, character: editor.selection.active.character },
    };
    const key = JSON.stringify([params.textDocument.uri, params.textDocument.version, params.position]);
    if (key === this.lastSent) {
      return;
    }
    this.pending = this.timers.set(() => {
      this.pending = undefined;
      this.lastSent = key;
      this.send(params);
    }, this.restMs);
  }

  /** Drop a pending report (completions toggled off, client stopping). */
  cancel(): void {
    if (this.pending !== undefined) {
      this.timers.clear(this.pending);
      this.pending = undefined;
    }
  }
}
