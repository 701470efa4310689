/**
 * The channel vscode-languageclient traces LSP messages to. vscode-languageclient traces only when
 * its trace channel's log level is Trace, so with a plain channel `arbor.trace.server` did nothing
 * until the user also set the channel's level. This view of the `arbor-ls` channel reports level
 * Trace whenever `arbor.trace.server` is not "off" (and says so when the setting changes), and
 * writes the trace at info level, which the channel shows by default.
 */

import * as vscode from "vscode";

export class TraceChannel implements vscode.LogOutputChannel {
  private readonly levelChanged = new vscode.EventEmitter<vscode.LogLevel>();
  private readonly listening: vscode.Disposable;
  readonly onDidChangeLogLevel = this.levelChanged.event;

  constructor(
    private readonly channel: vscode.LogOutputChannel,
    private readonly traceSetting: () => string,
  ) {
    this.listening = channel.onDidChangeLogLevel(() => this.levelChanged.fire(this.logLevel));
  }

  private get tracing(): boolean {
    return this.traceSetting() !== "off";
  }

  get name(): string {
    return this.channel.name;
  }

  get logLevel(): vscode.LogLevel {
    return this.tracing ? vscode.LogLevel.Trace : this.channel.logLevel;
  }

  /** Call when `arbor.trace.server` changed. */
  settingChanged(): void {
    this.levelChanged.fire(this.logLevel);
  }

  trace(message: string, ...args: unknown[]): void {
    if (this.tracing) {
      this.channel.info(message, ...args);
    } else {
      this.channel.trace(message, ...args);
    }
  }

  debug(message: string, ...args: unknown[]): void {
    this.channel.debug(message, ...args);
  }

  info(message: string, ...args: unknown[]): void {
    this.channel.info(message, ...args);
  }

  warn(message: string, ...args: unknown[]): void {
    this.channel.warn(message, ...args);
  }

  error(error: string | Error, ...args: unknown[]): void {
    this.channel.error(error, ...args);
  }

  append(value: string): void {
    this.channel.append(value);
  }

  appendLine(value: string): void {
    this.channel.appendLine(value);
  }

  replace(value: string): void {
    this.channel.replace(value);
  }

  clear(): void {
    this.channel.clear();
  }

  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserveFocus === "boolean" || columnOrPreserveFocus === undefined) {
      this.channel.show(columnOrPreserveFocus);
    } else {
      this.channel.show(columnOrPreserveFocus, preserveFocus);
    }
  }

  hide(): void {
    this.channel.hide();
  }

  /** Disposes this view only; the `arbor-ls` channel belongs to the extension. */
  dispose(): void {
    this.listening.dispose();
    this.levelChanged.dispose();
  }
}
