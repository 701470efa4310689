/**
 * The server's settings, as the extension sends them: `arbor.*` keys of VS Code's configuration,
 * minus the client-only ones, nested by their dots into the server's camelCase JSON shape
 * (`arbor.completion.debounceMs` -> `{completion: {debounceMs}}`).
 *
 * Invariants:
 * - Only values the user set somewhere (user, workspace or folder scope) are sent, so the server's
 *   own defaults stay the single source of defaults; VS Code's scope precedence decides which one
 *   wins (folder over workspace over user).
 * - The output is a fresh plain JSON object; the same inputs give deep-equal outputs.
 */

/** Keys under `arbor.` that configure the extension itself and are never sent to the server. */
export const CLIENT_ONLY_PREFIXES: readonly string[] = ["enable", "server.", "trace.", "vscode."];

/** What `WorkspaceConfiguration.inspect(key)` returns, reduced to the scopes that matter here. */
export interface InspectedValue {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type JsonObject = { [key: string]: unknown };

/** True for keys (relative to `arbor.`) that the server understands. */
export function isServerKey(key: string): boolean {
  return !CLIENT_ONLY_PREFIXES.some((prefix) =>
    prefix.endsWith(".") ? key.startsWith(prefix) : key === prefix,
  );
}

/** The value in force for one key, or undefined when no scope sets it. */
export function explicitValue(inspected: InspectedValue | undefined): unknown {
  if (!inspected) {
    return undefined;
  }
  for (const value of [inspected.workspaceFolderValue, inspected.workspaceValue, inspected.globalValue]) {
    if (value !== undefined) {
      return value;
    }
  }
  return undefined;
}

/** Sets `value` at the dotted `key` inside `target`, creating intermediate objects. */
export function setDotted(target: JsonObject, key: string, value: unknown): void {
  const parts = key.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const child = node[part];
    if (typeof child !== "object" || child === null || Array.isArray(child)) {
      node[part] = {};
    }
    node = node[part] as JsonObject;
  }
  node[parts[parts.length - 1]] = structuredClone(value);
}

/**
 * Builds the server settings object from the contributed `arbor.*` keys.
 *
 * `contributedKeys` are full names as package.json declares them (`arbor.context.budgetTokens`);
 * `inspect` returns the scopes' values for a key relative to `arbor.`.
 */
export function serverSettings(
  contributedKeys: readonly string[],
  inspect: (relativeKey: string) => InspectedValue | undefined,
): JsonObject {
  const settings: JsonObject = {};
  const relativeKeys = contributedKeys
    .filter((key) => key.startsWith("arbor."))
    .map((key) => key.slice("arbor.".length))
    .filter(isServerKey)
    .sort();
  for (const key of relativeKeys) {
    const value = explicitValue(inspect(key));
    if (value !== undefined) {
      setDotted(settings, key, value);
    }
  }
  return settings;
}

/** The `arbor.*` keys that package.json contributes (its `contributes.configuration`). */
export function contributedKeys(packageJson: unknown): string[] {
  const contributes = (packageJson as { contributes?: { configuration?: unknown } }).contributes;
  const configuration = contributes?.configuration;
  const sections = Array.isArray(configuration) ? configuration : configuration ? [configuration] : [];
  const keys: string[] = [];
  for (const section of sections) {
    const properties = (section as { properties?: Record<string, unknown> }).properties ?? {};
    keys.push(...Object.keys(properties).filter((key) => key.startsWith("arbor.")));
  }
  return keys;
}
