// How the extension starts the server, as plain data: no `vscode` import, so the same code
// runs under node in tests (src/test/launch.test.ts) against the real binary.

export interface ServerSettings {
  /** The docforge binary. */
  path: string;
  /** Pass --no-ast. */
  noAst: boolean;
  /** Pass --no-precise. */
  noPrecise: boolean;
  /** The Go installation for standard-library navigation: '' discovers it, 'off' passes
   * --no-goroot, a path passes --goroot PATH. */
  goroot: string;
}

export interface LaunchOptions {
  command: string;
  args: string[];
}

/** Settings from a `get(key, default)` reader (VS Code's WorkspaceConfiguration.get). */
export function readSettings(get: <T>(key: string, fallback: T) => T): ServerSettings {
  return {
    path: get<string>('server.path', 'docforge') || 'docforge',
    noAst: get<boolean>('server.noAst', false),
    noPrecise: get<boolean>('server.noPrecise', false),
    goroot: get<string>('server.goroot', ''),
  };
}

/** `docforge lsp [--no-ast] [--no-precise] [--goroot DIR | --no-goroot]` over stdio. */
export function serverLaunch(s: ServerSettings): LaunchOptions {
  const args = ['lsp'];
  if (s.noAst) {
    args.push('--no-ast');
  }
  if (s.noPrecise) {
    args.push('--no-precise');
  }
  if (s.goroot === 'off') {
    args.push('--no-goroot');
  } else if (s.goroot) {
    args.push('--goroot', s.goroot);
  }
  return { command: s.path, args };
}
