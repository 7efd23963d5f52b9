// Test support: the runtime stage of a Dockerfile read as plain data (its ENV, WORKDIR, COPY, USER, EXPOSE,
// HEALTHCHECK and CMD), so a test can lay out and run what the image would, where no container engine runs.
import { readFile } from 'node:fs/promises';

export interface ImageSpec {
  env: Record<string, string>;
  workdir: string;
  /** COPY lines: sources (relative to the context, or to the build stage with --from) and the destination */
  copies: Array<{ from: string | undefined; sources: string[]; dest: string }>;
  user: string | undefined;
  expose: string[];
  healthcheck: string[] | undefined;
  cmd: string[];
}

/** The last stage of the Dockerfile (the image that runs). Only the exec (JSON) form of CMD and HEALTHCHECK is read. */
export async function readImageSpec(file: string): Promise<ImageSpec> {
  const text = (await readFile(file, 'utf8')).replace(/\\\n/g, ' ');
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const lastFrom =
    lines
      .map((l, i) => (/^FROM\s/i.test(l) ? i : -1))
      .filter((i) => i >= 0)
      .pop() ?? 0;
  const spec: ImageSpec = { env: {}, workdir: '/', copies: [], user: undefined, expose: [], healthcheck: undefined, cmd: [] };
  for (const line of lines.slice(lastFrom + 1)) {
    const [word, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    switch (word!.toUpperCase()) {
      case 'ENV':
        for (const m of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) spec.env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
        break;
      case 'WORKDIR':
        spec.workdir = args;
        break;
      case 'COPY': {
        const from = /--from=(\S+)/.exec(args)?.[1];
        const parts = args.split(/\s+/).filter((p) => !p.startsWith('--'));
        spec.copies.push({ from, sources: parts.slice(0, -1), dest: parts[parts.length - 1]! });
        break;
      }
      case 'USER':
        spec.user = args;
        break;
      case 'EXPOSE':
        spec.expose.push(...rest);
        break;
      case 'HEALTHCHECK':
        spec.healthcheck = JSON.parse(args.slice(args.indexOf('CMD') + 3).trim()) as string[];
        break;
      case 'CMD':
        spec.cmd = JSON.parse(args) as string[];
        break;
    }
  }
  return spec;
}
