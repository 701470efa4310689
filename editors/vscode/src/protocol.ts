/**
 * arbor-ls's custom LSP messages, as the clients see them. Method names and payload shapes here
 * are the wire contract with `lsp_server`; nothing in this file imports `vscode`.
 */

export const STATUS_NOTIFICATION = "arbor/status";
export const STATS_REQUEST = "arbor/stats";
export const CONTEXT_REQUEST = "arbor/context";
export const ACCEPTED_NOTIFICATION = "arbor/accepted";
export const REJECTED_NOTIFICATION = "arbor/rejected";

export type ServerState = "idle" | "working" | "error";

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
  /** Number of characters inserted by this acceptance. */
  acceptedChars: number;
  /** Number of characters the shown completion had. */
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

export function isStatusParams(value: unknown): value is StatusParams {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const state = (value as { state?: unknown }).state;
  return state === "idle" || state === "working" || state === "error";
}
