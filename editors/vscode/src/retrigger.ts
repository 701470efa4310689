/**
 * When to ask VS Code for an inline completion again after `arbor/completionReady`.
 *
 * VS Code gives up on an inline completion request about 0.8 s after sending it; the server then
 * finishes the completion into its cache and says so. Asking again is worth it only where the
 * answer still applies, so the rule is: the notification names the active editor's document, at
 * its current version, and the primary selection is empty with its cursor exactly at the notified
 * position. Anything else is ignored.
 *
 * Invariants: one notification yields at most one trigger; a given (uri, version, position) is
 * re-triggered at most once, so that a request cancelled again cannot ping-pong with the server.
 * Nothing in this file imports `vscode`: editors are read through `EditorLike`.
 */

import type { CompletionReadyParams, WirePosition } from "./protocol";

/** What the rule reads of an editor: its document's wire uri and version, and its cursor. */
export interface EditorSnapshot {
  uri: string;
  version: number;
  selection: { isEmpty: boolean; active: WirePosition };
}

/** The part of `vscode.TextEditor` that `snapshotOf` reads. */
export interface EditorLike<U> {
  document: { uri: U; version: number };
  selection: { isEmpty: boolean; active: WirePosition };
}

export type ReadyVerdict =
  | "trigger"
  | "noEditor"
  | "otherDocument"
  | "otherVersion"
  | "selection"
  | "moved"
  | "repeated";

/** The editor as the rule sees it; `asUri` is the language client's code-to-protocol converter. */
export function snapshotOf<U>(editor: EditorLike<U> | undefined, asUri: (uri: U) => string): EditorSnapshot | undefined {
  if (!editor) {
    return undefined;
  }
  const { isEmpty, active } = editor.selection;
  return {
    uri: asUri(editor.document.uri),
    version: editor.document.version,
    selection: { isEmpty, active: { line: active.line, character: active.character } },
  };
}

/** Whether the completion announced by `ready` is the one the editor would ask for now. */
export function readyVerdict(ready: CompletionReadyParams, editor: EditorSnapshot | undefined): ReadyVerdict {
  if (!editor) {
    return "noEditor";
  }
  if (editor.uri !== ready.uri) {
    return "otherDocument";
  }
  if (editor.version !== ready.version) {
    return "otherVersion";
  }
  if (!editor.selection.isEmpty) {
    return "selection";
  }
  const { line, character } = editor.selection.active;
  if (line !== ready.position.line || character !== ready.position.character) {
    return "moved";
  }
  return "trigger";
}

function keyOf(ready: CompletionReadyParams): string {
  return JSON.stringify([ready.uri, ready.version, ready.position.line, ready.position.character]);
}

/** `readyVerdict` plus the once-per-(uri, version, position) rule; `trigger` runs the editor's command. */
export class ReadyRetrigger {
  private lastTriggered: string | undefined;

  constructor(private readonly trigger: () => void) {}

  /** Handles one notification: triggers at most once, and returns why it did or did not. */
  onReady(ready: CompletionReadyParams, editor: EditorSnapshot | undefined): ReadyVerdict {
    const verdict = readyVerdict(ready, editor);
    if (verdict !== "trigger") {
      return verdict;
    }
    const key = keyOf(ready);
    if (key === this.lastTriggered) {
      return "repeated";
    }
    this.lastTriggered = key;
    this.trigger();
    return verdict;
  }
}
