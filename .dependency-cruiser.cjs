// The direction of imports from docs/architecture ("Layout and direction of imports"), checked by `npm run layers`.
// Every rule names folders, never single files (except the gateway's one interface file), so moves inside a layer keep it true.

/** A path under src/ that is not one of the given layers (folder names or files, relative to src/). */
const srcOutside = (...layers) => `^src/(?!(${layers.join('|')})(/|$))`;

/** The engines (stores, pool, machines, loaders): the transport reaches them only through the gateway. */
const ENGINE_PACKAGES = '^node_modules/(redis|@redis/[^/]+|lmdb|msgpackr|piscina|xstate|tsx)/';

module.exports = {
  forbidden: [
    {
      name: 'protocol-imports-only-protocol',
      comment: 'src/protocol is zod schemas and codecs: it imports nothing of ours but src/protocol.',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { path: '^(src|relay|test|bench|bin)/', pathNot: '^src/protocol/' },
    },
    {
      name: 'protocol-imports-only-zod',
      comment: 'src/protocol does no I/O: zod is the one package it may import, and no node: module.',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { dependencyTypesNot: ['local'], pathNot: '^node_modules/zod/' },
    },
    {
      name: 'transport-imports-protocol-and-gateway-api',
      comment: 'src/transport knows the protocol and the gateway through its one interface (src/gateway/api.ts), nothing else of ours.',
      severity: 'error',
      from: { path: '^src/transport/' },
      to: { path: srcOutside('protocol', 'transport', 'gateway/api\\.ts') },
    },
    {
      name: 'transport-no-engines',
      comment: 'src/transport is the uWS front: stores, the pool and the machines are behind the gateway.',
      severity: 'error',
      from: { path: '^src/transport/' },
      to: { path: ENGINE_PACKAGES },
    },
    {
      name: 'workers-import-only-protocol',
      comment: 'A worker thread loads src/runtime/workers and src/protocol only: no uWS, no redis, no lmdb in a worker.',
      severity: 'error',
      from: { path: '^src/runtime/workers/' },
      to: { path: srcOutside('protocol', 'runtime/workers') },
    },
    {
      name: 'workers-no-packages',
      comment: 'Packages a worker may import: zod (through src/protocol). Node built-ins are fine.',
      severity: 'error',
      from: { path: '^src/runtime/workers/' },
      to: { dependencyTypesNot: ['local', 'core'], pathNot: '^node_modules/zod/' },
    },
    {
      name: 'runtime-below-actors-gateway-transport-cli',
      comment: 'src/runtime is the bottom of the I/O stack: it never imports the machines, the gateway, the transport or the composition root.',
      severity: 'error',
      from: { path: '^src/runtime/' },
      to: { path: '^src/(actors|gateway|transport|cli)/|^src/main\\.ts$' },
    },
    {
      name: 'actors-below-gateway',
      comment: 'src/actors never imports the gateway, the transport or the composition root.',
      severity: 'error',
      from: { path: '^src/actors/' },
      to: { path: '^src/(gateway|transport|cli)/|^src/main\\.ts$' },
    },
    {
      name: 'gateway-below-transport',
      comment: 'src/gateway never imports the transport (transport calls it) or the composition root.',
      severity: 'error',
      from: { path: '^src/gateway/' },
      to: { path: '^src/(transport|cli)/|^src/main\\.ts$' },
    },
    {
      name: 'relay-not-into-gateway',
      comment: 'relay/ uses src/protocol and reusable pieces, never the gateway, its actors or its transport.',
      severity: 'error',
      from: { path: '^relay/' },
      to: { path: '^src/(gateway|actors|transport)/' },
    },
    {
      name: 'src-not-into-relay',
      comment: 'relay/ builds on src/, never the reverse.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^relay/' },
    },
    {
      name: 'nothing-imports-test',
      comment: 'test/ is imported by test/ only.',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'nothing-imports-bench',
      comment: 'bench/ is imported by bench/ only.',
      severity: 'error',
      from: { pathNot: '^bench/' },
      to: { path: '^bench/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles in src/ or relay/ (a cycle made only of `import type` is the next rule).',
      severity: 'error',
      from: { path: '^(src|relay)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-types',
      comment: 'A cycle through `import type` only: harmless at run time, but the shared type belongs in a file of its own.',
      severity: 'warn',
      from: { path: '^(src|relay)/' },
      to: { circular: true, via: { dependencyTypes: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a .js specifier resolves to its .ts source through tsconfig); a test fixture may break on purpose.',
      severity: 'error',
      from: { pathNot: '^test/fixtures/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'What ships (src/, relay/, bin/) uses dependencies only: devDependencies are absent after npm ci --omit=dev.',
      severity: 'error',
      from: { path: '^(src|relay|bin)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-non-package-json',
      comment: 'Every package imported is named in package.json, not just present in node_modules.',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    // `depcruise .`: every folder with code, so relay/ and moved folders are in without editing this file. Browser code
    // is left out: the relay's admin UI scripts (their imports resolve under /assets/) and dashboard/ (its imports are
    // URLs the gateway serves)
    exclude: { path: '^(dist|data|docs|coverage|dashboard|\\.tap|\\.ci|\\.git|relay/admin/ui)/' },
    doNotFollow: { path: 'node_modules' },
    // count `import type` too: a type-only import still ties a layer to another
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    cache: false,
  },
};
