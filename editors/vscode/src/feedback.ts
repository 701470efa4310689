/**
 * Accept / reject signals for inline completions.
 *
 * VS Code runs an inline completion item's `command` after the user accepts the whole item
 * (Tab); the middleware gives every item the `arbor.accepted` command, whose arguments carry the
 * `arbor/accepted` payload and the server's own command (if any), run after it. Rejection is
 * explicit only: Escape while a suggestion is visible runs `arbor.dismiss`, which reports the
 * last shown completion. Nothing here imports `vscode`, so the logic is unit-tested directly.
 */

import type { AcceptedParams, RejectedParams } from "./protocol";

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
 * Invariant: at most one completion is remembered; accepting or dismissing forgets it.
 */
export class ShownCompletion {
  private shown: { uri: string; chars: number } | undefined;

  remember(uri: string, items: readonly ItemLike[]): void {
    const first = items[0];
    this.shown = first ? { uri, chars: insertTextOf(first).length } : undefined;
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
    return { uri: shown.uri, shownChars: shown.chars, reason: "dismissed", client: CLIENT_NAME };
  }
}
