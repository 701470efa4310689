/**
 * arbor-ls's custom LSP messages, as the clients see them. Method names and payload shapes here
 * are the wire contract with `lsp_server`; nothing in this file imports `vscode`.
 */

export const STATUS_NOTIFICATION = "arbor/status";
export const STATS_REQUEST = "arbor/stats";
export const CONTEXT_REQUEST = "arbor/context";
export const ACCEPTED_NOTIFICATION = "arbor/accepted";
export const REJECTED_NOTIFICATION = "arbor/rejected";
export const SHOWN_NOTIFICATION = "arbor/shown";
export const COMPLETION_READY_NOTIFICATION = "arbor/completionReady";
export const CURSOR_NOTIFICATION = "arbor/cursor";

/** `loading`: the model is being loaded (at start); requests meanwhile are answered empty. */
export type ServerState = "idle" | "working" | "loading" | "error";
const SERVER_STATES: readonly string[] = ["idle", "working", "loading", "error"];

/** `arbor/status`: what the server is doing and how its first backend is. */
export interface StatusParams {
  state: ServerState;
  backend?: string;
  breaker?: string;
  message?: string;
}

/** How much of a shown completion the user took. */
export type AcceptKind = "full" | "word" | "line";

/** `arbor/accepted`: the user took (part of) a completion the server produced. */
export interface AcceptedParams {
  uri: string;
  kind: AcceptKind;
  /** Number of characters inserted by this acceptance (all that was left, or the next word / line). */
  acceptedChars: number;
  /** Number of characters the shown completion had. */
  shownChars: number;
  client: string;
}

/** `arbor/shown`: a completion appeared (once per completion, not per remainder of it). */
export interface ShownParams {
  uri: string;
  shownChars: number;
  client: string;
}

/** `arbor/rejected`: the user dismissed a shown completion explicitly. */
export interface RejectedParams {
  uri: string;
  shownChars: number;
  reason: "dismissed" | "cleared";
  client: string;
}

/** A zero-based LSP position, `character` in the negotiated position encoding (UTF-16 here). */
export interface WirePosition {
  line: number;
  character: number;
}

/**
 * `arbor/completionReady`: a completion for a request the client cancelled without an edit has
 * finished into the server's cache; asking again at the same uri, version and position is
 * answered from it at once.
 */
export interface CompletionReadyParams {
  uri: string;
  version: number;
  position: WirePosition;
}

/**
 * `arbor/cursor` (client -> server): the cursor rests at `position` of the document at
 * `version`; the server may prefill the prompt a completion there would send.
 */
export interface CursorParams {
  textDocument: { uri: string; version: number };
  position: WirePosition;
}

export function isStatusParams(value: unknown): value is StatusParams {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const state = (value as { state?: unknown }).state;
  return typeof state === "string" && SERVER_STATES.includes(state);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

export function isCompletionReadyParams(value: unknown): value is CompletionReadyParams {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { uri, version, position } = value as { uri?: unknown; version?: unknown; position?: unknown };
  if (typeof uri !== "string" || !Number.isInteger(version) || typeof position !== "object" || position === null) {
    return false;
  }
  const { line, character } = position as { line?: unknown; character?: unknown };
  return isNonNegativeInteger(line) && isNonNegativeInteger(character);
}
