/**
 * What the status bar item shows, as a pure function of the extension's state.
 *
 * Invariant: every state yields a non-empty `text` starting with a codicon, and the `command`
 * is the one a click should run (toggle when running, restart when the server is unusable).
 */

import type { StatusParams } from "./protocol";

export type ClientPhase = "starting" | "running" | "stopped" | "notFound";

export interface StatusView {
  text: string;
  tooltip: string;
  /** A `ThemeColor` id for the background, or undefined for the default. */
  background?: "statusBarItem.warningBackground" | "statusBarItem.errorBackground";
  command: string;
}

function details(status: StatusParams | undefined): string[] {
  if (!status) {
    return [];
  }
  const lines: string[] = [];
  if (status.backend) {
    lines.push(`backend: ${status.backend}`);
  }
  if (status.breaker) {
    lines.push(`breaker: ${status.breaker}`);
  }
  if (status.message) {
    lines.push(status.message);
  }
  return lines;
}

export function statusView(
  phase: ClientPhase,
  enabled: boolean,
  status: StatusParams | undefined,
): StatusView {
  if (phase === "notFound") {
    return {
      text: "$(error) arbor: not found",
      tooltip: "The arbor-ls executable was not found. Set `arbor.server.path`, then run `arbor: Restart the language server`.",
      background: "statusBarItem.errorBackground",
      command: "arbor.restartServer",
    };
  }
  if (phase === "stopped") {
    return {
      text: "$(debug-disconnect) arbor: stopped",
      tooltip: "arbor-ls is not running. Click to restart it.",
      background: "statusBarItem.errorBackground",
      command: "arbor.restartServer",
    };
  }
  if (phase === "starting") {
    return { text: "$(loading~spin) arbor", tooltip: "arbor-ls is starting", command: "arbor.showStats" };
  }
  if (!enabled) {
    return {
      text: "$(circle-slash) arbor",
      tooltip: ["Inline completions are off. Click to turn them on.", ...details(status)].join("\n"),
      command: "arbor.toggleCompletions",
    };
  }
  const state = status?.state ?? "idle";
  if (state === "error") {
    const breaker = status?.breaker ? ` (breaker ${status.breaker})` : "";
    return {
      text: `$(warning) arbor: backend down${breaker}`,
      tooltip: ["The completion backend is failing.", ...details(status)].join("\n"),
      background: status?.breaker === "open" ? "statusBarItem.errorBackground" : "statusBarItem.warningBackground",
      command: "arbor.showStats",
    };
  }
  if (state === "loading") {
    return {
      text: "$(sync~spin) arbor: loading model",
      tooltip: ["The model is loading; completions start once it is ready.", ...details(status)].join("\n"),
      command: "arbor.showStats",
    };
  }
  if (state === "working") {
    return {
      text: "$(sync~spin) arbor",
      tooltip: ["Completing...", ...details(status)].join("\n"),
      command: "arbor.toggleCompletions",
    };
  }
  return {
    text: "$(sparkle) arbor",
    tooltip: ["arbor-ls is ready. Click to turn inline completions off.", ...details(status)].join("\n"),
    command: "arbor.toggleCompletions",
  };
}
