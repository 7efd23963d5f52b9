// Where the agent worker lives and how a worker thread gets to load it, from source (.ts) or from a build (.js).
import { fileURLToPath } from 'node:url';

/**
 * Flags a worker thread cannot take or must not repeat: the inspector and profilers bind ports or
 * files once per process, Node refuses per-process options in a worker's execArgv, and V8's heap and GC flags are
 * the process's (a worker shares them, and refuses them in its execArgv).
 */
const PROCESS_ONLY =
  /^--(inspect|debug|prof|cpu-prof|heap-prof|heapsnapshot|diagnostic-dir|report|watch|test|title|redirect-warnings|trace-event-file|inspect-port|single-threaded|max-semi-space-size|max-old-space-size|v8-pool-size|stack-size)/;

const LOADER_FLAG = /^--(import|loader|experimental-loader|require)(=(.*))?$/;

const isTsxSpecifier = (s: string): boolean => s === 'tsx' || s.startsWith('tsx/') || /[\\/]node_modules[\\/]tsx[\\/]/.test(s);

/** Whether execArgv already loads tsx (`--import=tsx`, `--import tsx`, a resolved URL, `--require tsx/cjs`...). */
export function loadsTsx(execArgv: readonly string[]): boolean {
  for (let i = 0; i < execArgv.length; i++) {
    const m = LOADER_FLAG.exec(execArgv[i] ?? '');
    if (!m) continue;
    const value = m[2] ? (m[3] ?? '') : (execArgv[i + 1] ?? '');
    if (isTsxSpecifier(value)) return true;
  }
  return false;
}

/** A resolved specifier, so the worker finds tsx even when the process runs from another directory. */
function tsxSpecifier(): string {
  try {
    return import.meta.resolve('tsx');
  } catch {
    return 'tsx';
  }
}

export function workerExecArgv(opts: { typescript: boolean; execArgv: readonly string[] }): string[] {
  const out: string[] = [];
  for (let i = 0; i < opts.execArgv.length; i++) {
    const arg = opts.execArgv[i] ?? '';
    if (PROCESS_ONLY.test(arg)) {
      // `--inspect-port 9229`: drop the value with its flag
      if (!arg.includes('=') && /^\d+$/.test(opts.execArgv[i + 1] ?? '')) i++;
      continue;
    }
    out.push(arg);
  }
  if (opts.typescript && !loadsTsx(out)) out.push('--import', tsxSpecifier());
  return out;
}

/** The worker file (runtime/workers/agent-worker, beside this folder), with this module's own extension, and the flags it needs. */
export function agentWorkerEntry(): { filename: string; execArgv: string[] } {
  const typescript = new URL(import.meta.url).pathname.endsWith('.ts');
  const filename = fileURLToPath(new URL(`../workers/agent-worker${typescript ? '.ts' : '.js'}`, import.meta.url));
  return { filename, execArgv: workerExecArgv({ typescript, execArgv: process.execArgv }) };
}
