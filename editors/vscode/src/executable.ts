/**
 * Finding the arbor-ls executable from the `arbor.server.path` setting.
 *
 * A value with a path separator is a path (`~` expands to the home directory; a relative path is
 * taken from the first workspace folder). A bare name is looked up on PATH, then in the workspace
 * folders' `.venv/bin` and `venv/bin`, in that order; the first executable file wins.
 * Pure apart from the injected `isExecutable` check, so tests need no file system.
 */

import * as path from "path";

export interface LookupEnvironment {
  pathVariable: string;
  home: string;
  workspaceFolders: readonly string[];
  isExecutable: (candidate: string) => boolean;
  platform?: NodeJS.Platform;
}

export type Resolution = { found: true; path: string } | { found: false; message: string; searched: string[] };

const VENV_DIRS = [".venv", "venv"];
/** The install command README.md recommends (a test checks that README still says it). */
export const INSTALL_COMMAND = "pipx install 'arbor-ls[embedded]'";

function expandHome(value: string, home: string): string {
  if (value === "~") {
    return home;
  }
  if (value.startsWith("~/")) {
    return path.join(home, value.slice(2));
  }
  return value;
}

function candidateNames(name: string, platform: NodeJS.Platform): string[] {
  if (platform === "win32" && path.extname(name) === "") {
    return [`${name}.exe`, `${name}.cmd`, name];
  }
  return [name];
}

/** Every path tried for `setting`, in the order they are tried. */
export function candidates(setting: string, env: LookupEnvironment): string[] {
  const platform = env.platform ?? process.platform;
  const value = expandHome(setting.trim(), env.home);
  if (value.includes("/") || value.includes(path.sep)) {
    const base = env.workspaceFolders[0] ?? process.cwd();
    return [path.isAbsolute(value) ? value : path.resolve(base, value)];
  }
  const binDir = platform === "win32" ? "Scripts" : "bin";
  const dirs = [
    ...env.pathVariable.split(path.delimiter).filter((dir) => dir.length > 0),
    ...env.workspaceFolders.flatMap((folder) => VENV_DIRS.map((venv) => path.join(folder, venv, binDir))),
  ];
  return dirs.flatMap((dir) => candidateNames(value, platform).map((name) => path.join(dir, name)));
}

export function resolveExecutable(setting: string, env: LookupEnvironment): Resolution {
  if (setting.trim() === "") {
    return { found: false, message: "`arbor.server.path` is empty.", searched: [] };
  }
  const searched = candidates(setting, env);
  const hit = searched.find((candidate) => env.isExecutable(candidate));
  if (hit !== undefined) {
    return { found: true, path: hit };
  }
  const where = searched.length === 1 ? searched[0] : "PATH and the workspace's .venv/bin";
  return {
    found: false,
    message:
      `arbor-ls was not found (looked for '${setting}' in ${where}). ` +
      `Install it with \`${INSTALL_COMMAND}\` or set \`arbor.server.path\` to the executable.`,
    searched,
  };
}
