/**
 * Shown / accept / reject signals for inline completions.
 *
 * Shown: a non-empty answer handed to VS Code is reported once (`arbor/shown`); an answer that is
 * the rest of the completion already shown (typed through, or re-asked after a partial accept) is
 * the same completion. VS Code runs an inline completion item's `command` after the user accepts
 * the whole item (Tab); the middleware gives every item the `arbor.accepted` command, whose
 * arguments carry the `arbor/accepted` payload and the server's own command (if any), run after
 * it. Partial accepts go through `arbor.acceptNextWord` / `arbor.acceptNextLine` (acceptance.ts).
 * Rejection is explicit only: Escape while a suggestion is visible (and no suggestion list is
 * open) runs `arbor.dismiss`, which reports the last shown completion. Lengths are JavaScript
 * string lengths (UTF-16 code units). Nothing here imports `vscode`, so the logic is unit-tested
 * directly.
 */

import type { AcceptedParams, RejectedParams, ShownParams } from "./protocol";

export const ACCEPT_COMMAND = "arbor.accepted";
export const CLIENT_NAME = "vscode";

export interface CommandLike {
  title: string;
  command: string;
  arguments?: unknown[];
}

export interface ItemLike {
  insertText: string | { value: string };
  command?: CommandLike;
}

export function insertTextOf(item: ItemLike): string {
  return typeof item.insertText === "string" ? item.insertText : item.insertText.value;
}

/** Returns the items with `command` set to report acceptance (the server's command kept inside). */
export function withAcceptCommand<T extends ItemLike>(items: T[], uri: string): T[] {
  for (const item of items) {
    const chars = insertTextOf(item).length;
    const payload: AcceptedParams = {
      uri,
      kind: "full",
      acceptedChars: chars,
      shownChars: chars,
      client: CLIENT_NAME,
    };
    const inner = item.command;
    item.command = { title: "arbor: accepted", command: ACCEPT_COMMAND, arguments: [payload, inner] };
  }
  return items;
}

/** Splits `arbor.accepted`'s arguments back into the payload and the server's own command. */
export function parseAcceptArguments(args: unknown[]): { payload?: AcceptedParams; inner?: CommandLike } {
  const [payload, inner] = args;
  const isPayload =
    typeof payload === "object" && payload !== null && typeof (payload as AcceptedParams).uri === "string";
  const isCommand =
    typeof inner === "object" && inner !== null && typeof (inner as CommandLike).command === "string";
  return {
    payload: isPayload ? (payload as AcceptedParams) : undefined,
    inner: isCommand ? (inner as CommandLike) : undefined,
  };
}

/**
 * Remembers the completion shown last, so that a dismissal can say what it dismissed.
 * Invariant: at most one completion is remembered; accepting it whole or dismissing forgets it.
 */
export class ShownCompletion {
  private shown: { uri: string; text: string } | undefined;

  /**
   * Remembers the first item of an answer; returns the `arbor/shown` payload when it is a new
   * completion, undefined when it is the rest of the one shown (or the answer is empty).
   */
  remember(uri: string, items: readonly ItemLike[]): ShownParams | undefined {
    const first = items[0];
    const text = first ? insertTextOf(first) : "";
    if (text === "") {
      return undefined;
    }
    const shown = this.shown;
    if (shown && shown.uri === uri && shown.text.endsWith(text)) {
      return undefined;
    }
    this.shown = { uri, text };
    return { uri, shownChars: text.length, client: CLIENT_NAME };
  }

  /** The characters of the completion shown in `uri`, as first shown (0 if none). */
  shownChars(uri: string): number {
    return this.shown && this.shown.uri === uri ? this.shown.text.length : 0;
  }

  accepted(): void {
    this.shown = undefined;
  }

  /** The `arbor/rejected` payload for dismissing what is shown, or undefined if nothing is. */
  dismiss(): RejectedParams | undefined {
    const shown = this.shown;
    this.shown = undefined;
    if (!shown) {
      return undefined;
    }
    return { uri: shown.uri, shownChars: shown.text.length, reason: "dismissed", client: CLIENT_NAME };
  }
}
